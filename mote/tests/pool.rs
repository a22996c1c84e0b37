//! `mote::pool`: every job completes exactly once, whatever the dispatch, panics, killed
//! workers, backpressure and shutdown. Every wait is bounded; nothing asserts on timing.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mote::pool::{Dispatch, JobError, Pool, PoolStartError, ShutdownTimedOut, TrySubmitError};
use mote::{ExitReason, Process, ProcessId};
use parking_lot::Mutex;

const LIMIT: Duration = Duration::from_secs(20);
const DISPATCHES: [Dispatch; 3] = [Dispatch::Steal, Dispatch::RoundRobin, Dispatch::LeastLoaded];

/// Awaits `f`, failing the test if it takes longer than `LIMIT`.
async fn within<T>(what: &str, f: impl Future<Output = T>) -> T {
    match tokio::time::timeout(LIMIT, f).await {
        Ok(v) => v,
        Err(_) => panic!("timed out waiting for {what}"),
    }
}

/// Polls `cond` until it holds, failing the test after `LIMIT`.
async fn until(what: &str, mut cond: impl FnMut() -> bool) {
    within(what, async {
        while !cond() {
            mote::sleep(Duration::from_millis(1)).await;
        }
    })
    .await
}

fn run<F, Fut>(f: F)
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    mote::run(move |_p: Process<()>| f()).unwrap();
}

/// A job that records which worker runs it, then waits until `gate` opens.
async fn blocker(gate: Arc<tokio::sync::Semaphore>, ran_on: Arc<Mutex<Option<ProcessId>>>) -> u32 {
    *ran_on.lock() = mote::self_id();
    let _permit = gate.acquire().await.unwrap();
    7
}

async fn crash() -> u32 {
    panic!("boom")
}

#[test]
fn every_dispatch_runs_every_job_exactly_once() {
    run(|| async {
        for dispatch in DISPATCHES {
            let pool = Pool::builder()
                .workers(3)
                .dispatch(dispatch)
                .queue_bound(8)
                .start()
                .await
                .unwrap();
            const N: usize = 500;
            let runs: Arc<Vec<AtomicUsize>> =
                Arc::new((0..N).map(|_| AtomicUsize::new(0)).collect());
            let mut jobs = Vec::new();
            for i in 0..N {
                let runs = Arc::clone(&runs);
                jobs.push(
                    pool.submit(async move {
                        runs[i].fetch_add(1, Ordering::Relaxed);
                        if i % 7 == 0 {
                            mote::yield_now().await;
                        }
                        i
                    })
                    .await,
                );
            }
            let mut got = Vec::new();
            for job in jobs {
                got.push(within("a job", job).await.unwrap());
            }
            assert_eq!(got, (0..N).collect::<Vec<_>>(), "{dispatch:?}");
            assert!(
                runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
                "{dispatch:?}"
            );
            within("shutdown", pool.shutdown(LIMIT)).await.unwrap();
        }
    });
}

#[test]
fn a_panicking_job_fails_alone_and_the_worker_goes_on() {
    run(|| async {
        for dispatch in DISPATCHES {
            let pool = Pool::builder()
                .workers(2)
                .dispatch(dispatch)
                .start()
                .await
                .unwrap();
            let workers = pool.worker_ids();
            let bad = pool.submit(crash()).await;
            let good: Vec<_> = {
                let mut v = Vec::new();
                for i in 0..20u32 {
                    v.push(pool.submit(async move { i }).await);
                }
                v
            };
            assert_eq!(
                within("the panicking job", bad).await,
                Err(JobError::Panicked("boom".into()))
            );
            for (i, job) in good.into_iter().enumerate() {
                assert_eq!(within("a job", job).await, Ok(i as u32));
            }
            // The panic was caught inside the worker: same workers, all alive.
            assert_eq!(pool.worker_ids(), workers);
            assert!(workers.iter().all(|&w| mote::is_alive(w)));
        }
    });
}

