//! Links, monitors and exit signals across nodes.
//!
//! The runtime keeps each local process's side of a relationship (a remote pid in its
//! links, a remote monitor in its watching list); this module keeps, per peer node, the
//! relationships that cross that connection, because Erlang's rule is that losing the
//! connection fires all of them with `noconnection`:
//!
//! * `links`: (local, remote) pairs, made by either side, removed by unlink or by the exit
//!   signal that travels over them;
//! * `ours`: monitors local processes hold on the peer's processes (fired by
//!   MONITOR_P_EXIT, or `noconnection`);
//! * `theirs`: monitors the peer's processes hold on local ones (a watch on the local
//!   process that sends MONITOR_P_EXIT when it ends; dropped with the connection).
//!
//! Every signal is queued on the same connection as the sender's messages, in program
//! order, so a link or exit signal never overtakes an earlier message of the same sender.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use bytes::Bytes;
use mote::{ExitReason, MonitorRef, ProcessId};

use super::connections::Shared;
use super::terms::{pid, reason_from_wire, reason_to_wire};
use crate::connection::{ControlMessage, DistMessage, FrameBuilder, ProcessRef};
use crate::etf::{Atom, ErlRef, WireTerm};
use crate::node_table;

/// The relationships that cross one connection.
#[derive(Default)]
pub(crate) struct Relations {
    links: HashSet<(ProcessId, ProcessId)>,
    /// Watcher, target, and the name for a monitor by `{Name, Node}` (whose target is
    /// `mote::dist::name_monitor_target`).
    ours: HashMap<MonitorRef, (ProcessId, ProcessId, Option<Atom>)>,
    theirs: HashMap<ErlRef, (ProcessId, MonitorRef)>,
}

/// The wire reference of a monitor made here.
fn wire_ref(r: MonitorRef) -> ErlRef {
    let (node, creation) = node_table::local();
    let raw = r.into_raw();
    ErlRef::new(node, creation, &[raw as u32, (raw >> 32) as u32, 0])
        .expect("three words make a reference")
}

/// The monitor a wire reference made here names.
fn monitor_ref(r: &ErlRef) -> Option<MonitorRef> {
    let (node, creation) = node_table::local();
    match r.ids() {
        [lo, hi, 0] if r.node == node && r.creation == creation => Some(MonitorRef::from_raw(
            u64::from(*lo) | (u64::from(*hi) << 32),
        )),
        _ => None,
    }
}

fn frame(control: ControlMessage, payload: Option<&WireTerm>) -> Option<Bytes> {
    let built = FrameBuilder::new(&control).and_then(|f| match payload {
        Some(p) => f.payload_term(p),
        None => Ok(f),
    });
    match built.and_then(FrameBuilder::finish) {
        Ok(frame) => Some(frame),
        Err(e) => {
            tracing::warn!(op = control.op(), "signal not encodable, dropped: {e}");
            None
        }
    }
}

impl Shared {
    fn node_of(&self, id: ProcessId) -> Option<Atom> {
        node_table::node_name(id.node()).filter(|_| id.node() != 0)
    }

    fn relations<R>(&self, peer: &Atom, f: impl FnOnce(&mut Relations) -> R) -> R {
        f(self.relations.lock().entry(peer.clone()).or_default())
    }

    fn signal(self: &Arc<Self>, peer: Atom, control: ControlMessage, payload: Option<&WireTerm>) {
        if let Some(frame) = frame(control, payload) {
            self.route(peer, frame);
        }
    }

    // ---- from local processes (the runtime's transport calls) ----

    pub(crate) fn link_out(self: &Arc<Self>, from: ProcessId, to: ProcessId) {
        let Some(peer) = self.node_of(to) else { return };
        self.relations(&peer, |r| r.links.insert((from, to)));
        let control = ControlMessage::Link {
            from: node_table::to_wire(from),
            to: node_table::to_wire(to),
        };
        self.signal(peer, control, None);
    }

    pub(crate) fn unlink_out(self: &Arc<Self>, from: ProcessId, to: ProcessId) {
        let Some(peer) = self.node_of(to) else { return };
        self.relations(&peer, |r| r.links.remove(&(from, to)));
        let id = self
            .next_unlink
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let control = ControlMessage::UnlinkId {
            id,
            from: node_table::to_wire(from),
            to: node_table::to_wire(to),
        };
        self.signal(peer, control, None);
    }

    pub(crate) fn exit_out(
        self: &Arc<Self>,
        from: ProcessId,
        to: ProcessId,
        reason: &ExitReason,
        via_link: bool,
    ) {
        let Some(peer) = self.node_of(to) else { return };
        let (from_w, to_w) = (node_table::to_wire(from), node_table::to_wire(to));
        let control = if via_link {
            self.relations(&peer, |r| r.links.remove(&(from, to)));
            ControlMessage::PayloadExit {
                from: from_w,
                to: to_w,
            }
        } else {
            ControlMessage::PayloadExit2 {
                from: from_w,
                to: to_w,
            }
        };
        self.signal(peer, control, Some(&reason_to_wire(reason)));
    }

