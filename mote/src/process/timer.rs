//! Timers: [`send_after`], [`cancel_timer`], [`sleep`].
//!
//! Timers run on tokio's timer wheel (the runtime's tokio handle), so they cost one tokio
//! task each while pending, and nothing once fired or cancelled. A timer whose deadline the
//! clock cannot represent never fires and costs no task.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use pin_project_lite::pin_project;

use crate::values::pid::Pid;

const PENDING: u8 = 0;
const FIRED: u8 = 1;
const CANCELLED: u8 = 2;

/// A timer started by [`send_after`]; pass it to [`cancel_timer`].
#[derive(Debug, Clone)]
pub struct TimerRef {
    state: Arc<AtomicU8>,
    /// When it was started, and how long after that it fires: the time left is computed
    /// from these, so a delay too large for an `Instant` still has an answer.
    started: Instant,
    delay: Duration,
    /// `None` for a timer that never fires.
    task: Option<tokio::task::AbortHandle>,
}

impl TimerRef {
    fn left(&self) -> Duration {
        self.delay.saturating_sub(self.started.elapsed())
    }
}

/// Sends `message` to `pid` after `delay` (Erlang's `erlang:send_after/3`).
///
/// A delay whose end the clock cannot represent (`Duration::MAX`, say, or anything beyond
/// about 584 million years) never fires: the message is dropped at once and the timer costs
/// nothing, while [`read_timer`] and [`cancel_timer`] answer as for any pending timer, with
/// the time left of `delay`. Deviation: Erlang refuses such a time with `badarg`.
///
/// ```
/// use std::time::Duration;
/// mote::run(|mut p: mote::Process<&'static str>| async move {
///     mote::send_after(p.pid(), "tick", Duration::from_millis(10));
///     assert_eq!(p.recv().await, "tick");
///
///     let never = mote::send_after(p.pid(), "never", Duration::MAX);
///     assert!(mote::read_timer(&never).unwrap() > Duration::from_secs(1 << 40));
///     assert!(mote::cancel_timer(&never).is_some());
/// })
/// .unwrap();
/// ```
pub fn send_after<M: Send + 'static>(pid: Pid<M>, message: M, delay: Duration) -> TimerRef {
    let state = Arc::new(AtomicU8::new(PENDING));
    let started = Instant::now();
    let task = deadline_at(started, delay).map(|sleep| {
        let fired = Arc::clone(&state);
        let task = crate::rt::scheduler::global::tokio_handle().spawn(async move {
            sleep.await;
            // Only the side that moves the state out of PENDING acts: once `cancel_timer`
            // reports time left, the message is never sent.
            if fired
                .compare_exchange(PENDING, FIRED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                pid.send(message);
            }
        });
        task.abort_handle()
    });
    TimerRef {
        state,
        started,
        delay,
        task,
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
    if let Some(task) = &timer.task {
        task.abort();
    }
    Some(timer.left())
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
    (timer.state.load(Ordering::Acquire) == PENDING).then(|| timer.left())
}

/// Waits for `duration` without blocking the scheduler thread (on tokio's timer). A
/// duration whose end the clock cannot represent waits forever.
///
/// ```
/// mote::run(|_p: mote::Process<()>| async {
///     mote::sleep(std::time::Duration::from_millis(1)).await;
/// })
/// .unwrap();
/// ```
pub async fn sleep(duration: Duration) {
    deadline(duration).await
}

/// A delay this long or longer never ends (about 584 million years): tokio counts its
/// deadlines in `u64` milliseconds, and so does [`timeout`](crate::timeout).
const FOREVER: Duration = Duration::from_millis(u64::MAX);

pin_project! {
    /// A tokio timer on mote's runtime, or none for a deadline the clock cannot represent:
    /// see [`deadline`].
    pub(crate) struct Deadline {
        #[pin]
        sleep: Option<tokio::time::Sleep>,
    }
}

/// A future that ends `duration` from now, on mote's tokio runtime, so usable from any
/// executor; it never ends if the clock cannot represent that instant.
///
/// Not `tokio::time::sleep`: it silently shortens any duration beyond 30 years to 30 years,
/// and `Duration::MAX` is a common "no limit".
pub(crate) fn deadline(duration: Duration) -> Deadline {
    deadline_at(Instant::now(), duration).unwrap_or(Deadline { sleep: None })
}

/// A [`Deadline`] `delay` after `start`, or `None` if it would never end.
fn deadline_at(start: Instant, delay: Duration) -> Option<Deadline> {
    let at = start.checked_add(delay).filter(|_| delay < FOREVER)?;
    // tokio rounds a deadline up by almost a millisecond: keep that representable too.
    at.checked_add(Duration::from_millis(1))?;
    let _runtime = crate::rt::scheduler::global::tokio_handle().enter();
    Some(Deadline {
        sleep: Some(tokio::time::sleep_until(at.into())),
    })
}

impl Deadline {
    /// When it ends; `None`: never.
    #[cfg(all(test, not(loom)))]
    fn at(&self) -> Option<Instant> {
        self.sleep.as_ref().map(|s| s.deadline().into_std())
    }
}

impl Future for Deadline {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match self.project().sleep.as_pin_mut() {
            Some(sleep) => sleep.poll(cx),
            None => Poll::Pending,
        }
    }
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

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn deadlines_are_kept_however_far_and_none_past_the_clock() {
        let year = Duration::from_secs(365 * 86_400);
        for far in [year, 100 * year, 1_000_000 * year] {
            let before = Instant::now();
            let at = deadline(far).at().expect("a representable deadline");
            // tokio's own `sleep` would have made these 30 years.
            assert!(at >= before + far, "{far:?}");
        }
        for never in [FOREVER, Duration::from_secs(u64::MAX), Duration::MAX] {
            assert_eq!(deadline(never).at(), None, "{never:?}");
        }
    }
}
