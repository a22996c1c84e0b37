//! Messages left over: those still queued when a process's slot is recycled, which reached
//! it after it had ended. Their destructors can tell ([`dropping_leftovers`]): a call's reply
//! slot dropped so answers `noproc`, as a call to a dead server does.

use std::cell::Cell;

thread_local! {
    /// Whether the values being dropped on this thread are leftover messages.
    static LEFTOVERS: Cell<bool> = const { Cell::new(false) };
}

/// Runs `drop_messages`, which drops the messages left in the mailbox of a process that has
/// ended, with [`dropping_leftovers`] true.
pub(crate) fn as_leftovers(drop_messages: impl FnOnce()) {
    let outer = LEFTOVERS.with(|l| l.replace(true));
    drop_messages();
    LEFTOVERS.with(|l| l.set(outer));
}

/// Whether the values being dropped now are messages that reached a process after it had
/// ended (see the module docs).
pub(crate) fn dropping_leftovers() -> bool {
    LEFTOVERS.with(Cell::get)
}
