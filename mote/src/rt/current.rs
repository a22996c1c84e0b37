//! The current-process context: which process this thread is polling and, while a
//! process's future is being dropped because the process ended, why it ended.
//!
//! Only the runner ([`rt::runner`](crate::rt::runner)) sets it, around each poll; everything
//! else reads it: sends (whether the thread holds an epoch guard), `self_id`, a pool's job
//! reporting how its worker ended.

use std::cell::Cell;
use std::ptr;

use crate::rt::table::Slot;
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

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
    Some(slot.id())
}

/// The run group of the process running on this thread (0 outside any process): what a
/// process it spawns inherits.
pub(crate) fn run_group() -> u32 {
    let slot = CURRENT.with(Cell::get);
    // SAFETY: slots are never freed; a non-null CURRENT is the slot being polled.
    unsafe { slot.as_ref() }.map_or(0, Slot::run_group)
}

/// Makes `slot` the process this thread polls, until [`leave`]. The caller holds an epoch
/// guard until then (see [`pinned`]).
#[inline]
pub(crate) fn enter(slot: &'static Slot) {
    CURRENT.with(|c| c.set(slot));
}

/// This thread polls no process any more.
#[inline]
pub(crate) fn leave() {
    CURRENT.with(|c| c.set(ptr::null()));
}

/// Runs `drop_future` with `reason` as the [`ending_reason`], and returns the reason then
/// (`Killed` if a destructor took it away).
pub(crate) fn while_ending(reason: ExitReason, drop_future: impl FnOnce()) -> ExitReason {
    ENDING.with(|e| e.set(Some(reason)));
    drop_future();
    ENDING.with(Cell::take).unwrap_or(ExitReason::Killed)
}
