//! The runner of a process: the task body the scheduler polls for it (inside its task
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
use crate::rt::task::{TaskBody, TaskCell};
use crate::values::exit::{ExitReason, IntoExitReason};

/// The unwinding payload of [`Process::exit`](crate::Process::exit).
pub(crate) struct ExitNow(pub(crate) ExitReason);

/// Wraps a process's future (see the module docs).
///
/// Nothing but the future: the process's slot is the container of the task's cell, which
/// every poll is given, and "the future was dropped" is the cell's completed state (the runner
/// sets it before it drops the future in place, and the task then neither polls nor drops
/// the runner again). With the task's 8-byte header, a typical idle process's task is 56
/// bytes, a 64-byte malloc chunk. (No `Option` around the future either: an `Option` of an
/// `async` block's state machine takes 8 bytes more, as the state machine's discriminant
/// leaves it no niche.)
pub(crate) struct Runner<F> {
    /// The user's future, dropped in place when the process ends (as a pinned value may
    /// be), or by `Drop` if it never did (the task dropped unfinished).
    future: ManuallyDrop<F>,
}

impl<F> Runner<F> {
    /// # Safety
    /// The runner is spawned only into the task cell of a process table slot (see
    /// [`Slot::occupy`]): its polls find the slot from the cell.
    pub(crate) unsafe fn new(future: F) -> Self {
        Runner {
            future: ManuallyDrop::new(future),
        }
    }
}

impl<F> Drop for Runner<F> {
    fn drop(&mut self) {
        // SAFETY: the task drops a runner only if its poll did not end the process (which
        // marks the task completed before it drops the future: see `poll`), so the future
        // is live here, and it is not used after this. Dropping in place keeps the pinning
        // guarantee.
        unsafe { ManuallyDrop::drop(&mut self.future) };
    }
}

impl<F> TaskBody for Runner<F>
where
    F: Future + Send + 'static,
    F::Output: IntoExitReason,
{
    fn poll(self: Pin<&mut Self>, cell: &TaskCell, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: nothing is moved out of the runner: the future is pinned in place below.
        let this = unsafe { self.get_unchecked_mut() };
        // SAFETY: runners are spawned only into table slots' cells (`Runner::new`).
        let slot = unsafe { Slot::of_task(cell) };
        // SAFETY: the runner is pinned, so its future is (structural pinning: it is never
        // moved out, and dropped in place); it is live: the task polls the runner only
        // until it is completed, and completing is the last thing this poll does with it.
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
            // Completed first: a destructor that panics must not get the future dropped
            // twice (the task would drop the runner if the panic left the poll).
            // SAFETY: called from the runner's own poll.
            unsafe { cell.complete_in_poll() };
            // SAFETY: the future is live (the task polls only runners it has not completed)
            // and never used again: with the task completed, neither a poll nor `Drop`
            // touches it.
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
    fn the_runner_adds_nothing_to_the_future() {
        let n = 7u64;
        let future = async move {
            std::future::ready(()).await;
            n
        };
        assert_eq!(runner_size(&future), std::mem::size_of_val(&future));
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
        let counted = Counted(std::sync::Arc::clone(&drops));
        // SAFETY: never polled, so it needs no slot.
        let runner = unsafe {
            Runner::new(async move {
                let _held = counted;
                std::future::pending::<()>().await;
            })
        };
        let runner = Box::pin(runner);
        // Not polled (polling needs the runtime): the future still holds its value.
        assert_eq!(drops.load(std::sync::atomic::Ordering::Relaxed), 0);
        drop(runner);
        assert_eq!(drops.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}
