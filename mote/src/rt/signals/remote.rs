//! Signals to processes of other nodes (the `dist` feature): where a link, an unlink, an
//! exit signal or a monitor names a pid whose node is not this one, the rules here hand it
//! to the distribution layer, which installs [`RemoteSignals`] once (through `mote::dist`).
//!
//! The local half of each relationship lives where a local one does: a remote pid in a
//! process's `links`, a remote monitor in its `watching` (plus the conversion of its `Down`
//! in `remote_downs`), so the process's end, `unlink` and `demonitor` treat both alike.

use std::sync::OnceLock;

use crate::values::exit::ExitReason;
use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::ProcessId;
use crate::values::term::Atom;

/// The target a monitor by `{Name, Node}` records until its `Down` names the process: an
/// id of that node that no process has (number `u32::MAX`).
pub(crate) fn by_name_target(node: u32) -> ProcessId {
    ProcessId::from_parts(node, u32::MAX, 0, u32::MAX)
}

/// What the distribution layer does with signals for processes of other nodes. Each call
/// is made on the signalling thread, after the local bookkeeping, and must not block.
pub(crate) trait RemoteSignals: Send + Sync {
    /// `from` (local) linked to `to` (remote).
    fn link(&self, from: ProcessId, to: ProcessId);
    /// `from` (local) removed its link to `to` (remote).
    fn unlink(&self, from: ProcessId, to: ProcessId);
    /// An exit signal from `from` (local, or [`ProcessId::NONE`]) to `to` (remote): a
    /// link's when `via_link`, else `exit/2`.
    fn exit(&self, from: ProcessId, to: ProcessId, reason: &ExitReason, via_link: bool);
    /// `watcher` (local) monitors `target` (remote) under `r`.
    fn monitor(&self, watcher: ProcessId, target: ProcessId, r: MonitorRef);
    /// `watcher` (local) monitors whatever process holds `name` on node `node` under `r`
    /// (its `watching` entry names the placeholder [`by_name_target`]`(node)`).
    fn monitor_name(&self, watcher: ProcessId, node: u32, name: &Atom, r: MonitorRef);
    /// `watcher` (local) dropped its monitor `r` of `target` (remote), or ended.
    fn demonitor(&self, watcher: ProcessId, target: ProcessId, r: MonitorRef);
}

static REMOTE: OnceLock<Box<dyn RemoteSignals>> = OnceLock::new();

/// Installs the distribution layer's signal handling; false if one was installed already.
pub(crate) fn install(remote: Box<dyn RemoteSignals>) -> bool {
    REMOTE.set(remote).is_ok()
}

/// The installed handling, if `id` is a process of another node that it can reach.
pub(crate) fn reach(id: ProcessId) -> Option<&'static dyn RemoteSignals> {
    if id.is_local() || id.node() == 0 {
        return None;
    }
    REMOTE.get().map(|r| &**r)
}
