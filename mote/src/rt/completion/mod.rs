//! A one-shot result that one side fills and the other awaits, and that a process's exit can
//! fill instead: the core of calls, tasks, confirmed starts and pool jobs.
//!
//! The waiting side watches the process that should fill it (a server, a task, a worker):
//! [`Completion`] is an exit listener, so if that process ends first, the waiter wakes with
//! its exit reason instead of hanging. When the waiter gives up ([`Completion::close`]), a
//! late value is dropped where it is produced: nothing stray ever reaches a mailbox, which is
//! what Erlang's process aliases buy a `gen_server:call` since OTP 24.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use crate::rt::signals;
use crate::rt::sync::{AtomicUsize, Mutex, Ordering, UnsafeCell};
use crate::rt::table::extras::ExitListener;
use crate::rt::waker_id::WakerId;
use crate::values::exit::ExitReason;
use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::ProcessId;

/// A producer has won the right to write the outcome (the others give theirs back).
const CLAIMED: usize = 1;
/// The outcome is in `outcome`, for the waiter to take.
const COMPLETE: usize = 1 << 1;
/// The waiter took the outcome or gave up: later outcomes are given back to their
/// producers.
const DONE: usize = 1 << 2;
/// A waker is in `waker`, and a producer that completes wakes it.
const WAKER: usize = 1 << 3;
/// The producer's handle was dropped without producing a value.
const ABANDONED: usize = 1 << 4;
/// A watch on the producer may be in `producer_watch` (see [`Completion::abandon_in`]).
const WATCHED: usize = 1 << 5;

/// The shared slot: producers ([`Completion::complete`], [`Completion::fail`], exit
/// listeners) hold it through an `Arc`; the one waiter through a [`Waiter`].
///
/// One atomic state word orders everything, as tokio's oneshot does: a call's reply used
/// to take a lock three times (the reply, the waiter's pending poll, its ready poll), six
/// read-modify-writes of a line both sides write; here the producer makes two (claim,
/// publish), or one when it is known to be the only one (a call's reply handle, see
/// [`Completion::complete_as_sole_producer`]: it writes the cell, then sets `CLAIMED` and
/// `COMPLETE` together), the waiter one per poll. Who may touch which cell when:
/// * `outcome`: the producer that set `CLAIMED` (or the sole producer) writes it, then
///   sets `COMPLETE`; the waiter reads it once it has seen `COMPLETE` and set `DONE`. A
///   producer that finds `DONE` already set when it publishes (the waiter gave up
///   meanwhile) takes its value back: the waiter, having seen no `COMPLETE`, never reads it.
/// * `waker`: the waiter writes it only while `WAKER` is clear (sets `WAKER` afterwards,
///   then looks for `COMPLETE` in what that returns); while `WAKER` is set the producer
///   that publishes may read it, and wakes it by reference, leaving it in place: a slot
///   reused for the same caller's next call ([`Waiter::recycle`]) still holds it, and that
///   call registers it with no clone and no read-modify-write. The waiter never writes the
///   cell after `COMPLETE`, and reads it only as the slot's only owner (to reuse it); it
///   remembers which waker it stored (`registered`), and to store another it first
///   clears `WAKER`, which tells it whether a producer got there first. The waker is
///   dropped with the slot, when replaced, or by a waiter that gave up before any outcome
///   (no producer will read it then).
/// * `registered`: the waiter's alone, read and written only through the one [`Waiter`].
pub(crate) struct Completion<T> {
    state: AtomicUsize,
    outcome: UnsafeCell<Option<Result<T, ExitReason>>>,
    waker: UnsafeCell<Option<Waker>>,
    /// Who the waker the waiter stored wakes (while `WAKER` is set): the waiter cannot read
    /// `waker`, which belongs to the producer once `WAKER` is set. Here rather than in the
    /// [`Waiter`], so that a waiter is one pointer: a call's waiter moves through its
    /// caller's futures, and as three words it was copied in wide loads of values just
    /// stored in narrower pieces (stalled store-to-load forwards, about a tenth of a
    /// one-caller call's time).
    registered: UnsafeCell<WakerId>,
    /// A watch the producer put on itself when it dropped its handle (rare: a reply
    /// dropped unanswered); behind a lock, which only that path and the ones that remove
    /// the watch take.
    producer_watch: Mutex<Option<ExitWatch>>,
}