#[test]
fn a_killed_worker_is_replaced_and_every_other_job_finishes_once() {
    run(|| async {
        for dispatch in DISPATCHES {
            let pool = Pool::builder()
                .workers(2)
                .dispatch(dispatch)
                .start()
                .await
                .unwrap();
            let gate = Arc::new(tokio::sync::Semaphore::new(0));
            let ran_on = Arc::new(Mutex::new(None));
            let stuck = pool.submit(blocker(gate.clone(), ran_on.clone())).await;
            until("the blocker to start", || ran_on.lock().is_some()).await;
            let victim = ran_on.lock().unwrap();
            assert!(pool.worker_ids().contains(&victim));
            // Jobs queued behind the victim (in its own queue, with pushing dispatch).
            let runs = Arc::new(AtomicUsize::new(0));
            let mut jobs = Vec::new();
            for i in 0..40usize {
                let runs = runs.clone();
                jobs.push(
                    pool.submit(async move {
                        runs.fetch_add(1, Ordering::Relaxed);
                        i
                    })
                    .await,
                );
            }
            mote::exit(victim, ExitReason::Kill);
            assert_eq!(
                within("the killed job", stuck).await,
                Err(JobError::WorkerExited(ExitReason::Killed)),
                "{dispatch:?}"
            );
            for (i, job) in jobs.into_iter().enumerate() {
                assert_eq!(within("a job", job).await, Ok(i), "{dispatch:?}");
            }
            assert_eq!(runs.load(Ordering::Relaxed), 40);
            // Full strength again: two live workers, the victim not among them...
            until("the replacement", || {
                let ids = pool.worker_ids();
                !ids.contains(&victim) && ids.iter().all(|&w| mote::is_alive(w))
            })
            .await;
            // ... and both serve: two jobs that only finish together.
            let both = Arc::new(tokio::sync::Barrier::new(2));
            let (a, b) = (both.clone(), both.clone());
            let ja = pool.submit(async move { a.wait().await.is_leader() }).await;
            let jb = pool.submit(async move { b.wait().await.is_leader() }).await;
            let leaders = [
                within("barrier a", ja).await.unwrap(),
                within("barrier b", jb).await.unwrap(),
            ];
            assert_eq!(leaders.iter().filter(|l| **l).count(), 1, "{dispatch:?}");
            within("shutdown", pool.shutdown(LIMIT)).await.unwrap();
        }
    });
}

#[test]
fn a_job_that_ends_its_worker_reports_the_reason() {
    run(|| async {
        let pool = Pool::builder().workers(1).start().await.unwrap();
        let first = pool.worker_ids()[0];
        let job = pool
            .submit(async {
                mote::exit(mote::self_id().unwrap(), ExitReason::custom("enough"));
                0u8
            })
            .await;
        assert_eq!(
            within("the job", job).await,
            Err(JobError::WorkerExited(ExitReason::custom("enough")))
        );
        let next = pool.submit(async { 1u8 }).await;
        assert_eq!(within("the next job", next).await, Ok(1));
        assert_ne!(pool.worker_ids()[0], first);
    });
}

