//! Introspection: which processes exist and what each is doing.

use std::mem::size_of;
use std::sync::atomic::Ordering;

use crate::rt::signals;
use crate::rt::table::extras::{Extras, Watcher};
use crate::rt::table::{Slot, TABLE};
use crate::values::pid::ProcessId;
use crate::values::term::Atom;

/// What a process is doing, as far as the runtime can tell.
///
/// With the `serde` feature it serializes as its name in lower case (`"waiting"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Status {
    /// Blocked in a receive with an empty mailbox.
    Waiting,
    /// Running, queued to run, or waiting on something other than its mailbox (IO, a timer).
    Active,
    /// An exit signal is ending it.
    Exiting,
}

/// A snapshot of one process (Erlang's `process_info`). Serializable with the `serde`
/// feature.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ProcessInfo {
    /// The process.
    pub id: ProcessId,
    /// Its registered name.
    pub name: Option<Atom>,
    /// What it is doing.
    pub status: Status,
    /// Messages waiting in its mailbox, as the process last published it (when it last
    /// waited in or yielded from a receive). Counting every send would
    /// cost a locked instruction per message; `Process::mailbox_len` is exact.
    pub mailbox_len: u64,
    /// Processes linked to it.
    pub links: Vec<ProcessId>,
    /// Processes it monitors.
    pub monitors: Vec<ProcessId>,
    /// Processes monitoring it.
    pub monitored_by: Vec<ProcessId>,
    /// Whether it traps exits.
    pub trap_exit: bool,
    /// Messages it has received.
    pub messages_received: u64,
    /// Times it has been polled (wrapping at 2^24).
    pub polls: u64,
    /// Approximate bytes it uses: its task, its table entry, its relationships and queued
    /// message envelopes (not memory its messages or future point to).
    pub memory: usize,
}

/// The number of live processes.
///
/// ```
/// mote::run(|_p: mote::Process<()>| async { assert!(mote::process_count() >= 1) }).unwrap();
/// ```
pub fn process_count() -> usize {
    TABLE.live.load(Ordering::Relaxed)
}

/// The ids of all live processes, in table order.
///
/// ```
/// mote::run(|p: mote::Process<()>| async move {
///     assert!(mote::processes().contains(&p.id()));
/// })
/// .unwrap();
/// ```
pub fn processes() -> Vec<ProcessId> {
    TABLE.slots().filter_map(Slot::live_id).collect()
}

/// A snapshot of a live process, or `None` if it is not alive.
///
/// ```
/// mote::run(|p: mote::Process<u8>| async move {
///     mote::register("inspected", p.pid()).unwrap();
///     let info = mote::process_info(p.id()).unwrap();
///     assert_eq!(info.name.as_deref(), Some("inspected"));
///     assert!(info.memory > 0);
/// })
/// .unwrap();
/// ```
pub fn process_info(id: ProcessId) -> Option<ProcessInfo> {
    snapshot(id, true)
}

/// [`process_info`], with the relationship lists left empty unless `relations` (the
/// metrics want the counters of every process, not copies of their links).
pub(crate) fn snapshot(id: ProcessId, relations: bool) -> Option<ProcessInfo> {
    let (name, links, monitors, monitored_by, trap_exit, signal_bytes) =
        signals::peek_live(id, |_, s| {
            // A process that never linked, monitored or took a name has no record.
            let Some(s) = s.as_deref() else {
                return (None, Vec::new(), Vec::new(), Vec::new(), false, 0);
            };
            let monitored_by = s.watchers.iter().filter_map(|(_, w)| match w {
                Watcher::Process { pid, .. } => Some(*pid),
                Watcher::ByName(w) => Some(w.pid),
                Watcher::Hook(_) | Watcher::Listener(_) => None,
            });
            let bytes = size_of::<Extras>()
                + s.links.capacity() * size_of::<ProcessId>()
                + s.watchers.capacity() * 32
                + s.watching.capacity() * 24;
            let name = s.name.as_ref().map(|n| n.name.clone());
            if !relations {
                return (name, Vec::new(), Vec::new(), Vec::new(), s.trap_exit, bytes);
            }
            (
                name,
                s.links.clone(),
                s.watching.iter().map(|(_, t)| *t).collect(),
                monitored_by.collect(),
                s.trap_exit,
                bytes,
            )
        })?;
    let slot = TABLE.lookup(id)?;
    let status = if slot.is_exit_pending() {
        Status::Exiting
    } else if slot.is_waiting() {
        Status::Waiting
    } else {
        Status::Active
    };
    let (messages_received, polls) = slot.work_counts();
    let mailbox_len = slot.queued();
    Some(ProcessInfo {
        id,
        name,
        status,
        mailbox_len,
        links,
        monitors,
        monitored_by,
        trap_exit,
        messages_received,
        polls,
        memory: size_of::<Slot>() + slot.task_bytes() + signal_bytes + mailbox_len as usize * 24,
    })
}
