//! The runner of a process: the future the scheduler polls for it (inside its task
//! allocation, `rt::task`). It polls the user's future, turns its end (return, panic,
//! [`Process::exit`](crate::Process::exit), an exit signal) into an exit reason, and runs the
//! exit protocol.

use std::any::Any;
use std::future::Future;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::rt::crash_report;
use crate::rt::current;
use crate::rt::signals;
use crate::rt::table::Slot;
use crate::values::exit::{ExitReason, IntoExitReason};

/// The unwinding payload of [`Process::exit`](crate::Process::exit).
pub(crate) struct ExitNow(pub(crate) ExitReason);

/// Wraps a process's future (see the module docs).
///
/// No `Option` around the future: an `Option` of an `async` block's state machine takes 8
/// bytes more (the state machine's discriminant leaves it no niche), and 8 bytes made the
/// task of a typical idle process cross a malloc size class (80 rather than 72 bytes with
/// the task's 16-byte header: 96- rather than 80-byte chunks). A null `slot` says the
/// future was dropped instead.
pub(crate) struct Runner<F> {
    /// The process's slot; null once the future has been dropped (the process ended).
    slot: *const Slot,
    /// The user's future, dropped in place when the process ends (as a pinned value may
    /// be), or by `Drop` if it never did (the task dropped unfinished).
    future: ManuallyDrop<F>,
}

// SAFETY: `slot` is a `&'static Slot` (or null), and `Slot` is `Sync`; the future is `Send`
// if `F` is.
unsafe impl<F: Send> Send for Runner<F> {}

impl<F> Runner<F> {
    pub(crate) fn new(slot: &'static Slot, future: F) -> Self {
        Runner {
            slot,
            future: ManuallyDrop::new(future),
        }
    }
}

impl<F> Drop for Runner<F> {
    fn drop(&mut self) {
        if !self.slot.is_null() {
            // SAFETY: a non-null `slot` means the future was not dropped yet, and it is not
            // used after this. Dropping in place keeps the pinning guarantee.
            unsafe { ManuallyDrop::drop(&mut self.future) };
        }
    }
}

impl<F> Future for Runner<F>
where
    F: Future,
    F::Output: IntoExitReason,
{
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: nothing is moved out of the runner: the future is pinned in place below,
        // and `slot` is a plain pointer.
        let this = unsafe { self.get_unchecked_mut() };
        // SAFETY: `slot` is null or a `&'static Slot` (see `Runner::new`).
        let Some(slot) = (unsafe { this.slot.as_ref() }) else {
            return Poll::Ready(());
        };
        // SAFETY: the runner is pinned, so its future is (structural pinning: it is never
        // moved out, and dropped in place); it is live while `slot` is non-null.
        let future = unsafe { Pin::new_unchecked(&mut *this.future) };
        // The guard spans the whole poll: sends made by the process skip per-message
        // reference counting (see `Slot::send`), and a slot freed meanwhile waits for us.
        // Spawns move it forward now and then (`current::repin`). On a scheduler worker it
        // is the worker's, held across a batch of task runs.
        let mut own = None;
        // SAFETY: used only in this poll, on this thread, and through this one reference.
        let guard = match unsafe { current::worker_guard() } {
            Some(lent) => lent,
            None => own.insert(crossbeam_epoch::pin()),
        };
        // User `tracing` calls inside the process carry its pid. With no subscriber (or none
        // at TRACE) this is one relaxed load and a predictable branch.
        let span = tracing::trace_span!("process", pid = %slot.id());
        let _entered = span.enter();
        current::enter(slot, guard);
        slot.begin_poll();
        // Ended by an exit signal: not a crash. Ended by its own code: maybe one.
        let mut own_end = true;
        let reason = if slot.is_exit_pending() {
            own_end = false;
            signals::take_pending_exit(slot)
        } else {
            match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
                Ok(Poll::Pending) => {
                    current::leave();
                    return Poll::Pending;
                }
                // An exit signal that arrived during the poll wins over how the future ended:
                // the signal came first (e.g. a signal to oneself whose unwind was caught).
                _ if slot.is_exit_pending() => signals::take_pending_exit(slot),
                Ok(Poll::Ready(output)) => output.into_exit_reason(),
                Err(payload) => reason_of(payload),
            }
        };
        let id = slot.id();
        // Dropping in place is allowed for a pinned value. A destructor that panics must not
        // take down the scheduler thread. Destructors can learn why the process ended.
        // The messages still queued go with it, while their destructors can learn why (a
        // call's reply slot fails with the server's reason).
        let reason = current::while_ending(reason, || {
            // Null first: a destructor that panics must not get the future dropped twice.
            this.slot = std::ptr::null();
            // SAFETY: the future is live (`slot` was non-null) and never used again: `slot`
            // is null now, so neither `poll` nor `Drop` touches it.
            let _ = catch_unwind(AssertUnwindSafe(|| unsafe {
                ManuallyDrop::drop(&mut this.future)
            }));
            // SAFETY: the process's own task, whose future (with its `Process`) is gone.
            let _ = catch_unwind(AssertUnwindSafe(|| unsafe { slot.drop_queued() }));
        });
        if own_end && crash_report::is_crash(&reason) {
            crash_report::report(slot, id, &reason);
        }
        current::leave();
        signals::process_exited(slot, id, reason);
        // Messages that raced the exit (pushed before `begin_exit` in `process_exited`, after
        // the drain above): dropped now, as leftovers, rather than when the slot is
        // recycled (see `Sent`). Our epoch guard keeps the slot ours.
        crate::rt::mailbox::leftovers::as_leftovers(|| {
            // SAFETY: the process's own task, which receives no more.
            let _ = catch_unwind(AssertUnwindSafe(|| unsafe { slot.drop_queued() }));
        });
        Poll::Ready(())
    }
}