// SAFETY: the cells are reached only as the state word allows (see the type's docs): the
// outcome by one thread at a time, handed over with release/acquire on `state`; the waker
// written by one thread while no other may read it; `registered` only by the one waiter,
// through `&mut Waiter`. The outcome moves between threads (`T: Send`); a `Waker` is
// `Send + Sync`; a `WakerId` is two addresses, never dereferenced.
unsafe impl<T: Send> Send for Completion<T> {}
// SAFETY: as for `Send`: every access through `&Completion` goes by the state word.
unsafe impl<T: Send> Sync for Completion<T> {}

impl<T> Completion<T> {
    fn new() -> Self {
        Completion {
            state: AtomicUsize::new(0),
            outcome: UnsafeCell::new(None),
            waker: UnsafeCell::new(None),
            registered: UnsafeCell::new(WakerId::default()),
            producer_watch: Mutex::new(None),
        }
    }

    /// Stores the value and wakes the waiter. Gives the value back if the waiter has given
    /// up or an outcome is already there.
    pub(crate) fn complete(&self, value: T) -> Result<(), T> {
        self.put(Ok(value)).map_err(|back| match back {
            Ok(value) => value,
            Err(_) => unreachable!("given back as it was put"),
        })
    }

    /// [`Completion::complete`] by the slot's sole producer: one read-modify-write instead
    /// of two (the claim is skipped), for a call's reply, on every call's path.
    ///
    /// # Safety
    /// No other producer (`complete`, `fail`, `no_value`, an exit listener) may put into
    /// this completion before this call returns, and none may have put into it before. A
    /// call's `ReplyTo` is that while it holds the slot: it is the slot's only handle
    /// outside the caller, the caller's own `fail(NoProc)` comes only when the request went
    /// into a mailbox no longer read (so no handler ever replies through it), and watches
    /// that fail it are put in place only after the handle let go of the slot.
    #[inline]
    pub(crate) unsafe fn complete_as_sole_producer(&self, value: T) -> Result<(), T> {
        // SAFETY: no other producer writes the cell (the contract); the waiter reads it only
        // after `COMPLETE`, published below, and a waiter that gave up (`DONE`) first never
        // reads it.
        self.outcome
            .with_mut(|cell| unsafe { *cell = Some(Ok(value)) });
        // The claim and the publication in one: Release so that the waiter that sees
        // `COMPLETE` sees the outcome; Acquire so that a waker published with `WAKER` is seen.
        let before = self.state.fetch_or(CLAIMED | COMPLETE, Ordering::AcqRel);
        debug_assert_eq!(before & CLAIMED, 0, "another producer put into the slot");
        if before & DONE != 0 {
            // The waiter gave up before `COMPLETE` went in: it never reads the cell, so the
            // value is ours again.
            // SAFETY: as above; the waiter is gone from the cell for good.
            let back = self.outcome.with_mut(|cell| unsafe { (*cell).take() });
            return match back {
                Some(Ok(value)) => Err(value),
                _ => unreachable!("written above"),
            };
        }
        if before & WAKER != 0 {
            self.wake_registered();
        }
        Ok(())
    }

    /// Wakes the waiter's registered waker by reference: called by the producer whose
    /// publication of `COMPLETE` found `WAKER` set.
    #[inline]
    fn wake_registered(&self) {
        self.waker.with(|cell| {
            // SAFETY: `WAKER` was set when `COMPLETE` went in: the waiter wrote the waker
            // before setting it (the caller acquired that) and writes the cell again only
            // after clearing `WAKER`, which then tells it of `COMPLETE`, and it stops;
            // nothing else writes it while a producer holds the slot.
            if let Some(waker) = unsafe { &*cell } {
                waker.wake_by_ref();
            }
        });
    }

    /// Ends the wait with an exit reason, unless an outcome is already there.
    pub(crate) fn fail(&self, reason: ExitReason) {
        let _ = self.put(Err(reason));
    }

