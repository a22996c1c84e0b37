//! Waiting without a mailbox: [`sleep`], [`yield_now`], and the crate's deadline future
//! that never shortens a long wait.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use pin_project_lite::pin_project;

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
/// receive, IO, a timer) or its receive budget runs out, and nothing preempts it. A
/// process woken by the running one is queued to run next on the same thread (its "LIFO
/// slot", which keeps message round trips on one warm core); if the running one computes
/// on, the scheduler's watchdog moves the woken process to an idle thread within a few
/// milliseconds, so it does not wait for the computation to end. Other processes queued on
/// a thread that is stuck in a long computation are taken by idle threads as usual; but if
/// every thread is busy computing, they wait: the BEAM would preempt after a number of
/// reductions. So a process that computes for long stretches without waiting should still
/// call `yield_now` between steps, to share its thread fairly.
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
