//! `mote::task`: spawn/await from anywhere, crashes, timeouts, shutdown, await_many and
//! async_stream. Every wait is bounded; no assertion depends on timing.

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mote::task::{self, OnTimeout, StreamOptions, Task, TaskError};
use mote::{Exit, ExitReason, Process, ProcessId, SpawnError};
use parking_lot::Mutex;

/// The longest any single wait may take before the test fails.
const WAIT: Duration = Duration::from_secs(5);

async fn crash() -> u32 {
    panic!("boom")
}

fn boom() -> TaskError {
    TaskError::Exit(ExitReason::Panic("boom".into()))
}

/// Polls `cond` until it holds or `WAIT` passes; returns whether it held.
async fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while !cond() {
        if start.elapsed() > WAIT {
            return false;
        }
        mote::sleep(Duration::from_millis(1)).await;
    }
    true
}

/// `eventually` for code outside the mote runtime's processes.
fn eventually_blocking(mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while !cond() {
        if start.elapsed() > WAIT {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    true
}

/// A future that never finishes.
fn stuck<T: Send + 'static>() -> impl Future<Output = T> + Send + 'static {
    std::future::pending()
}

#[test]
fn task_is_send() {
    fn assert_send<T: Send>() {}
    assert_send::<Task<Vec<u8>>>();
    assert_send::<task::AsyncStream<String>>();
}

#[test]
fn awaited_by_a_process_other_than_its_starter() {
    let got = mote::run(
        |mut p: Process<(ProcessId, Result<u64, TaskError>)>| async move {
            let me = p.pid();
            let t = task::spawn(async { 40 + 2 });
            let starter = p.id();
            let waiter = mote::spawn(move |mut w: Process<Task<u64>>| async move {
                let t = w.recv_timeout(WAIT).await.expect("the task handle arrives");
                me.send((mote::self_id().unwrap(), t.await_timeout(WAIT).await));
            });
            waiter.send(t);
            let (who, result) = p.recv_timeout(WAIT).await.expect("the waiter replies");
            assert_ne!(who, starter);
            assert_eq!(who, waiter.id());
            result
        },
    );
    assert_eq!(got, Ok(Ok(42)));
}

#[test]
fn awaited_from_a_plain_tokio_runtime_without_timers() {
    // No `enable_time`: the task's timeouts run on mote's own tokio runtime.
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (a, b) = rt.block_on(async {
        let a = task::spawn(async { "outside" }).await_timeout(WAIT).await;
        let mut b = task::spawn(async { 7u8 });
        let b = b.yield_timeout(WAIT).await;
        (a, b)
    });
    assert_eq!(a, Ok("outside"));
    assert_eq!(b, Some(Ok(7)));
}

#[test]
// The root process returns a task handle on purpose, to be awaited elsewhere.
#[allow(clippy::async_yields_async)]
fn started_in_a_process_awaited_in_a_tokio_task() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_time()
        .build()
        .unwrap();
    let got = rt.block_on(async {
        // The root process hands its task to a tokio task, and waits for that to end (the
        // run's processes, the task included, end when the root does).
        mote::run_async(|_p: Process<()>| async {
            let t = task::spawn(async {
                mote::sleep(Duration::from_millis(1)).await;
                vec![1, 2, 3]
            });
            tokio::spawn(async move { tokio::time::timeout(WAIT, t).await })
                .await
                .unwrap()
        })
        .await
        .expect("the root process returns the result")
    });
    assert_eq!(got, Ok(Ok(vec![1, 2, 3])));
}

#[test]
fn a_panic_is_reported_and_the_unlinked_starter_goes_on() {
    let got = mote::run(|p: Process<()>| async move {
        let t = task::spawn(crash());
        let err = t.await_timeout(WAIT).await;
        assert!(mote::is_alive(p.id()));
        (err, task::spawn(async { 1 }).await)
    });
    assert_eq!(got, Ok((Err(boom()), Ok(1))));
}

#[test]
fn a_linked_crash_reaches_the_trapping_starter() {
    let got = mote::run(|mut p: Process<Exit>| async move {
        p.trap_exit(true);
        let t = task::spawn_link(crash());
        let id = t.id();
        let result = t.await_timeout(WAIT).await;
        let exit = p.recv_timeout(WAIT).await.expect("the link's exit signal");
        (result, exit.from == id, exit.reason)
    });
    assert_eq!(
        got,
        Ok((Err(boom()), true, ExitReason::Panic("boom".into())))
    );
}

#[test]
fn a_linked_crash_takes_the_non_trapping_starter_down() {
    let got = mote::run(|mut p: Process<()>| async move {
        let t = task::spawn_link(crash());
        let _ = t.await_timeout(WAIT).await;
        // The link's exit signal ends this process at its next await.
        p.recv_timeout(WAIT).await;
        "survived"
    });
    assert_eq!(got, Err(ExitReason::Panic("boom".into())));
}

#[test]
fn spawn_link_outside_a_process_is_an_error() {
    let r = task::try_spawn_link(async { 1 });
    assert_eq!(r.unwrap_err(), SpawnError::NotInProcess);
}

#[test]
fn await_timeout_kills_the_task() {
    let got = mote::run(|_p: Process<()>| async {
        let t = task::spawn(stuck::<u32>());
        let id = t.id();
        assert!(mote::is_alive(id));
        let r = t.await_timeout(Duration::from_millis(10)).await;
        (r, eventually(|| !mote::is_alive(id)).await)
    });
    assert_eq!(got, Ok((Err(TaskError::Timeout), true)));
}

#[test]
fn await_timeout_of_a_linked_task_spares_the_starter() {
    let got = mote::run(|mut p: Process<()>| async move {
        let t = task::spawn_link(stuck::<u32>());
        let id = t.id();
        let r = t.await_timeout(Duration::from_millis(10)).await;
        let gone = eventually(|| !mote::is_alive(id)).await;
        // A kill through the link would end us here.
        p.recv_timeout(Duration::from_millis(20)).await;
        (r, gone)
    });
    assert_eq!(got, Ok((Err(TaskError::Timeout), true)));
}

#[test]
fn yield_timeout_keeps_the_task_running() {
    let got = mote::run(|_p: Process<()>| async {
        let (tx, rx) = tokio::sync::oneshot::channel::<u32>();
        let mut t = task::spawn(async move { rx.await.unwrap_or(0) + 1 });
        let first = t.yield_timeout(Duration::from_millis(10)).await;
        let alive = mote::is_alive(t.id());
        tx.send(41).unwrap();
        let second = t.yield_timeout(WAIT).await;
        let again = t.yield_timeout(Duration::ZERO).await;
        (first, alive, second, again)
    });
    assert_eq!(
        got,
        Ok((None, true, Some(Ok(42)), Some(Err(TaskError::AlreadyTaken))))
    );
}

#[test]
fn shutdown_returns_a_finished_result() {
    let got = mote::run(|_p: Process<()>| async {
        let t = task::spawn(async { 7 });
        assert!(eventually(|| t.is_finished()).await);
        t.shutdown(WAIT).await
    });
    assert_eq!(got, Ok(Some(Ok(7))));
}

#[test]
fn shutdown_stops_a_stuck_task() {
    let got = mote::run(|_p: Process<()>| async {
        let t = task::spawn(stuck::<u32>());
        let id = t.id();
        let r = t.shutdown(WAIT).await;
        // `shutdown` waits for the end: no polling needed.
        (r, mote::is_alive(id))
    });
    assert_eq!(got, Ok((None, false)));
}

#[test]
fn shutdown_reports_an_earlier_crash() {
    let got = mote::run(|_p: Process<()>| async {
        let t = task::spawn(crash());
        assert!(eventually(|| t.is_finished()).await);
        t.shutdown(WAIT).await
    });
    assert_eq!(got, Ok(Some(Err(boom()))));
}

#[test]
fn shutdown_of_a_linked_task_spares_the_starter() {
    let got = mote::run(|mut p: Process<()>| async move {
        let t = task::spawn_link(stuck::<u32>());
        let r = t.shutdown(WAIT).await;
        // A `shutdown` exit signal through the link would end us here.
        p.recv_timeout(Duration::from_millis(20)).await;
        r
    });
    assert_eq!(got, Ok(None));
}

#[test]
fn abort_kills_without_waiting() {
    let got = mote::run(|_p: Process<()>| async {
        let t = task::spawn(stuck::<u32>());
        let id = t.id();
        t.abort();
        eventually(|| !mote::is_alive(id)).await
    });
    assert_eq!(got, Ok(true));
}

/// Counts its drops.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn dropping_the_handle_leaves_the_task_running_and_drops_its_late_value() {
    let got = mote::run(|_p: Process<()>| async {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let value = Counted(Arc::clone(&drops));
        let t = task::spawn(async move {
            let _ = rx.await;
            value
        });
        let id = t.id();
        drop(t);
        // Not killed by the drop.
        mote::sleep(Duration::from_millis(5)).await;
        let alive_after_drop = mote::is_alive(id);
        tx.send(()).unwrap();
        let ended = eventually(|| !mote::is_alive(id)).await;
        let dropped_once = eventually(|| drops.load(Ordering::SeqCst) == 1).await;
        (alive_after_drop, ended, dropped_once)
    });
    assert_eq!(got, Ok((true, true, true)));
}