    /// The producers' half: claim, write, publish, wake.
    fn put(&self, outcome: Result<T, ExitReason>) -> Result<(), Result<T, ExitReason>> {
        let mut state = self.state.load(Ordering::Relaxed);
        loop {
            if state & (CLAIMED | DONE) != 0 {
                return Err(outcome);
            }
            // Relaxed: the claim orders nothing; only the claimant touches the cell
            // before `COMPLETE`.
            match self.state.compare_exchange_weak(
                state,
                state | CLAIMED,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(actual) => state = actual,
            }
        }
        // SAFETY: `CLAIMED` is ours: no other producer writes, and the waiter reads only
        // after `COMPLETE`.
        self.outcome
            .with_mut(|cell| unsafe { *cell = Some(outcome) });
        // Release: the waiter that sees `COMPLETE` sees the outcome. Acquire: a waker the
        // waiter published with `WAKER` is seen here.
        let before = self.state.fetch_or(COMPLETE, Ordering::AcqRel);
        if before & DONE != 0 {
            // The waiter gave up while we wrote, having seen no `COMPLETE`: it never reads
            // the cell, so the value is ours again.
            // SAFETY: as above; the waiter is gone from the cell for good.
            let back = self.outcome.with_mut(|cell| unsafe { (*cell).take() });
            return Err(back.expect("written above"));
        }
        if before & WAKER != 0 {
            self.wake_registered();
        }
        Ok(())
    }

    /// Records that the producer's handle is gone without a value.
    pub(crate) fn abandon(&self) {
        self.state.fetch_or(ABANDONED, Ordering::Release);
    }

    /// Records that the producer's handle is gone without a value, dropped by the producer
    /// process `producer` itself (a server dropping a call's reply slot): whether that is
    /// final depends on what the producer does next. If it ends, the completion fails with
    /// its exit reason (a watch on it is put in place now); if it goes on, the producer says
    /// so with [`Completion::no_value`]. The watch is only taken on this path (a handle
    /// dropped unanswered), never per call.
    pub(crate) fn abandon_in(self: &Arc<Self>, producer: ProcessId)
    where
        T: Send + 'static,
    {
        self.abandon();
        // Already over (it ended before it could reply): the watch fails us with `noproc`.
        let watch = ExitWatch::new(producer, self);
        if !watch.is_active() {
            return;
        }
        let mut kept = self.producer_watch.lock();
        *kept = Some(watch);
        // After storing: a waiter that gives up from now on sees `WATCHED` and removes it;
        // one that gave up before (or an outcome that came) is seen here.
        let before = self.state.fetch_or(WATCHED, Ordering::AcqRel);
        let unused = if before & (CLAIMED | DONE) != 0 {
            kept.take()
        } else {
            None
        };
        drop(kept);
        // Removed outside the lock (it takes the producer's).
        drop(unused);
    }

    /// The producer dropped its handle and goes on: no value will come. Ends the wait with
    /// `no_value` unless an outcome is already there, and removes the producer's watch.
    pub(crate) fn no_value(&self, no_value: T) {
        let _ = self.complete(no_value);
        self.drop_watch();
    }

    fn drop_watch(&self) {
        if self.state.load(Ordering::Acquire) & WATCHED != 0 {
            let watch = self.producer_watch.lock().take();
            drop(watch);
        }
    }

    /// Whether the producer dropped its handle and no outcome has arrived.
    pub(crate) fn is_abandoned(&self) -> bool {
        let state = self.state.load(Ordering::Acquire);
        state & ABANDONED != 0 && state & (CLAIMED | DONE) == 0
    }

    /// Whether an outcome is waiting to be taken.
    pub(crate) fn is_ready(&self) -> bool {
        self.state.load(Ordering::Acquire) & (COMPLETE | DONE) == COMPLETE
    }

    /// Whether the waiter has taken the outcome or given up.
    pub(crate) fn is_done(&self) -> bool {
        self.state.load(Ordering::Acquire) & DONE != 0
    }
}

impl<T: Send> ExitListener for Completion<T> {
    fn exited(&self, reason: &ExitReason) {
        self.fail(reason.clone());
    }
}

/// The waiting side of a [`Completion`]: there is one, and only it takes the outcome,
/// registers a waker or gives up (which is what lets the waker cell go without a lock).
/// Dropping it does not give up: see [`Waiter::close`].
pub(crate) struct Waiter<T>(Arc<Completion<T>>);

impl<T> Waiter<T> {
    /// A fresh completion and its waiter.
    pub(crate) fn new() -> Self {
        Waiter(Arc::new(Completion::new()))
    }

