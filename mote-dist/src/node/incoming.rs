//! What the node does with each message a peer sends: messages to local processes are
//! decoded into the receiver's type and queued; `net_kernel`'s `is_auth` (what
//! `net_adm:ping` calls) is answered `yes`.

use bytes::Bytes;

use super::connections::Shared;
use crate::connection::{ControlMessage, DistMessage, DistSender, GenCall};
use crate::etf::{Atom, ErlPid, WireTerm};
use crate::node_table;

impl Shared {
    /// Handles one message from `peer`.
    pub(crate) fn handle(&self, peer: &Atom, sender: &DistSender, msg: DistMessage) {
        // Calls, their replies, rpc and spawn requests (node/gen_call.rs, node/rpc.rs).
        if self.intercept(peer, sender, &msg) {
            return;
        }
        match &msg.control {
            ControlMessage::Send { to }
            | ControlMessage::SendSender { to, .. }
            | ControlMessage::SendTt { to, .. }
            | ControlMessage::SendSenderTt { to, .. } => self.to_pid(peer, to, &msg.payload),
            ControlMessage::RegSend { to_name, .. } | ControlMessage::RegSendTt { to_name, .. } => {
                if to_name.as_str() == "net_kernel" {
                    if let Some(reply) = self.net_kernel(&msg.payload) {
                        let _ = sender.send_now(reply);
                    }
                    return;
                }
                self.to_name(peer, to_name, &msg.payload)
            }
            other => {
                tracing::debug!(peer = %peer, op = other.op(), "control message not handled yet")
            }
        }
    }

    /// A frame this node addressed to itself (`send_named` to its own name).
    pub(crate) fn handle_local(&self, frame: Bytes) {
        match DistMessage::parse(frame.slice(4..), &self.serde.limits) {
            Ok(msg) => {
                let me = self.local.name.atom().clone();
                if let ControlMessage::RegSend { to_name, .. } = &msg.control {
                    self.to_name(&me, to_name, &msg.payload);
                }
            }
            Err(e) => tracing::warn!("local frame unreadable: {e}"),
        }
    }

    fn to_pid(&self, peer: &Atom, to: &ErlPid, payload: &Option<Bytes>) {
        let id = node_table::from_wire(to);
        if !id.is_local() {
            tracing::debug!(peer = %peer, to = ?to, "message for a pid not of this node dropped");
            return;
        }
        self.deliver(peer, id, payload);
    }

    fn to_name(&self, peer: &Atom, name: &Atom, payload: &Option<Bytes>) {
        match mote::whereis(name.as_str()) {
            Some(id) => self.deliver(peer, id, payload),
            None => {
                tracing::debug!(peer = %peer, name = %name, "message to an unregistered name dropped")
            }
        }
    }

    fn deliver(&self, peer: &Atom, to: mote::ProcessId, payload: &Option<Bytes>) {
        let Some(payload) = payload else { return };
        // A large binary in the message stays in the frame's memory, not copied out.
        let result = crate::serde::with_shared_source(payload, || {
            crate::serde::with_erased_deserializer(payload, &self.serde, |d| {
                mote::dist::deliver(to, d)
            })
        });
        match result {
            Ok(Ok(())) | Ok(Err(mote::dist::DeliverError::NoProcess)) => {}
            Ok(Err(e)) => tracing::warn!(peer = %peer, %to, "message not delivered: {e}"),
            Err(e) => tracing::warn!(peer = %peer, %to, "message not delivered: {e}"),
        }
    }

    /// `net_kernel`'s `{is_auth, Node}` call: answered `yes` (the handshake already
    /// checked the cookie).
    fn net_kernel(&self, payload: &Option<Bytes>) -> Option<Bytes> {
        let call = GenCall::parse(payload.as_ref()?, &self.serde.limits)?;
        match &call.request {
            WireTerm::Tuple(t) if t.first() == Some(&WireTerm::atom("is_auth").ok()?) => {
                call.reply_frame(&WireTerm::atom("yes").ok()?).ok()
            }
            _ => None,
        }
    }
}