#[test]
fn await_many_keeps_the_input_order() {
    let got = mote::run(|_p: Process<()>| async {
        // Later tasks finish first.
        let tasks = (0..5u64).map(|i| {
            task::spawn(async move {
                mote::sleep(Duration::from_millis(5 * (5 - i))).await;
                i * 10
            })
        });
        task::await_many(tasks, WAIT).await
    });
    assert_eq!(got, Ok(Ok(vec![0, 10, 20, 30, 40])));
}

#[test]
fn await_many_fails_on_a_crash_and_stops_the_rest() {
    let got = mote::run(|_p: Process<()>| async {
        let rest = task::spawn(stuck::<u32>());
        let rest_id = rest.id();
        let tasks = vec![rest, task::spawn(async { 1 }), task::spawn(crash())];
        let r = task::await_many(tasks, WAIT).await;
        (r, eventually(|| !mote::is_alive(rest_id)).await)
    });
    assert_eq!(got, Ok((Err(boom()), true)));
}

#[test]
fn await_many_times_out_and_stops_the_rest() {
    let got = mote::run(|_p: Process<()>| async {
        let tasks: Vec<Task<u32>> = vec![task::spawn(async { 1 }), task::spawn(stuck())];
        let ids: Vec<ProcessId> = tasks.iter().map(Task::id).collect();
        let r = task::await_many(tasks, Duration::from_millis(20)).await;
        let all_gone = eventually(|| ids.iter().all(|&id| !mote::is_alive(id))).await;
        (r, all_gone)
    });
    assert_eq!(got, Ok((Err(TaskError::Timeout), true)));
    let empty =
        mote::run(|_p: Process<()>| async { task::await_many(Vec::<Task<u8>>::new(), WAIT).await });
    assert_eq!(empty, Ok(Ok(vec![])));
}

