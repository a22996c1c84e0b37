//! Timers: [`send_after`], [`cancel_timer`], [`sleep`].
//!
//! Timers run on tokio's timer wheel (the runtime's tokio handle), so they cost one tokio
//! task each while pending, and nothing once fired or cancelled.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::values::pid::Pid;

const PENDING: u8 = 0;
const FIRED: u8 = 1;
const CANCELLED: u8 = 2;

/// A timer started by [`send_after`]; pass it to [`cancel_timer`].
#[derive(Debug, Clone)]
pub struct TimerRef {
    state: Arc<AtomicU8>,
    deadline: Instant,
    task: tokio::task::AbortHandle,
}

/// Sends `message` to `pid` after `delay` (Erlang's `erlang:send_after/3`).
///
/// ```
/// use std::time::Duration;
/// mote::run(|mut p: mote::Process<&'static str>| async move {
///     mote::send_after(p.pid(), "tick", Duration::from_millis(10));
///     assert_eq!(p.recv().await, "tick");
/// })
/// .unwrap();
/// ```
pub fn send_after<M: Send + 'static>(pid: Pid<M>, message: M, delay: Duration) -> TimerRef {
    let state = Arc::new(AtomicU8::new(PENDING));
    let fired = Arc::clone(&state);
    let task = crate::rt::scheduler::global::tokio_handle().spawn(async move {
        tokio::time::sleep(delay).await;
        // Only the side that moves the state out of PENDING acts: once `cancel_timer`
        // reports time left, the message is never sent.
        if fired
            .compare_exchange(PENDING, FIRED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            pid.send(message);
        }
    });
    TimerRef {
        state,
        deadline: Instant::now() + delay,
        task: task.abort_handle(),
    }
}

/// Cancels a timer. Returns the time that was left, or `None` if it had already fired (or
/// was cancelled): a message already delivered stays in the mailbox (Erlang, case P24).
///
/// ```
/// use std::time::Duration;
/// mote::run(|p: mote::Process<u8>| async move {
///     let t = mote::send_after(p.pid(), 1, Duration::from_secs(10));
///     let left = mote::cancel_timer(&t).unwrap();
///     assert!(left <= Duration::from_secs(10));
///     assert_eq!(mote::cancel_timer(&t), None);
/// })
/// .unwrap();
/// ```
pub fn cancel_timer(timer: &TimerRef) -> Option<Duration> {
    timer
        .state
        .compare_exchange(PENDING, CANCELLED, Ordering::AcqRel, Ordering::Acquire)
        .ok()?;
    timer.task.abort();
    Some(timer.deadline.saturating_duration_since(Instant::now()))
}

/// The time left before a timer fires, or `None` if it has fired or was cancelled.
///
/// ```
/// use std::time::Duration;
/// mote::run(|p: mote::Process<u8>| async move {
///     let t = mote::send_after(p.pid(), 1, Duration::from_secs(10));
///     assert!(mote::read_timer(&t).is_some());
///     mote::cancel_timer(&t);
/// })
/// .unwrap();
/// ```
pub fn read_timer(timer: &TimerRef) -> Option<Duration> {
    (timer.state.load(Ordering::Acquire) == PENDING)
        .then(|| timer.deadline.saturating_duration_since(Instant::now()))
}

/// Waits for `duration` without blocking the scheduler thread (tokio's sleep).
///
/// ```
/// mote::run(|_p: mote::Process<()>| async {
///     mote::sleep(std::time::Duration::from_millis(1)).await;
/// })
/// .unwrap();
/// ```
pub async fn sleep(duration: Duration) {
    tokio::time::sleep(duration).await
}

/// Lets other processes run: the calling process goes to the back of its scheduler thread's
/// queue, where idle threads can take it, and continues on its next turn.
///
/// mote's scheduling is cooperative, like tokio's: a process runs until it waits (a
/// receive, IO, a timer) or its receive budget runs out. A process woken by the running
/// one is queued to run next on the same thread (its "LIFO slot", which keeps message
/// round trips on one warm core), and other threads cannot take it from there. So a
/// process that computes for long stretches without waiting should call `yield_now`
/// between steps; otherwise the processes it woke wait for it, even if another thread is
/// idle. Deviation from the BEAM, which preempts processes after a number of reductions.
///
/// ```
/// mote::run(|_p: mote::Process<()>| async {
///     for _chunk in 0..4 {
///         // ... a slice of heavy computation ...
///         mote::yield_now().await;
///     }
/// })
/// .unwrap();
/// ```
pub async fn yield_now() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            return std::task::Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    })
    .await
}