#[test]
fn a_full_queue_refuses_try_submit_and_holds_submit() {
    run(|| async {
        // Steal: one shared queue of 4 behind one blocked worker.
        let pool = Pool::builder()
            .workers(1)
            .queue_bound(4)
            .start()
            .await
            .unwrap();
        let gate = Arc::new(tokio::sync::Semaphore::new(0));
        let ran_on = Arc::new(Mutex::new(None));
        let stuck = pool.submit(blocker(gate.clone(), ran_on.clone())).await;
        until("the blocker to start", || ran_on.lock().is_some()).await;
        let mut queued = Vec::new();
        for i in 0..4u32 {
            queued.push(
                pool.try_submit(async move { i })
                    .expect("room in the queue"),
            );
        }
        assert_eq!(pool.queued(), 4);
        let refused = pool.try_submit(async { 99u32 });
        assert!(matches!(refused, Err(TrySubmitError::Full(_))));

        // A submitter waits while the queue is full.
        let submitted = Arc::new(AtomicBool::new(false));
        let (p2, s2) = (pool.clone(), submitted.clone());
        let submitter = tokio::spawn(async move {
            let job = p2.submit(async { 5u32 }).await;
            s2.store(true, Ordering::SeqCst);
            job.await
        });
        for _ in 0..20 {
            mote::sleep(Duration::from_millis(1)).await;
            assert!(
                !submitted.load(Ordering::SeqCst),
                "submit returned with the queue full"
            );
        }
        gate.add_permits(1);
        assert_eq!(within("the blocker", stuck).await, Ok(7));
        assert_eq!(
            within("the waiting submitter", submitter).await.unwrap(),
            Ok(5)
        );
        for (i, job) in queued.into_iter().enumerate() {
            assert_eq!(within("a queued job", job).await, Ok(i as u32));
        }
    });
}

#[test]
fn pushing_pools_refuse_only_when_every_queue_is_full() {
    run(|| async {
        for dispatch in [Dispatch::RoundRobin, Dispatch::LeastLoaded] {
            let pool = Pool::builder()
                .workers(2)
                .dispatch(dispatch)
                .queue_bound(2)
                .start()
                .await
                .unwrap();
            let gate = Arc::new(tokio::sync::Semaphore::new(0));
            let mut blocked = Vec::new();
            for _ in 0..2 {
                let ran_on = Arc::new(Mutex::new(None));
                blocked.push((
                    pool.submit(blocker(gate.clone(), ran_on.clone())).await,
                    ran_on,
                ));
            }
            until("both blockers to start", || {
                blocked.iter().all(|(_, r)| r.lock().is_some())
            })
            .await;
            let mut queued = Vec::new();
            while let Ok(job) = pool.try_submit(async { 1u32 }) {
                queued.push(job);
                assert!(
                    queued.len() <= 4,
                    "{dispatch:?}: more than 2 x 2 jobs queued"
                );
            }
            assert_eq!(queued.len(), 4, "{dispatch:?}");
            gate.add_permits(2);
            for (job, _) in blocked {
                assert_eq!(within("a blocker", job).await, Ok(7));
            }
            for job in queued {
                assert_eq!(within("a queued job", job).await, Ok(1));
            }
        }
    });
}

#[test]
fn map_reduce_matches_the_serial_fold() {
    run(|| async {
        let pool = Pool::builder()
            .workers(2)
            .queue_bound(16)
            .start()
            .await
            .unwrap();
        let data: Arc<[i64]> = (1..=100_000).map(|i| (i * 7919) % 1000).collect();
        let serial: i64 = data.iter().sum();
        let sum = pool.map_reduce(data.clone(), 100, |c| c.iter().sum::<i64>(), |a, b| a + b);
        assert_eq!(within("map_reduce", sum).await, Ok(Some(serial)));
        // Reduced in chunk order: a non-commutative reduce sees the chunks in order.
        let firsts = pool.map_reduce(
            data.clone(),
            30_000,
            |c| vec![c.len()],
            |mut a, b| {
                a.extend(b);
                a
            },
        );
        assert_eq!(
            within("map_reduce", firsts).await,
            Ok(Some(vec![30_000, 30_000, 30_000, 10_000]))
        );
        let empty: Arc<[i64]> = Arc::new([]);
        assert_eq!(
            pool.map_reduce(empty, 10, |c| c.len(), |a, b| a + b).await,
            Ok(None)
        );
        let zero = pool
            .map_reduce(data.clone(), 0, |c| c.len(), |a, b| a + b)
            .await;
        assert!(matches!(zero, Err(JobError::InvalidInput(_))), "{zero:?}");
        let failing = pool.map_reduce(
            data,
            10_000,
            |c| if c[0] == 0 { 1 } else { panic!("bad chunk") },
            |a, b| a + b,
        );
        assert_eq!(
            within("map_reduce", failing).await,
            Err(JobError::Panicked("bad chunk".into()))
        );
    });
}

