//! The process task: the one heap allocation that holds a spawned process's future, its
//! state word and the pointer to its type's functions, and the [`Runnable`] handle the
//! scheduler queues and runs.
//!
//! # Why mote's own
//!
//! Processes used to be `async-task` tasks. Its header is 32 bytes: the state word, an
//! `awaiter: Option<Waker>` (16 bytes) for the `Task` handle's `.await`, and the vtable
//! pointer. mote detaches every task at spawn and never awaits one, so the awaiter was dead
//! weight. This task's header is 16 bytes (state word and vtable pointer): the `million`
//! benchmark's task shrinks from 88 bytes (a 96-byte malloc chunk) to 72 (an 80-byte one),
//! 16 MB less for a million idle processes, and every spawn allocates less.
//!
//! # The state word
//!
//! Three flags and a reference count (see `raw.rs`), after `async-task`'s state machine
//! (MIT/Apache-2.0; the transitions of `run`, `wake_by_ref` and the reference counting
//! follow its `raw.rs` closely, less the `Task` handle, the awaiter, the output and the
//! `CLOSED` state):
//!
//! - `SCHEDULED`: a [`Runnable`] exists (or, while `RUNNING`, must be made again when the
//!   poll ends). A wake of an idle task sets it and hands a new `Runnable` to the
//!   scheduler; a wake of a scheduled task changes nothing.
//! - `RUNNING`: a poll is under way. A wake then only sets `SCHEDULED`, and the poll's end
//!   reschedules the task itself (with `woken_while_running`, so the scheduler can put it
//!   at the back of the queue: it yielded).
//! - `COMPLETED`: the future is gone (it returned, or its `Runnable` was dropped unpolled,
//!   or a panic left its poll). Wakes do nothing from then on.
//! - The reference count: one per [`Waker`](std::task::Waker) and one for the `Runnable`.
//!   The last one frees the allocation, dropping the future first if it is still there (an
//!   idle task nobody can wake any more).
//!
//! What `async-task` has and this leaves out: the `Task` handle (output, awaiter,
//! cancellation, `CLOSED`), panic propagation, metadata, and a schedule function with
//! state (ours is a type with no value, [`Schedule`]).
//!
//! # One waker vtable
//!
//! Waking, cloning and dropping a waker touch only the header (the per-type functions are
//! reached through it), so every task's wakers share ONE static `RawWakerVTable`. A waker
//! is then fully given by the task pointer: the process table could keep just that pointer
//! and make the `Waker` when needed, 8 bytes less per slot.
//!
//! # Panics
//!
//! mote's `Runner` catches the panics of the user's future and of its drop. Should a panic
//! escape a poll anyway, the task *completes*: the future is dropped (its own panic there is
//! swallowed), the state gets `COMPLETED` (so wakes do nothing and nothing reschedules it),
//! the poll's reference is dropped, and the panic goes on up to the caller of
//! [`Runnable::run`]. That is what `async-task` did for mote (no "std" feature: its guard
//! closes the task), and it keeps the task's memory safe and freed; aborting the process
//! would be the other choice, and a panic here is a bug in mote either way.

mod raw;
mod waker;

#[cfg(test)]
mod loom_tests;
#[cfg(test)]
mod recorder;
#[cfg(all(test, not(loom)))]
mod tests;

pub(crate) use raw::{spawn, task_bytes, Runnable, Schedule};