    pub(crate) fn monitor_out(
        self: &Arc<Self>,
        watcher: ProcessId,
        target: ProcessId,
        r: MonitorRef,
    ) {
        let Some(peer) = self.node_of(target) else {
            return;
        };
        self.relations(&peer, |rel| rel.ours.insert(r, (watcher, target, None)));
        let control = ControlMessage::MonitorP {
            from: node_table::to_wire(watcher),
            to: ProcessRef::Pid(node_table::to_wire(target)),
            reference: wire_ref(r),
        };
        self.signal(peer, control, None);
    }

    pub(crate) fn demonitor_out(
        self: &Arc<Self>,
        watcher: ProcessId,
        target: ProcessId,
        r: MonitorRef,
    ) {
        let Some(peer) = self.node_of(target) else {
            return;
        };
        let name = self
            .relations(&peer, |rel| rel.ours.remove(&r))
            .and_then(|(_, _, name)| name);
        let to = match name {
            Some(name) => ProcessRef::Name(name),
            None => ProcessRef::Pid(node_table::to_wire(target)),
        };
        let control = ControlMessage::DemonitorP {
            from: node_table::to_wire(watcher),
            to,
            reference: wire_ref(r),
        };
        self.signal(peer, control, None);
    }

    pub(crate) fn monitor_name_out(
        self: &Arc<Self>,
        watcher: ProcessId,
        node: u32,
        name: &mote::Atom,
        r: MonitorRef,
    ) {
        let target = mote::dist::name_monitor_target(node);
        let (Some(peer), Ok(name)) = (self.node_of(target), Atom::new(name)) else {
            // No such node: it cannot be reached.
            mote::dist::down_from_remote(watcher, r, target, ExitReason::NoConnection);
            return;
        };
        self.relations(&peer, |rel| {
            rel.ours.insert(r, (watcher, target, Some(name.clone())))
        });
        let control = ControlMessage::MonitorP {
            from: node_table::to_wire(watcher),
            to: ProcessRef::Name(name),
            reference: wire_ref(r),
        };
        self.signal(peer, control, None);
    }

    // ---- from the peer ----

    /// Handles a link, unlink, exit or monitor signal from `peer`; false if `msg` is none.
    pub(crate) fn handle_signal(self: &Arc<Self>, peer: &Atom, msg: &DistMessage) -> bool {
        use ControlMessage as C;
        let payload_reason = || {
            msg.payload_term(&self.serde.limits)
                .map(|t| reason_from_wire(&t))
                .unwrap_or_else(|_| ExitReason::custom("undecodable exit reason"))
        };
        match &msg.control {
            C::Link { from, to } => {
                let (remote, local) = (pid(from), pid(to));
                if local.is_local() && mote::dist::link_from_remote(local, remote) {
                    self.relations(peer, |r| r.links.insert((local, remote)));
                } else {
                    // Erlang's answer to a link to a dead process.
                    let control = C::PayloadExit {
                        from: to.clone(),
                        to: from.clone(),
                    };
                    self.signal(
                        peer.clone(),
                        control,
                        Some(&WireTerm::atom("noproc").unwrap()),
                    );
                }
            }
            C::Unlink { from, to } => self.unlink_in(peer, pid(to), pid(from)),
            C::UnlinkId { id, from, to } => {
                self.unlink_in(peer, pid(to), pid(from));
                let ack = C::UnlinkIdAck {
                    id: *id,
                    from: to.clone(),
                    to: from.clone(),
                };
                self.signal(peer.clone(), ack, None);
            }
            C::UnlinkIdAck { .. } => {}
            C::Exit { from, to, reason }
            | C::ExitTt {
                from, to, reason, ..
            } => self.exit_in(peer, pid(to), pid(from), reason_from_wire(reason), true),
            C::PayloadExit { from, to } | C::PayloadExitTt { from, to, .. } => {
                self.exit_in(peer, pid(to), pid(from), payload_reason(), true)
            }
            C::Exit2 { from, to, reason }
            | C::Exit2Tt {
                from, to, reason, ..
            } => self.exit_in(peer, pid(to), pid(from), reason_from_wire(reason), false),
            C::PayloadExit2 { from, to } | C::PayloadExit2Tt { from, to, .. } => {
                self.exit_in(peer, pid(to), pid(from), payload_reason(), false)
            }
            C::MonitorP {
                from,
                to,
                reference,
            } => self.monitor_in(peer, from.clone(), to.clone(), reference.clone()),
            C::DemonitorP { reference, .. } => {
                if let Some((target, r)) = self.relations(peer, |rel| rel.theirs.remove(reference))
                {
                    mote::dist::unwatch_for_remote(target, r);
                }
            }
            C::MonitorPExit {
                from,
                to,
                reference,
                reason,
            } => self.down_in(peer, from, to, reference, reason_from_wire(reason)),
            C::PayloadMonitorPExit {
                from,
                to,
                reference,
            } => self.down_in(peer, from, to, reference, payload_reason()),
            _ => return false,
        }
        true
    }

