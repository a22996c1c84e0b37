//! Work deferred to the end of a process's poll. The thread's outbox (`rt::outbox`) queues
//! the messages it gathered for a busy receiver and forgets that receiver; with the `dist`
//! feature, the distribution layer leaves the frames a process sends to another node in
//! their connection's buffer and writes them all in one system call when the poll ends, as
//! the BEAM's distribution port buffers a scheduler's sends, instead of one `write` per
//! message.
//!
//! The end of a poll is the earliest moment the runtime knows the process has stopped
//! sending for now: a process that sends and then waits in `recv` ends its poll right
//! there, so a lone message (a round trip) waits for nothing. `current::leave` runs the
//! hook, so it runs on every path out of a poll (pending, returned, panicked, killed),
//! before the ending process's exit signals go out, which keeps them behind its messages.

use std::cell::Cell;

thread_local! {
    /// What to run when the poll in progress on this thread ends.
    static HOOK: Cell<Option<fn()>> = const { Cell::new(None) };
}

/// Asks for `flush` to run when the poll in progress on this thread ends; the caller has
/// checked that one is in progress (`current::pinned`). A second, different function runs
/// the first one at once (running it early is always allowed).
pub(crate) fn defer(flush: fn()) {
    if let Some(earlier) = HOOK.with(|h| h.replace(Some(flush))) {
        if !std::ptr::fn_addr_eq(earlier, flush) {
            earlier();
        }
    }
}

/// The end of a poll: one thread-local load when nothing was deferred.
#[inline]
pub(crate) fn run() {
    if HOOK.with(Cell::get).is_some() {
        run_now();
    }
}

#[cold]
#[inline(never)]
fn run_now() {
    if let Some(flush) = HOOK.with(Cell::take) {
        flush();
    }
}
