//! The runner of a process: the future the scheduler polls for it (inside its async-task
//! allocation). It polls the user's future, turns its end (return, panic,
//! [`Process::exit`](crate::Process::exit), an exit signal) into an exit reason, and runs the
//! exit protocol.

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use crate::rt::crash_report;
use crate::rt::current;
use crate::rt::signals;
use crate::rt::table::Slot;
use crate::values::exit::{ExitReason, IntoExitReason};

/// The unwinding payload of [`Process::exit`](crate::Process::exit).
pub(crate) struct ExitNow(pub(crate) ExitReason);

pin_project! {
    /// Wraps a process's future (see the module docs).
    pub(crate) struct Runner<F> {
        slot: &'static Slot,
        // The user's future; `None` once the process has ended (dropped in place, as a
        // pinned value may be).
        #[pin]
        future: Option<F>,
    }
}

impl<F> Runner<F> {
    pub(crate) fn new(slot: &'static Slot, future: F) -> Self {
        Runner {
            slot,
            future: Some(future),
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
        let mut this = self.project();
        let slot: &'static Slot = this.slot;
        let Some(future) = this.future.as_mut().as_pin_mut() else {
            return Poll::Ready(());
        };
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
                    slot.flush_counters();
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
            let _ = catch_unwind(AssertUnwindSafe(|| this.future.set(None)));
            // SAFETY: the process's own task, whose future (with its `Process`) is gone.
            let _ = catch_unwind(AssertUnwindSafe(|| unsafe { slot.drop_queued() }));
        });
        slot.flush_counters();
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