    /// The id of the waker this waiter stored last.
    #[inline]
    fn registered(&self) -> WakerId {
        // SAFETY: `registered` is the one waiter's, and this is it; it is written only
        // through `&mut Waiter` (`poll_take`) or by the slot's only owner (`emptied`), so no
        // write races this read.
        self.0.registered.with(|cell| unsafe { *cell })
    }

    /// The shared slot, for producers and watches.
    pub(crate) fn completion(&self) -> &Arc<Completion<T>> {
        &self.0
    }

    /// Whether this waiter holds the only reference to the slot: then no producer, watch or
    /// reply handle can reach it any more, and every access they made is ordered before the
    /// caller's next ones (the acquire fence pairs with `Arc`'s releasing decrements).
    ///
    /// Not `Arc::get_mut`: its compare-exchange on the weak count (a locked instruction, to
    /// fend off a `Weak` being made meanwhile) was as costly as the work it saves, and
    /// nothing makes a `Weak` of a completion.
    #[inline]
    pub(crate) fn is_only_owner(&self) -> bool {
        if Arc::strong_count(&self.0) != 1 || Arc::weak_count(&self.0) != 0 {
            return false;
        }
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        true
    }

    /// The slot emptied for another wait, if this waiter is its only owner: no outcome, no
    /// watch, and the waker it holds (if any) left registered (`WAKER` set), so that a wait
    /// polled by the same task registers with no clone and no read-modify-write.
    // Inline: LLVM left it out of line once `self_id` was inlined into a call's poll, and
    // its `Option<Waiter<T>>`, returned through the stack, stalled the load that read it back
    // (as `Slot::pop`'s did).
    #[inline]
    pub(crate) fn emptied(self) -> Option<Waiter<T>> {
        if !self.is_only_owner() {
            return None;
        }
        let Waiter(slot) = self;
        // SAFETY: this `Arc` is the only one and no `Weak` exists, so no other reference to
        // the completion exists or can be made (a clone would need this `Arc`); the fence
        // in `is_only_owner` orders the other owners' accesses before ours.
        let only = unsafe { &mut *Arc::as_ptr(&slot).cast_mut() };
        // SAFETY: the only owner (above).
        let waker = only.waker.with_mut(|cell| unsafe { (*cell).take() });
        let wakes = waker.as_ref().map_or(WakerId::default(), WakerId::of);
        // Drops what else may be left (an outcome nobody took).
        *only = Completion {
            state: AtomicUsize::new(if waker.is_some() { WAKER } else { 0 }),
            outcome: UnsafeCell::new(None),
            waker: UnsafeCell::new(waker),
            registered: UnsafeCell::new(wakes),
            producer_watch: Mutex::new(None),
        };
        Some(Waiter(slot))
    }

    /// Takes the outcome: after `COMPLETE` was seen, with acquire.
    #[inline]
    fn take(&mut self) -> Result<T, ExitReason> {
        if self.is_only_owner() {
            // Nobody else can see the state word: a plain store will do, not a locked
            // read-modify-write (a call's waiter is usually alone by now, the reply handle
            // having let go as it replied).
            let state = self.0.state.load(Ordering::Relaxed);
            self.0.state.store(state | DONE, Ordering::Relaxed);
        } else {
            self.0.state.fetch_or(DONE, Ordering::Relaxed);
        }
        // SAFETY: `COMPLETE` was seen with acquire, so the producer is done with the cell
        // (it takes a value back only if `DONE` came first, and it did not); `DONE` is set,
        // and this is the one waiter.
        let outcome = self.0.outcome.with_mut(|cell| unsafe { (*cell).take() });
        outcome.expect("complete")
    }