    /// Names the node answers itself (see `incoming.rs`).
    pub(crate) fn is_service(name: &Atom) -> bool {
        matches!(name.as_str(), "net_kernel" | "rex")
    }

    fn unlink_in(&self, peer: &Atom, local: ProcessId, remote: ProcessId) {
        self.relations(peer, |r| r.links.remove(&(local, remote)));
        mote::dist::unlink_from_remote(local, remote);
    }

    fn exit_in(
        &self,
        peer: &Atom,
        local: ProcessId,
        remote: ProcessId,
        reason: ExitReason,
        via_link: bool,
    ) {
        if via_link {
            self.relations(peer, |r| r.links.remove(&(local, remote)));
        }
        mote::dist::exit_from_remote(local, remote, reason, via_link);
    }

    /// Records a link made here on a peer's behalf (a spawn with `link`).
    pub(crate) fn note_link(&self, peer: &Atom, local: ProcessId, remote: ProcessId) {
        self.relations(peer, |r| r.links.insert((local, remote)));
    }

    pub(crate) fn monitor_in(
        self: &Arc<Self>,
        peer: &Atom,
        from: crate::etf::ErlPid,
        to: ProcessRef,
        reference: ErlRef,
    ) {
        let target = match &to {
            ProcessRef::Pid(p) => Some(pid(p)).filter(|id| id.is_local()),
            // The node's own services (`net_kernel`) live as long as the node: a call
            // to them (`net_adm:ping` is one) monitors them first, and that monitor only
            // ends with the connection.
            ProcessRef::Name(name) if Self::is_service(name) => return,
            ProcessRef::Name(name) => mote::whereis(name.as_str()),
        };
        let shared = Arc::downgrade(self);
        let (peer2, from2, to2, ref2) = (peer.clone(), from.clone(), to.clone(), reference.clone());
        let watched = target.and_then(|target| {
            let r = mote::dist::watch_for_remote(target, move |reason| {
                if let Some(shared) = shared.upgrade() {
                    shared.relations(&peer2, |rel| rel.theirs.remove(&ref2));
                    let control = ControlMessage::PayloadMonitorPExit {
                        from: to2,
                        to: from2,
                        reference: ref2,
                    };
                    shared.signal(peer2, control, Some(&reason_to_wire(reason)));
                }
            })?;
            Some((target, r))
        });
        match watched {
            Some((target, r)) => {
                self.relations(peer, |rel| rel.theirs.insert(reference, (target, r)));
            }
            None => {
                let control = ControlMessage::PayloadMonitorPExit {
                    from: to,
                    to: from,
                    reference,
                };
                self.signal(
                    peer.clone(),
                    control,
                    Some(&WireTerm::atom("noproc").unwrap()),
                );
            }
        }
    }

    fn down_in(
        &self,
        peer: &Atom,
        from: &ProcessRef,
        to: &crate::etf::ErlPid,
        reference: &ErlRef,
        reason: ExitReason,
    ) {
        // A call's monitor of its server (its reference is the call's tag).
        if super::gen_call::server_down(reference, &reason) {
            return;
        }
        let Some(r) = monitor_ref(reference) else {
            return;
        };
        let Some((watcher, target, _)) = self.relations(peer, |rel| rel.ours.remove(&r)) else {
            return;
        };
        debug_assert!(matches!(from, ProcessRef::Pid(_) | ProcessRef::Name(_)));
        let _ = to;
        mote::dist::down_from_remote(watcher, r, target, reason);
    }

    /// The connection to `peer` is gone (`was_up`) or could not be made: every link and monitor
    /// across it fires with `noconnection`, and the peer's monitors of local processes go.
    pub(crate) fn node_down(&self, peer: &Atom, was_up: bool) {
        self.tell_down(peer, was_up);
        super::gen_call::node_down(peer);
        let Some(rel) = self.relations.lock().remove(peer) else {
            return;
        };
        for (local, remote) in rel.links {
            mote::dist::exit_from_remote(local, remote, ExitReason::NoConnection, true);
        }
        for (r, (watcher, target, _)) in rel.ours {
            mote::dist::down_from_remote(watcher, r, target, ExitReason::NoConnection);
        }
        for (target, r) in rel.theirs.into_values() {
            mote::dist::unwatch_for_remote(target, r);
        }
    }
}
