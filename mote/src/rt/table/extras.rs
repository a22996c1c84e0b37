//! [`Extras`]: the part of a process's slot that only some processes need (links,
//! monitors, exit trapping, a registered name, a mailbox bound), behind the slot's lock and
//! allocated on first use, so a plain process pays one pointer for it.
//!
//! This file holds the record and the types it is made of; the rules that change it (Erlang's
//! links, monitors and exit signals) are in `rt::signals`.

use std::sync::Arc;

use super::ref_list::RefList;
use super::Slot;
use crate::values::exit::{Down, Exit, ExitReason};
use crate::values::pid::ProcessId;
use crate::values::registered_name;
use crate::values::term::Atom;

/// Pushes a `Down` into a watcher's mailbox, converted to the watcher's message type.
pub(crate) type DeliverDown = unsafe fn(&Slot, u32, Down) -> bool;
/// Pushes an `Exit` into a trapping process's mailbox, converted to its message type.
pub(crate) type DeliverExit = unsafe fn(&Slot, u32, Exit) -> bool;

/// Who is told when a monitored process ends.
pub(crate) enum Watcher {
    /// A process, with the conversion of `Down` into its message type.
    Process {
        pid: ProcessId,
        deliver: DeliverDown,
    },
    /// A process that monitors by name: its `Down` names the name. Boxed, so that the
    /// common entries stay small.
    ByName(Box<NameWatcher>),
    /// Runtime code (the waiter of `run`): called once with the exit reason.
    Hook(ExitHook),
    /// A waiter that is not a mailbox (a call, a task's handle): told once, removable.
    Listener(Arc<dyn ExitListener>),
}

/// A process monitoring another by the name it held (see [`Watcher::ByName`]).
pub(crate) struct NameWatcher {
    pub(crate) pid: ProcessId,
    pub(crate) deliver: DeliverDown,
    pub(crate) name: registered_name::RegisteredName,
}

/// Runtime state told of a watched process's exit: see `rt::signals::watch`.
pub(crate) trait ExitListener: Send + Sync {
    /// Called once, with no lock held, when the watched process has ended.
    fn exited(&self, reason: &ExitReason);
}

/// Runtime code run once with a process's exit reason.
pub(crate) type ExitHook = Box<dyn FnOnce(&ExitReason) + Send>;

/// A registered name, and how to free it when its process ends.
///
/// The registry is a layer above this one: it hands down the function that frees the name,
/// and the exit path calls it before any exit signal goes out (a supervisor told of the
/// exit may restart the process under the same name at once, as in Erlang).
pub(crate) struct RegisteredName {
    pub(crate) name: Atom,
    /// Frees `name` in the registry if `ProcessId` still owns it.
    pub(crate) release: fn(&str, ProcessId),
}

/// A process's links, monitors, flags, name and mailbox bound.
#[derive(Default)]
pub(crate) struct Extras {
    pub(crate) links: Vec<ProcessId>,
    /// Monitors on this process.
    pub(crate) watchers: RefList<Watcher>,
    /// Monitors this process holds on others.
    pub(crate) watching: RefList<ProcessId>,
    pub(crate) trap_exit: bool,
    pub(crate) deliver_exit: Option<DeliverExit>,
    /// An exit signal that must end the process at its next poll.
    pub(crate) pending_exit: Option<ExitReason>,
    pub(crate) name: Option<RegisteredName>,
    /// The permits of a bounded mailbox; closed when the process ends.
    pub(crate) bound: Option<Arc<tokio::sync::Semaphore>>,
    /// What a behaviour (a server, a supervisor) says its process is, so that a typed
    /// reference can be made from the bare id with a check (`ServerRef::from_id`).
    pub(crate) behaviour: Option<std::any::TypeId>,
    /// How a message from another node becomes this process's message type, once the
    /// process is exposed to other nodes (`mote::dist::expose`).
    #[cfg(feature = "dist")]
    pub(crate) inbox: Option<Inbox>,
    /// How to deliver the `Down` of each monitor this process holds on a process of
    /// another node (the target's side lives on that node).
    /// For a monitor by `{Name, Node}`, the name its `Down` carries.
    #[cfg(feature = "dist")]
    pub(crate) remote_downs: Vec<RemoteDown>,
}

/// A process's message type, and the function that decodes a message from another node
/// into it and queues it (monomorphized for that type when the process was exposed).
#[cfg(feature = "dist")]
#[derive(Clone, Copy)]
pub(crate) struct Inbox {
    pub(crate) message_type: std::any::TypeId,
    pub(crate) decode: DecodeInto,
}

/// A monitor held on a process of another node: its reference, the conversion of its
/// `Down`, and for a monitor by `{Name, Node}` the name the `Down` carries.
#[cfg(feature = "dist")]
pub(crate) struct RemoteDown {
    pub(crate) monitor: crate::values::monitor_ref::MonitorRef,
    pub(crate) deliver: DeliverDown,
    pub(crate) by_name: Option<Box<crate::values::registered_name::RegisteredName>>,
}

/// See [`Inbox`].
#[cfg(feature = "dist")]
pub(crate) type DecodeInto = for<'de> fn(
    ProcessId,
    &mut dyn erased_serde::Deserializer<'de>,
) -> Result<(), erased_serde::Error>;
