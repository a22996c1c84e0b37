//! The process task: its permanent [`TaskCell`] (the state word, kept in the process's
//! table slot), the one heap allocation per incarnation that holds the spawned process's
//! body and the pointer to its type's functions, and the [`Runnable`] handle the
//! scheduler queues and runs.
//!
//! # Why mote's own
//!
//! Processes used to be `async-task` tasks. Its header is 32 bytes: the state word, an
//! `awaiter: Option<Waker>` (16 bytes) for the `Task` handle's `.await`, and the vtable
//! pointer. mote detaches every task at spawn and never awaits one, so the awaiter was dead
//! weight. mote's first own task had a 16-byte header (state word and vtable pointer): the
//! `million` benchmark's task shrank from 88 bytes (a 96-byte malloc chunk) to 72 (an
//! 80-byte one), 16 MB less for a million idle processes. Moving the state word into the
//! slot (below) halves the header again.
//!
//! # The cell in the slot
//!
//! The task's state word does not live in its allocation but in a [`TaskCell`] (16 bytes:
//! the state word and the pointer to the current incarnation's allocation), which mote
//! keeps in the process's table slot. Slots are never freed, only reused, so the cell
//! outlives every waker and runnable of every incarnation: wakers and runnables are the
//! cell's address, with no reference count. The allocation holds only the body's vtable
//! pointer and the body (the process's runner and the user's future): the `million`
//! benchmark's task shrinks from 72 bytes (an 80-byte malloc chunk) to 56 (a 64-byte one),
//! 16 MB less for a million idle processes. The allocation of an incarnation is freed when
//! the cell is spawned into again (on the spawning thread, see the slot's `task` field) or
//! when the cell is dropped (test slots).
//!
//! # The state word
//!
//! Three flags, after `async-task`'s state machine (MIT/Apache-2.0; the transitions of
//! `run` and `wake` follow its `raw.rs`, less the `Task` handle, the awaiter, the output,
//! the `CLOSED` state and the reference count):
//!
//! - `SCHEDULED`: a [`Runnable`] exists (or, while `RUNNING`, must be made again when the
//!   poll ends). A wake of an idle task sets it and hands a new `Runnable` to the
//!   scheduler; a wake of a scheduled task changes nothing.
//! - `RUNNING`: a poll is under way. A wake then only sets `SCHEDULED`, and the poll's end
//!   reschedules the task itself (with `woken_while_running`, so the scheduler can put it
//!   at the back of the queue: it yielded).
//! - `LIVE`: the incarnation's body is there. Without it the cell is *completed*: the body
//!   is gone (it returned, or marked itself completed during its poll, or its `Runnable`
//!   was dropped unpolled, or a panic left its poll), or the cell holds no incarnation yet
//!   (all zeros: the process table's pages are zeroed memory). Wakes do nothing until
//!   [`TaskCell::spawn`] starts the next incarnation. A waker of an ended incarnation that
//!   wakes a later one causes a spurious poll (see "Stale wakers" on [`TaskCell`]).
//!
//! What `async-task` has and this leaves out: the `Task` handle (output, awaiter,
//! cancellation, `CLOSED`), panic propagation, metadata, reference counting (the cell is
//! permanent), and a schedule function with state (ours is a type with no value,
//! [`Schedule`]).
//!
//! # One waker vtable
//!
//! Waking touches only the cell (the per-type functions are reached through it, and only
//! when the wake makes a runnable), cloning and dropping touch nothing, so every task's
//! wakers share ONE static `RawWakerVTable`, and a waker is fully given by the cell's
//! address.
//!
//! # Panics
//!
//! mote's `Runner` catches the panics of the user's future and of its drop. Should a panic
//! escape a poll anyway, the task *completes*: the future is dropped (its own panic there is
//! swallowed), the task completes (so wakes do nothing and nothing reschedules it),
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

pub(crate) use raw::{task_bytes, Runnable, Schedule, TaskBody, TaskCell};
