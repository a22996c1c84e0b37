//! The node as mote's distribution transport: `Pid::send` to a pid of another node
//! arrives here, is encoded into a frame on the sender's thread and queued on the
//! connection to that node; calls, casts and stops through a `ServerRef` of another node
//! arrive here too (`server_ref.rs`).

use std::sync::Arc;

use mote::dist::{RemoteMessage, RemoteReply, ReplyDecoder, ServerAddress, Transport};
use mote::ProcessId;

use super::connections::Shared;
use crate::connection::{ControlMessage, FrameBuilder};
use crate::node_table;

pub(crate) struct NodeTransport {
    pub(crate) shared: Arc<Shared>,
}

impl Transport for NodeTransport {
    fn link(&self, from: ProcessId, to: ProcessId) {
        self.shared.link_out(from, to)
    }

    fn unlink(&self, from: ProcessId, to: ProcessId) {
        self.shared.unlink_out(from, to)
    }

    fn exit(&self, from: ProcessId, to: ProcessId, reason: &mote::ExitReason, via_link: bool) {
        self.shared.exit_out(from, to, reason, via_link)
    }

    fn monitor(&self, watcher: ProcessId, target: ProcessId, monitor: mote::MonitorRef) {
        self.shared.monitor_out(watcher, target, monitor)
    }

    fn monitor_name(
        &self,
        watcher: ProcessId,
        node: u32,
        name: &mote::Atom,
        monitor: mote::MonitorRef,
    ) {
        self.shared.monitor_name_out(watcher, node, name, monitor)
    }

    fn demonitor(&self, watcher: ProcessId, target: ProcessId, monitor: mote::MonitorRef) {
        self.shared.demonitor_out(watcher, target, monitor)
    }

    fn call(
        &self,
        server: ServerAddress<'_>,
        request: RemoteMessage,
        reply: ReplyDecoder,
    ) -> RemoteReply {
        super::server_ref::call(&self.shared, server, request, reply)
    }

    fn stop(&self, server: ServerAddress<'_>, reason: &mote::ExitReason) -> RemoteReply {
        super::server_ref::stop(&self.shared, server, reason)
    }

    fn cast(&self, server: ServerAddress<'_>, request: RemoteMessage) {
        super::server_ref::cast(&self.shared, server, request)
    }

    fn send_named(&self, node: u32, name: &mote::Atom, message: RemoteMessage) {
        super::server_ref::send_named(&self.shared, node, name, message)
    }

    fn busy(&self, node: u32) -> Option<mote::dist::Writable> {
        self.shared.busy(&node_table::node_name(node)?)
    }

    fn send(&self, to: ProcessId, message: RemoteMessage) {
        let Some(node) = node_table::node_name(to.node()) else {
            return;
        };
        let to_wire = node_table::to_wire(to);
        // SEND_SENDER names the sending process (OTP 26 requires the flag): Erlang's
        // `seq_trace` and error reports use it.
        let control = match mote::self_id() {
            Some(me) => ControlMessage::SendSender {
                from: node_table::to_wire(me),
                to: to_wire,
            },
            None => ControlMessage::Send { to: to_wire },
        };
        let frame = FrameBuilder::new(&control)
            .and_then(|f| f.payload(message.serialize(), &self.shared.serde))
            .and_then(FrameBuilder::finish_frame);
        match frame {
            Ok(frame) => self.shared.route(node, frame),
            Err(e) => tracing::warn!(
                %to,
                message_type = message.type_name(),
                "message to another node not encodable, dropped: {e}"
            ),
        }
    }
}
