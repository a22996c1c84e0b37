//! The task that runs a process: polls the user's future, turns its end (return, panic,
//! [`Process::exit`](crate::Process::exit), an exit signal) into an exit reason, and runs the
//! exit protocol.

use std::any::Any;
use std::cell::Cell;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};

use crate::rt::signals;
use crate::rt::table::slot::EXIT_PENDING;
use crate::rt::table::Slot;
use crate::values::exit::{ExitReason, IntoExitReason};
use crate::values::pid::ProcessId;

/// The unwinding payload of [`Process::exit`](crate::Process::exit).
pub(crate) struct ExitNow(pub(crate) ExitReason);

thread_local! {
    /// The slot of the process being polled on this thread.
    static CURRENT: Cell<*const Slot> = const { Cell::new(ptr::null()) };
    /// The exit reason of the process whose future is being dropped on this thread.
    static ENDING: Cell<Option<ExitReason>> = const { Cell::new(None) };
}

/// While a process's future is being dropped because the process ended, the reason it
/// ended with: lets state owned by the future (a pool's running job) report it.
pub(crate) fn ending_reason() -> Option<ExitReason> {
    ENDING.with(|e| {
        let reason = e.take();
        e.set(reason.clone());
        reason
    })
}

/// Whether this thread is polling a process, and so holds an epoch guard (see `Slot::send`).
#[inline]
pub(crate) fn pinned() -> bool {
    !CURRENT.with(Cell::get).is_null()
}

/// The id of the process running on this thread, if any.
pub(crate) fn current() -> Option<ProcessId> {
    let slot = CURRENT.with(Cell::get);
    // SAFETY: slots are never freed; a non-null CURRENT is the slot being polled.
    let slot = unsafe { slot.as_ref() }?;
    Some(ProcessId::local(
        slot.index.load(Ordering::Relaxed),
        slot.gen(),
    ))
}

pub(crate) struct ProcessTask<F> {
    slot: &'static Slot,
    /// The user's future; `None` once the process has ended.
    future: Option<F>,
}

impl<F> ProcessTask<F> {
    pub(crate) fn new(slot: &'static Slot, future: F) -> Self {
        ProcessTask {
            slot,
            future: Some(future),
        }
    }
}

impl<F> Future for ProcessTask<F>
where
    F: Future,
    F::Output: IntoExitReason,
{
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: `future` is structurally pinned: it is never moved out, only polled through
        // `Pin::new_unchecked` and dropped in place below.
        let this = unsafe { self.get_unchecked_mut() };
        let slot = this.slot;
        let Some(future) = this.future.as_mut() else {
            return Poll::Ready(());
        };
        // The guard spans the whole poll: sends made by the process skip per-message
        // reference counting (see `Slot::send`), and a slot freed meanwhile waits for us.
        let _guard = crossbeam_epoch::pin();
        CURRENT.with(|c| c.set(slot));
        slot.begin_poll();
        let reason = if slot.state.load(Ordering::Acquire) & EXIT_PENDING != 0 {
            signals::take_pending_exit(slot)
        } else {
            // SAFETY: see above; the future stays where it is.
            let future = unsafe { Pin::new_unchecked(future) };
            match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
                Ok(Poll::Pending) => {
                    slot.flush_counters();
                    CURRENT.with(|c| c.set(ptr::null()));
                    return Poll::Pending;
                }
                Ok(Poll::Ready(output)) => output.into_exit_reason(),
                Err(payload) => reason_of(payload),
            }
        };
        let id = ProcessId::local(slot.index.load(Ordering::Relaxed), slot.gen());
        // Dropping in place is allowed for a pinned value. A destructor that panics must not
        // take down the scheduler thread. Destructors can learn why the process ended.
        ENDING.with(|e| e.set(Some(reason)));
        let _ = catch_unwind(AssertUnwindSafe(|| this.future = None));
        let reason = ENDING.with(Cell::take).unwrap_or(ExitReason::Killed);
        slot.flush_counters();
        CURRENT.with(|c| c.set(ptr::null()));
        signals::process_exited(slot, id, reason);
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