/// The exit reason of an unwinding process: its [`ExitNow`] reason, or a panic's message.
pub(crate) fn reason_of(payload: Box<dyn Any + Send>) -> ExitReason {
    match payload.downcast::<ExitNow>() {
        Ok(exit) => exit.0,
        Err(payload) => ExitReason::Panic(panic_message(&*payload)),
    }
}

/// The message of a panic's payload (a `String` or a `&str`, as `panic!` makes).
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> std::sync::Arc<str> {
    if let Some(s) = payload.downcast_ref::<String>() {
        s.as_str().into()
    } else if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).into()
    } else {
        "a panic with a non-string payload".into()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn runner_size<F>(_: &F) -> usize {
        std::mem::size_of::<Runner<F>>()
    }

    #[test]
    fn the_runner_adds_only_the_slot_pointer_to_the_future() {
        let n = 7u64;
        let future = async move {
            std::future::ready(()).await;
            n
        };
        assert_eq!(runner_size(&future), 8 + std::mem::size_of_val(&future));
    }

    /// Counts its drops.
    struct Counted(std::sync::Arc<std::sync::atomic::AtomicUsize>);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// A task dropped before its process ended (a runtime torn down) drops the future once
    /// (under miri: and touches nothing else).
    #[test]
    fn a_runner_dropped_unfinished_drops_its_future_once() {
        let drops = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let owned = Box::into_raw(Box::new(Slot::new()));
        // SAFETY: freed below, after the last runner that uses it is gone.
        let slot: &'static Slot = unsafe { &*owned };
        let counted = Counted(std::sync::Arc::clone(&drops));
        let runner = Runner::new(slot, async move {
            let _held = counted;
            std::future::pending::<()>().await;
        });
        let runner = Box::pin(runner);
        // Not polled (polling needs the runtime): the future still holds its value.
        assert_eq!(drops.load(std::sync::atomic::Ordering::Relaxed), 0);
        drop(runner);
        assert_eq!(drops.load(std::sync::atomic::Ordering::Relaxed), 1);
        // SAFETY: from `Box::into_raw` above; nothing refers to it any more.
        drop(unsafe { Box::from_raw(owned) });
    }
}
