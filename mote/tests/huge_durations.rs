//! Waits given a duration too large for the clock: it means "no limit", never "at once".
//!
//! A timeout is armed as a deadline in milliseconds since a fixed start; a duration whose
//! deadline does not fit (about 584 million years and more, up to `Duration::MAX`) once
//! wrapped around and fired at once. Each test makes the waiter decide in its first poll
//! (that is where a wrapped deadline fired) and then gives it what it waits for: only a
//! wait that is still waiting gets it.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use mote::server::{self, Context as ServerContext, Next, ReplyTo, Server};
use mote::{task, Down, Pid, Process, ProcessId, Status};

/// Bounds every wait of these tests.
const WAIT: Duration = Duration::from_secs(5);

/// Durations whose deadline does not fit in 64-bit milliseconds, and the first that does
/// not fit in seconds either.
fn huge() -> [Duration; 4] {
    [
        Duration::from_millis(u64::MAX),
        Duration::from_secs(u64::MAX / 1000 + 1),
        Duration::from_secs(u64::MAX),
        Duration::MAX,
    ]
}

/// Waits until `id` waits in a receive with an empty mailbox, or has ended.
async fn parked_or_gone(id: ProcessId) {
    let deadline = Instant::now() + WAIT;
    loop {
        match mote::process_info(id) {
            Some(info) if info.status != Status::Waiting => {}
            _ => return,
        }
        assert!(Instant::now() < deadline, "{id} never waited");
        mote::sleep(Duration::from_millis(1)).await;
    }
}

/// Polls `future` once, outside any executor.
fn poll_once<F: Future>(future: std::pin::Pin<&mut F>) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(Waker::noop()))
}

#[derive(Debug)]
enum Report {
    Got(Option<u8>),
    Down(Down),
}

impl From<Down> for Report {
    fn from(d: Down) -> Self {
        Report::Down(d)
    }
}

/// Spawns a receiver running `receive`, waits until it is parked in it, sends it 7, and
/// returns what its receive gave.
async fn receive_with<F, Fut>(o: &mut Process<Report>, receive: F) -> Option<u8>
where
    F: FnOnce(Process<u8>) -> Fut + Send + 'static,
    Fut: Future<Output = Option<u8>> + Send + 'static,
{
    let me: Pid<Report> = o.pid();
    let (waiter, _) = o.spawn_monitor(move |p: Process<u8>| async move {
        me.send(Report::Got(receive(p).await));
    });
    parked_or_gone(waiter.id()).await;
    waiter.send(7);
    match o.recv_timeout(WAIT).await {
        Some(Report::Got(got)) => got,
        Some(Report::Down(d)) => panic!("the receiver ended with {} first", d.reason),
        None => panic!("no answer within {WAIT:?}"),
    }
}

#[test]
fn recv_timeout_too_large_for_the_clock_waits_without_limit() {
    for timeout in huge() {
        let got = mote::run(move |mut o: Process<Report>| async move {
            receive_with(
                &mut o,
                move |mut p| async move { p.recv_timeout(timeout).await },
            )
            .await
        })
        .unwrap();
        assert_eq!(got, Some(7), "recv_timeout({timeout:?}) gave up");
    }
}

#[test]
fn recv_matching_timeout_too_large_for_the_clock_waits_without_limit() {
    for timeout in huge() {
        let got = mote::run(move |mut o: Process<Report>| async move {
            receive_with(&mut o, move |mut p| async move {
                p.recv_matching_timeout(|&m| m == 7, timeout).await
            })
            .await
        })
        .unwrap();
        assert_eq!(got, Some(7), "recv_matching_timeout({timeout:?}) gave up");
    }
}

/// Holds every call until told to answer it.
#[derive(Default)]
struct Holder(Vec<ReplyTo<u32>>);

enum Ask {
    Hold,
    Answer(u32),
}

impl Server for Holder {
    type Call = Ask;
    type Reply = u32;
    type Cast = ();
    type Info = ();

    async fn handle_call(
        &mut self,
        ask: Ask,
        from: ReplyTo<u32>,
        _: &mut ServerContext<Self>,
    ) -> Next {
        match ask {
            Ask::Hold => self.0.push(from),
            Ask::Answer(n) => {
                for held in self.0.drain(..) {
                    held.reply(n);
                }
                from.reply(0);
            }
        }
        Next::Continue
    }
}

#[test]
fn call_timeout_too_large_for_the_clock_waits_without_limit() {
    for timeout in huge() {
        let got = mote::run(move |_o: Process<()>| async move {
            let holder = server::start(Holder::default()).await.unwrap();
            let mut call = pin!(holder.call(Ask::Hold, timeout));
            // The server holds the request: only an elapsed timeout can end this poll.
            assert!(
                poll_once(call.as_mut()).is_pending(),
                "call({timeout:?}) gave up"
            );
            holder.call(Ask::Answer(9), WAIT).await.unwrap();
            call.await
        })
        .unwrap();
        assert_eq!(got, Ok(9));
    }
}

#[test]
fn task_yield_timeout_too_large_for_the_clock_waits_without_limit() {
    for timeout in huge() {
        let got = mote::run(move |_o: Process<()>| async move {
            let (tx, rx) = tokio::sync::oneshot::channel::<u8>();
            let mut t = task::spawn(async move { rx.await.unwrap() });
            let outcome = {
                let mut waiting = pin!(t.yield_timeout(timeout));
                // The task cannot finish before `tx` sends.
                assert!(
                    poll_once(waiting.as_mut()).is_pending(),
                    "yield_timeout({timeout:?}) gave up"
                );
                tx.send(3).unwrap();
                waiting.await
            };
            outcome
        })
        .unwrap();
        assert_eq!(got, Some(Ok(3)));
    }
}

#[test]
fn sleep_and_task_deadlines_too_large_for_the_clock_never_end() {
    for timeout in huge() {
        mote::run(move |_o: Process<()>| async move {
            let mut sleep = pin!(mote::sleep(timeout));
            assert!(poll_once(sleep.as_mut()).is_pending());

            let (tx, rx) = tokio::sync::oneshot::channel::<u8>();
            let tasks = vec![task::spawn(async move { rx.await.unwrap() })];
            let mut all = pin!(task::await_many(tasks, timeout));
            assert!(poll_once(all.as_mut()).is_pending());
            tx.send(4).unwrap();
            assert_eq!(all.await, Ok(vec![4]));
        })
        .unwrap();
    }
}