    #[inline]
    pub(crate) fn poll_take(&mut self, cx: &mut Context<'_>) -> Poll<Result<T, ExitReason>> {
        let state = self.0.state.load(Ordering::Acquire);
        if state & DONE != 0 {
            return Poll::Ready(Err(ExitReason::NoProc));
        }
        if state & COMPLETE != 0 {
            return Poll::Ready(self.take());
        }
        let registered = WakerId::of(cx.waker());
        if state & WAKER != 0 {
            if self.registered() == registered {
                return Poll::Pending;
            }
            let before = self.0.state.fetch_and(!WAKER, Ordering::AcqRel);
            if before & COMPLETE != 0 {
                return Poll::Ready(self.take());
            }
        }
        // SAFETY: `WAKER` is clear and only this waiter sets it: no producer reads the cell
        // (one that completes from now on finds `WAKER` clear).
        self.0
            .waker
            .with_mut(|cell| unsafe { *cell = Some(cx.waker().clone()) });
        // SAFETY: `registered` is the one waiter's, and this is it (`&mut self`).
        self.0
            .registered
            .with_mut(|cell| unsafe { *cell = registered });
        // Release: the producer that sees `WAKER` sees the waker. Acquire: an outcome
        // published meanwhile (its producer saw no `WAKER` and will not wake us).
        let before = self.0.state.fetch_or(WAKER, Ordering::AcqRel);
        if before & COMPLETE != 0 {
            return Poll::Ready(self.take());
        }
        Poll::Pending
    }

    /// The waiter gives up: a value that arrives later is dropped (given back to its
    /// producer). Returns a value that arrived before, which the waiter may still use.
    pub(crate) fn close(&mut self) -> Option<Result<T, ExitReason>> {
        let before = self.0.state.fetch_or(DONE, Ordering::AcqRel);
        let outcome = if before & DONE != 0 {
            None
        } else if before & COMPLETE != 0 {
            // SAFETY: as in `take`: `COMPLETE` seen with acquire, `DONE` set by us first.
            self.0.outcome.with_mut(|cell| unsafe { (*cell).take() })
        } else {
            if before & WAKER != 0 {
                // SAFETY: no outcome was published before `DONE`, so none will be (a
                // producer that publishes now finds `DONE` and wakes nobody): no producer
                // reads the waker any more, and this is the one waiter.
                let waker = self.0.waker.with_mut(|cell| unsafe { (*cell).take() });
                drop(waker);
            }
            None
        };
        self.0.drop_watch();
        outcome
    }

    /// Waits for the outcome.
    pub(crate) fn wait(&mut self) -> Wait<'_, T> {
        Wait(self)
    }
}

impl<T> std::ops::Deref for Waiter<T> {
    type Target = Completion<T>;

    fn deref(&self) -> &Completion<T> {
        &self.0
    }
}

/// The future of [`Waiter::wait`].
pub(crate) struct Wait<'a, T>(&'a mut Waiter<T>);

impl<T> Future for Wait<'_, T> {
    type Output = Result<T, ExitReason>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.get_mut().0.poll_take(cx)
    }
}

/// A watch on a process's exit that reports into a [`Completion`], removed when dropped (so
/// a waiter that stops waiting leaves nothing behind in the watched process).
pub(crate) struct ExitWatch {
    target: ProcessId,
    monitor: Option<MonitorRef>,
}

impl ExitWatch {
    /// Whether the target was alive when watched (if not, the completion failed with
    /// `noproc`).
    pub(crate) fn is_active(&self) -> bool {
        self.monitor.is_some()
    }

    /// The watched process.
    pub(crate) fn target(&self) -> ProcessId {
        self.target
    }

    /// Watches `target`; if it is not alive, `completion` fails at once with `noproc`.
    pub(crate) fn new<T: Send + 'static>(
        target: ProcessId,
        completion: &Arc<Completion<T>>,
    ) -> Self {
        let listener: Arc<dyn ExitListener> = completion.clone();
        let monitor = signals::watch(target, listener);
        if monitor.is_none() {
            completion.fail(ExitReason::NoProc);
        }
        ExitWatch { target, monitor }
    }

    /// A watch set up at spawn time ([`SpawnOptions::watched_by`](crate::SpawnOptions)).
    pub(crate) fn spawned(target: ProcessId, monitor: MonitorRef) -> Self {
        ExitWatch {
            target,
            monitor: Some(monitor),
        }
    }
}

impl Drop for ExitWatch {
    fn drop(&mut self) {
        if let Some(r) = self.monitor {
            signals::unwatch(self.target, r);
        }
    }
}

impl std::fmt::Debug for ExitWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExitWatch")
            .field("target", &self.target)
            .finish()
    }
}

#[cfg(test)]
mod loom_tests;
mod process_end;
mod recycle;

pub(crate) use process_end::ProcessEnd;