/// Collects a stream, with a bound on the whole.
async fn collect<T>(mut s: task::AsyncStream<T>) -> Vec<Result<T, TaskError>> {
    let mut out = Vec::new();
    while let Some(r) = tokio::time::timeout(WAIT, s.next())
        .await
        .expect("the stream makes progress")
    {
        out.push(r);
    }
    out
}

#[test]
fn async_stream_respects_max_concurrency() {
    const LIMIT: usize = 3;
    const N: u64 = 20;
    let got = mote::run(|_p: Process<()>| async {
        let in_flight = Arc::new(AtomicUsize::new(0));
        let max_seen = Arc::new(AtomicUsize::new(0));
        let counts = (Arc::clone(&in_flight), Arc::clone(&max_seen));
        let s = task::async_stream(
            0..N,
            move |i| {
                let (in_flight, max_seen) = (Arc::clone(&counts.0), Arc::clone(&counts.1));
                async move {
                    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    max_seen.fetch_max(now, Ordering::SeqCst);
                    // Hold on until the limit has been reached once, so that it is
                    // reached whatever the timing (bounded: a test failure, not a hang).
                    eventually(|| max_seen.load(Ordering::SeqCst) >= LIMIT).await;
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    i
                }
            },
            StreamOptions::new().max_concurrency(LIMIT).ordered(false),
        );
        let results = collect(s).await;
        (results, max_seen.load(Ordering::SeqCst))
    });
    let (results, max_seen) = got.unwrap();
    assert_eq!(
        max_seen, LIMIT,
        "in flight at most, and at some point exactly, the limit"
    );
    let values: Vec<u64> = results.into_iter().map(Result::unwrap).collect();
    assert_eq!(values.len() as u64, N);
    let distinct: BTreeSet<u64> = values.into_iter().collect();
    assert_eq!(distinct, (0..N).collect(), "every item exactly once");
}

