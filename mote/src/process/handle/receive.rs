//! The receive futures: [`Recv`] (next message) and [`RecvMatching`] (selective receive).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::Process;

/// Spins allowed while a sender is between its two push steps before the receiver yields.
const PUSH_SPINS: u32 = 64;

/// While waiting for a batch (see `Process::await_message`): pauses between two looks at
/// the mailbox, and the looks that see no new message after which those queued are taken.
const AWAIT_PAUSES: u32 = 16;
const AWAIT_LOOKS: u32 = 4;

/// How far behind its senders a receiver kept for its backlog stays (see
/// `Process::await_message`): the queue's largest block of small messages, and a batch.
const STREAM_LEAD: usize = 256 + BATCH;

/// The most messages a receive takes off the queue at once (see `Process::take_batch`).
const BATCH: usize = 64;

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
            return process.yield_for_budget(cx);
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
            return process.yield_for_budget(cx);
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
        // Once per receive: a message being pushed counts as queued, and if its sender lost
        // its CPU meanwhile, the park below fails and the receive yields.
        let mut awaited = false;
        if crate::rt::scheduler::alone_with_backlog(self.consumer_key()) {
            // SAFETY: we own this slot.
            if unsafe { self.slot.mailbox_len() } < STREAM_LEAD {
                awaited = true;
                self.await_message();
            }
        }
        loop {
            // SAFETY: we own this slot and its messages are `M`.
            while let Some((tag, m)) = unsafe { self.slot.pop::<M>() } {
                if matches(&m) {
                    if tag == 0 && crate::rt::scheduler::is_consumer(self.consumer_key()) {
                        self.take_batch();
                    }
                    return Poll::Ready(m);
                }
                self.saved
                    .get_or_insert_with(Default::default)
                    .push_back((tag, m));
            }
            if !awaited && crate::rt::scheduler::alone_with_backlog(self.consumer_key()) {
                awaited = true;
                if self.await_message() {
                    continue;
                }
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

    /// The receive budget ran out: yields, and if messages are still queued, keeps the
    /// thread (see `scheduler::yield_with_backlog`): the others queued on it go to the
    /// other threads.
    fn yield_for_budget(&mut self, cx: &mut Context<'_>) -> Poll<M> {
        // SAFETY: we own this slot.
        if unsafe { self.slot.mailbox_len() } == 0 {
            return self.yield_now(cx);
        }
        self.publish_len();
        crate::rt::scheduler::yield_with_backlog(self.consumer_key(), || cx.waker().wake_by_ref());
        Poll::Pending
    }

    /// The process is the one its scheduler keeps for a backlog: moves up to
    /// [`BATCH`] more queued messages to the saved ones, which the next receives take
    /// first, in order. Each pop reads the queue's head, on the cache line that every send
    /// claims its position on: popped one per receive while the senders are sending, the
    /// line moved between the two threads at every message (most of `fanin`'s time in both
    /// its send and its receive). Popped in a burst, it moves once or twice a batch. Stops
    /// after a tagged message, so that a bounded mailbox's permits come back no earlier
    /// than one message ahead.
    #[cold]
    fn take_batch(&mut self) {
        let saved = self.saved.get_or_insert_with(Default::default);
        for _ in 1..BATCH {
            // SAFETY: we own this slot and its messages are `M`.
            let Some((tag, m)) = (unsafe { self.slot.pop::<M>() }) else {
                return;
            };
            saved.push_back((tag, m));
            if tag != 0 {
                return;
            }
        }
    }

    /// This process, as the scheduler's backlog hints name it.
    fn consumer_key(&self) -> usize {
        std::ptr::from_ref(self.slot) as usize
    }

    /// Alone on a thread that kept this process for its backlog, with fewer than
    /// [`STREAM_LEAD`] messages queued: waits, for up to `BACKLOG_SPIN` while none come, and
    /// while they keep coming until [`STREAM_LEAD`] + [`BATCH`] are queued (see
    /// `scheduler::alone_with_backlog`). True once any message is queued.
    ///
    /// Waiting for more than a message does two things. Receives then take batches, not
    /// the message just sent (see [`take_batch`](Self::take_batch)). And the receiver
    /// stays a block of the queue behind its senders: a receiver inside the queue's last
    /// block when a sender links the next makes that one small (the queue's rule for a
    /// receiver that keeps up, which then holds one small block), and blocks of 16 cost a
    /// sender's allocation and the receiver's free every 16 messages, both on the
    /// allocator's one lock (a third of `fanin`'s time went to that lock's futex).
    #[cold]
    fn await_message(&self) -> bool {
        let start = std::time::Instant::now();
        let mut looks: u32 = 0;
        let mut still: u32 = 0;
        // SAFETY: we own this slot.
        let mut last = unsafe { self.slot.mailbox_len() };
        loop {
            // Pauses between looks: each look reads the line that every send's claim
            // writes, and taking it from the senders at every message slowed both sides.
            for _ in 0..AWAIT_PAUSES {
                std::hint::spin_loop();
            }
            looks = looks.wrapping_add(1);
            // SAFETY: we own this slot.
            let len = unsafe { self.slot.mailbox_len() };
            if len >= STREAM_LEAD + BATCH {
                return true;
            }
            // Messages that stopped coming: take them now (the stream ended or paused).
            still = if len == last { still + 1 } else { 0 };
            last = len;
            if len != 0 && still >= AWAIT_LOOKS {
                return true;
            }
            if looks % 8 == 0 && start.elapsed() >= crate::rt::scheduler::BACKLOG_SPIN {
                if len != 0 {
                    return true;
                }
                crate::rt::scheduler::backlog_ended(self.consumer_key());
                return false;
            }
            std::hint::spin_loop();
        }
    }
}
