//! Mailboxes: the lock-free queue every process receives from.
//!
//! The queue itself is in [`queue`]; the protocol that parks an empty receiver and wakes it
//! when a message arrives lives with the rest of a process's shared state in
//! `rt::table::slot`, because it shares one atomic word with the slot's liveness and reference
//! count; its loom models are in `rt/table/loom_tests.rs`.

pub(crate) mod leftovers;
pub(crate) mod queue;