#[test]
fn async_stream_ordered_yields_in_input_order() {
    let got = mote::run(|_p: Process<()>| async {
        let second_done = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&second_done);
        let s = task::async_stream(
            0..6u32,
            move |i| {
                let flag = Arc::clone(&flag);
                async move {
                    if i == 0 {
                        // Item 0 finishes after item 1.
                        eventually(|| flag.load(Ordering::SeqCst)).await;
                    }
                    if i == 1 {
                        flag.store(true, Ordering::SeqCst);
                    }
                    i
                }
            },
            StreamOptions::new().max_concurrency(4),
        );
        collect(s).await
    });
    let values: Vec<u32> = got.unwrap().into_iter().map(Result::unwrap).collect();
    assert_eq!(values, vec![0, 1, 2, 3, 4, 5]);
}

#[test]
fn async_stream_unordered_yields_as_tasks_finish() {
    let got = mote::run(|_p: Process<()>| async {
        let yielded = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&yielded);
        let mut s = task::async_stream(
            0..2u32,
            move |i| {
                let flag = Arc::clone(&flag);
                async move {
                    if i == 0 {
                        // Item 0 finishes only once something has been yielded.
                        eventually(|| flag.load(Ordering::SeqCst)).await;
                    }
                    i
                }
            },
            StreamOptions::new().max_concurrency(2).ordered(false),
        );
        let first = s.next().await;
        yielded.store(true, Ordering::SeqCst);
        let second = s.next().await;
        let end = s.next().await;
        (first, second, end)
    });
    assert_eq!(got, Ok((Some(Ok(1)), Some(Ok(0)), None)));
}

#[test]
fn async_stream_kill_task_times_out_one_item_and_goes_on() {
    let got = mote::run(|_p: Process<()>| async {
        let stuck_id = Arc::new(Mutex::new(None));
        let record = Arc::clone(&stuck_id);
        let s = task::async_stream(
            0..4u32,
            move |i| {
                let record = Arc::clone(&record);
                async move {
                    if i == 1 {
                        *record.lock() = mote::self_id();
                        stuck::<()>().await;
                    }
                    i
                }
            },
            StreamOptions::new()
                .max_concurrency(2)
                .timeout(Duration::from_millis(300))
                .on_timeout(OnTimeout::KillTask),
        );
        let results = collect(s).await;
        let id = stuck_id.lock().expect("item 1 ran");
        (results, eventually(|| !mote::is_alive(id)).await)
    });
    assert_eq!(
        got,
        Ok((vec![Ok(0), Err(TaskError::Timeout), Ok(2), Ok(3)], true))
    );
}

