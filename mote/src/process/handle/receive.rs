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

/// How many more than [`STREAM_LEAD`] end a wait for messages at once.
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
        // Whether this is the process the scheduler keeps for its backlog (see
        // `scheduler::yield_with_backlog`), which waits for messages before it parks; once
        // per receive: a message being pushed counts as queued, and if its sender lost its
        // CPU meanwhile, the park below fails and the receive yields. One load of a line
        // written only when the kept process changes; the rest is out of line, so that
        // every other receive stays as it was.
        let mut awaited = !crate::rt::scheduler::is_consumer(self.consumer_key());
        if !awaited && self.stay_behind() {
            awaited = true;
        }
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
            if !awaited {
                awaited = true;
                if self.await_when_alone() {
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
    #[cold]
    #[inline(never)]
    fn yield_for_budget(&mut self, cx: &mut Context<'_>) -> Poll<M> {
        // SAFETY: we own this slot.
        let backlog = unsafe { self.slot.mailbox_len() };
        if backlog == 0 {
            return self.yield_now(cx);
        }
        self.publish_len();
        crate::rt::scheduler::yield_with_backlog(self.consumer_key(), backlog, || {
            cx.waker().wake_by_ref()
        });
        Poll::Pending
    }

    /// The kept process, alone on its worker and fewer than [`STREAM_LEAD`] messages
    /// behind its senders: waits until it is that far behind (see `await_message`). True
    /// if it waited.
    #[cold]
    #[inline(never)]
    fn stay_behind(&self) -> bool {
        if !crate::rt::scheduler::alone_with_backlog(self.consumer_key()) {
            return false;
        }
        // SAFETY: we own this slot.
        if unsafe { self.slot.mailbox_len() } >= STREAM_LEAD {
            return false;
        }
        self.await_message();
        true
    }

    /// The kept process found its mailbox empty: if alone on its worker, waits for
    /// messages before parking (see `await_message`). True once one is queued.
    #[cold]
    #[inline(never)]
    fn await_when_alone(&self) -> bool {
        crate::rt::scheduler::alone_with_backlog(self.consumer_key()) && self.await_message()
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
    /// Waiting for more than a message does two things. The receiver then drains a run
    /// of messages its senders are done with, rather than reading each slot the moment it
    /// is written (the slot's cache line moving between the two threads at every message).
    /// And it stays a block of the queue behind its senders: a receiver inside the queue's
    /// last block when a sender links the next makes that one small (the queue's rule for
    /// a receiver that keeps up, which then holds one small block), and blocks of 16 cost a
    /// sender's allocation and the receiver's free every 16 messages, both on the
    /// allocator's lock (a third of `fanin`'s time went to that lock's futex).
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
