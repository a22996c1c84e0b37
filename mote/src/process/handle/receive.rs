//! The receive futures: [`Recv`] (next message) and [`RecvMatching`] (selective receive).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::Process;

/// Spins allowed while a sender is between its two push steps before the receiver yields.
const PUSH_SPINS: u32 = 64;

/// The future of [`Process::recv`].
#[derive(Debug)]
#[must_use = "futures do nothing unless awaited"]
pub struct Recv<'a, M> {
    process: &'a mut Process<M>,
}

impl<'a, M: Send + 'static> Recv<'a, M> {
    pub(super) fn new(process: &'a mut Process<M>) -> Self {
        Recv { process }
    }
}

impl<M: Send + 'static> Future for Recv<'_, M> {
    type Output = M;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<M> {
        let process = &mut *self.get_mut().process;
        if !process.slot.take_budget() {
            return process.yield_now(cx);
        }
        if let Some((_, m)) = process.saved.as_mut().and_then(|s| s.pop_front()) {
            return Poll::Ready(m);
        }
        process.poll_queue(cx, &mut |_| true)
    }
}

/// The future of [`Process::recv_matching`].
#[must_use = "futures do nothing unless awaited"]
pub struct RecvMatching<'a, M, F> {
    process: &'a mut Process<M>,
    matches: F,
    /// Whether the messages saved before this receive have been looked at.
    scanned: bool,
}

impl<M, F> std::fmt::Debug for RecvMatching<'_, M, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecvMatching")
            .field("process", &self.process)
            .finish_non_exhaustive()
    }
}

impl<'a, M: Send + 'static, F: FnMut(&M) -> bool> RecvMatching<'a, M, F> {
    pub(super) fn new(process: &'a mut Process<M>, matches: F) -> Self {
        RecvMatching {
            process,
            matches,
            scanned: false,
        }
    }
}

// The matcher is only ever called through `&mut`, never pinned, so the future can move.
impl<M, F> Unpin for RecvMatching<'_, M, F> {}

impl<M: Send + 'static, F: FnMut(&M) -> bool> Future for RecvMatching<'_, M, F> {
    type Output = M;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<M> {
        let this = self.get_mut();
        let process = &mut *this.process;
        if !process.slot.take_budget() {
            return process.yield_now(cx);
        }
        if !this.scanned {
            this.scanned = true;
            if let Some(saved) = process.saved.as_mut() {
                if let Some(i) = saved.iter().position(|(_, m)| (this.matches)(m)) {
                    return Poll::Ready(saved.remove(i).expect("index just found").1);
                }
            }
        }
        process.poll_queue(cx, &mut this.matches)
    }
}

impl<M: Send + 'static> Process<M> {
    /// Takes queued messages until one matches (skipped ones are saved in order); parks when
    /// the queue is empty.
    fn poll_queue(
        &mut self,
        cx: &mut Context<'_>,
        matches: &mut impl FnMut(&M) -> bool,
    ) -> Poll<M> {
        let mut spins = 0;
        loop {
            // SAFETY: we own this slot and its messages are `M`.
            while let Some((tag, m)) = unsafe { self.slot.pop::<M>() } {
                if matches(&m) {
                    return Poll::Ready(m);
                }
                self.saved
                    .get_or_insert_with(Default::default)
                    .push_back((tag, m));
            }
            if spins == 0 {
                // Waiting with a large block left from a burst: keep a short one instead.
                // SAFETY: we own this slot and its messages are `M`.
                unsafe { self.slot.shrink_idle::<M>() };
            }
            let foreign = !self.slot.is_task_waker(cx.waker());
            if foreign {
                crate::rt::table::foreign::store(self.slot.index(), cx.waker());
            }
            self.publish_len();
            // SAFETY: owner-only; a foreign waker was stored just above.
            if unsafe { self.slot.park(foreign) } {
                return Poll::Pending;
            }
            // A sender is mid-push: its message is about to become visible.
            spins += 1;
            if spins > PUSH_SPINS {
                return self.yield_now(cx);
            }
            std::hint::spin_loop();
        }
    }

    /// Gives the thread to other processes once; this task is queued again at the back.
    fn yield_now(&mut self, cx: &mut Context<'_>) -> Poll<M> {
        self.publish_len();
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