#[test]
fn shutdown_finishes_queued_jobs_then_ends_the_workers() {
    run(|| async {
        for dispatch in DISPATCHES {
            let pool = Pool::builder()
                .workers(2)
                .dispatch(dispatch)
                .start()
                .await
                .unwrap();
            let workers = pool.worker_ids();
            let done = Arc::new(AtomicUsize::new(0));
            let mut jobs = Vec::new();
            for i in 0..30usize {
                let done = done.clone();
                jobs.push(
                    pool.submit(async move {
                        mote::sleep(Duration::from_millis(1)).await;
                        done.fetch_add(1, Ordering::SeqCst);
                        i
                    })
                    .await,
                );
            }
            within("shutdown", pool.shutdown(LIMIT)).await.unwrap();
            assert_eq!(done.load(Ordering::SeqCst), 30, "{dispatch:?}");
            for (i, job) in jobs.into_iter().enumerate() {
                assert_eq!(within("a job", job).await, Ok(i));
            }
            until("the workers to end", || {
                workers.iter().all(|&w| !mote::is_alive(w))
            })
            .await;
            until("the manager to end", || !mote::is_alive(pool.manager_id())).await;
            assert_eq!(
                within("a late job", pool.submit(async { 1 })).await.await,
                Err(JobError::Closed)
            );
            assert!(matches!(
                pool.try_submit(async { 1 }),
                Err(TrySubmitError::Closed(_))
            ));
        }
    });
}

#[test]
fn a_shutdown_that_times_out_kills_the_workers_and_drops_the_queue() {
    run(|| async {
        let pool = Pool::builder().workers(1).start().await.unwrap();
        let worker = pool.worker_ids()[0];
        let gate = Arc::new(tokio::sync::Semaphore::new(0));
        let ran_on = Arc::new(Mutex::new(None));
        let stuck = pool.submit(blocker(gate, ran_on.clone())).await;
        until("the blocker to start", || ran_on.lock().is_some()).await;
        let queued = pool.submit(async { 1u32 }).await;
        let r = within("shutdown", pool.shutdown(Duration::from_millis(20))).await;
        assert_eq!(r, Err(ShutdownTimedOut { unfinished: 1 }));
        assert_eq!(
            within("the stuck job", stuck).await,
            Err(JobError::WorkerExited(ExitReason::Killed))
        );
        assert_eq!(within("the queued job", queued).await, Err(JobError::Lost));
        until("the worker to end", || !mote::is_alive(worker)).await;
    });
}

#[test]
fn jobs_are_awaitable_from_tokio_and_dropping_a_handle_does_not_cancel() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let pool = Pool::builder().workers(2).start().await.unwrap();
        let ran = Arc::new(AtomicUsize::new(0));
        let r2 = ran.clone();
        drop(
            pool.submit(async move { r2.fetch_add(1, Ordering::SeqCst) })
                .await,
        );
        let job = pool.submit(async { "from tokio" }).await;
        assert_eq!(within("a job", job).await, Ok("from tokio"));
        pool.shutdown(LIMIT).await.unwrap();
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    });
}

#[test]
fn bad_configuration_is_an_error() {
    run(|| async {
        assert_eq!(
            Pool::builder().workers(0).start().await.unwrap_err(),
            PoolStartError::NoWorkers
        );
        assert_eq!(
            Pool::builder().queue_bound(0).start().await.unwrap_err(),
            PoolStartError::ZeroBound
        );
        let pool = Pool::builder().start().await.unwrap();
        assert_eq!(pool.workers(), mote::worker_threads());
        assert_eq!(pool.dispatch(), Dispatch::Steal);
    });
}
