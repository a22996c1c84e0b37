//! Mailboxes: the lock-free queue every process receives from.
//!
//! The queue itself is in [`queue`]; the protocol that parks an empty receiver and wakes it
//! when a message arrives lives with the rest of a process's shared state in
//! `table::slot`, because it shares one atomic word with the slot's liveness and reference
//! count.

pub(crate) mod queue;