#[test]
fn async_stream_exit_on_timeout_stops_the_stream() {
    let got = mote::run(|_p: Process<()>| async {
        let started = Arc::new(AtomicUsize::new(0));
        let ids = Arc::new(Mutex::new(Vec::new()));
        let (count, record) = (Arc::clone(&started), Arc::clone(&ids));
        let s = task::async_stream(
            0..10u32,
            move |i| {
                let (count, record) = (Arc::clone(&count), Arc::clone(&record));
                async move {
                    count.fetch_add(1, Ordering::SeqCst);
                    if i >= 1 {
                        record.lock().push(mote::self_id().unwrap());
                        stuck::<()>().await;
                    }
                    i
                }
            },
            StreamOptions::new()
                .max_concurrency(2)
                .timeout(Duration::from_millis(300)),
        );
        let results = collect(s).await;
        let ids = ids.lock().clone();
        let all_gone = eventually(|| ids.iter().all(|&id| !mote::is_alive(id))).await;
        (results, started.load(Ordering::SeqCst), ids.len(), all_gone)
    });
    // Item 0 finishes and frees a slot for item 2; items 1 and 2 never finish: the first
    // timeout ends the stream and kills both; items 3.. never start.
    assert_eq!(got, Ok((vec![Ok(0), Err(TaskError::Timeout)], 3, 2, true)));
}

#[test]
fn async_stream_reports_a_failing_item_and_goes_on() {
    let got = mote::run(|_p: Process<()>| async {
        let s = task::async_stream(
            0..5u32,
            |i| async move {
                if i == 2 {
                    crash().await
                } else {
                    i
                }
            },
            StreamOptions::new().max_concurrency(2),
        );
        collect(s).await
    });
    assert_eq!(got, Ok(vec![Ok(0), Ok(1), Err(boom()), Ok(3), Ok(4)]));
}

#[test]
fn async_stream_dropped_kills_its_running_tasks() {
    let got = mote::run(|_p: Process<()>| async {
        let ids = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&ids);
        let mut s = task::async_stream(
            0..10u32,
            move |_| {
                let record = Arc::clone(&record);
                async move {
                    record.lock().push(mote::self_id().unwrap());
                    stuck::<u32>().await
                }
            },
            StreamOptions::new().max_concurrency(3),
        );
        // Starts the first three and finds nothing ready.
        assert!(tokio::time::timeout(Duration::from_millis(1), s.next())
            .await
            .is_err());
        assert!(eventually(|| ids.lock().len() == 3).await);
        drop(s);
        let ids = ids.lock().clone();
        (
            ids.len(),
            eventually(|| ids.iter().all(|&id| !mote::is_alive(id))).await,
        )
    });
    assert_eq!(got, Ok((3, true)));
}

#[test]
fn async_stream_zero_concurrency_counts_as_one_and_empty_input_ends() {
    let got = mote::run(|_p: Process<()>| async {
        let one = collect(task::async_stream(
            0..3u8,
            |i| async move { i },
            StreamOptions::new().max_concurrency(0),
        ))
        .await;
        let none = collect(task::async_stream(
            Vec::<u8>::new(),
            |i| async move { i },
            StreamOptions::new(),
        ))
        .await;
        (one, none)
    });
    assert_eq!(got, Ok((vec![Ok(0), Ok(1), Ok(2)], vec![])));
}

#[test]
fn async_stream_shares_big_input_through_an_arc() {
    let data: Arc<[u64]> = (0..10_000u64).collect();
    let expected: u64 = data.iter().sum();
    let input = Arc::clone(&data);
    let got = mote::run(move |_p: Process<()>| async move {
        let chunks = (0..input.len()).step_by(1_000);
        collect(task::async_stream(
            chunks,
            move |start| {
                let input = Arc::clone(&input);
                async move { input[start..start + 1_000].iter().sum::<u64>() }
            },
            StreamOptions::new(),
        ))
        .await
    });
    let total: u64 = got.unwrap().into_iter().map(Result::unwrap).sum();
    assert_eq!(total, expected);
    // Every task dropped its pointer: only ours is left.
    assert!(eventually_blocking(|| Arc::strong_count(&data) == 1));
}
