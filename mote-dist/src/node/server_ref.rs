//! `mote::server::ServerRef`s of servers on other nodes: the transport's half of their
//! calls, casts, info messages and stops (the `gen_server` protocol, through the same
//! call machinery as [`Node::call`]: the pending-call table, the monitor of the server),
//! and [`Node::server`], which makes one by `{Name, Node}`.

use std::any::Any;
use std::sync::Arc;

use mote::dist::{CallFailure, RemoteMessage, RemoteReply, ReplyDecoder, ServerAddress};
use mote::server::{Server, ServerRef};
use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, SeqAccess, Visitor};
use serde::Serialize;

use super::connections::Shared;
use super::gen_call::{OutgoingCall, Target, GEN_CALL, SYSTEM};
use super::{Node, RemoteCallError};
use crate::connection::{ControlMessage, FrameBuilder};
use crate::etf::Atom;
use crate::handshake::NodeName;
use crate::node_table;

impl Node {
    /// A reference to the server registered as `name` on `node` (Erlang's `{Name, Node}`),
    /// used as any [`ServerRef`]: [`call`](ServerRef::call), [`cast`](ServerRef::cast),
    /// [`info`](ServerRef::info) and [`stop`](ServerRef::stop) speak the `gen_server`
    /// protocol, so the server may be an Erlang `gen_server` or a mote server [`serve`]d
    /// by its node. The name is looked up there at each message, as Erlang does.
    ///
    /// Errors are those of a local call: `NoProc` if nobody holds the name, `Exit(reason)`
    /// if the server ends during the call, `Timeout`, and `Exit(NoConnection)` if the node
    /// cannot be reached or its connection is lost (Erlang's call exits with `{nodedown,
    /// Node}`). A request that does not encode, or a reply that does not decode as
    /// `S::Reply`, is logged and the call fails with `NoReply`. A malformed node name is a
    /// node that cannot be reached. `node` may be this node: the name is then looked up
    /// now ([`ServerRef::named`]).
    ///
    /// See [`mote::server::ServerRef::named_on`] for the deviations (its `id` is a
    /// placeholder; it does not serialize).
    ///
    /// [`serve`]: super::serve
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use mote::server::{Context, Next, ReplyTo, Server};
    ///
    /// /// The client's view of a key-value gen_server: `{get, Key}` answers the value.
    /// struct Kv;
    /// impl Server for Kv {
    ///     type Call = (mote_dist::etf::Atom, String);
    ///     type Reply = Option<String>;
    ///     type Cast = ();
    ///     type Info = ();
    /// }
    ///
    /// # async fn demo(node: mote_dist::node::Node) -> Result<(), Box<dyn std::error::Error>> {
    /// let kv = node.server::<Kv>("kv", "erl@127.0.0.1")?;
    /// let get = mote_dist::etf::Atom::new("get")?;
    /// let v = kv.call((get, "who".into()), Duration::from_secs(5)).await?;
    /// # let _ = v; Ok(()) }
    /// ```
    pub fn server<S>(&self, name: &str, node: &str) -> Result<ServerRef<S>, mote::RegistryError>
    where
        S: Server,
        S::Call: Serialize,
        S::Reply: DeserializeOwned,
        S::Cast: Serialize,
        S::Info: Serialize,
    {
        let number = match node.parse::<NodeName>() {
            Ok(n) if n == self.shared.local.name => 0,
            Ok(n) => node_table::node_number(n.atom()),
            // A malformed node name: no such node (a number nothing is connected to).
            Err(_) => u32::MAX,
        };
        ServerRef::named_on(name, number)
    }
}

/// The node's name and the target of `server`, or `NoConnection` for a node unknown here.
fn target(server: ServerAddress<'_>) -> Result<(Atom, Target), CallFailure> {
    let node = node_table::node_name(server.node()).ok_or(CallFailure::NoConnection)?;
    let target = match server {
        ServerAddress::Pid(id) => Target::Pid(node_table::to_wire(id)),
        ServerAddress::Name { name, .. } => {
            Target::Name(Atom::new(name.as_str()).map_err(|e| CallFailure::Codec(e.to_string()))?)
        }
    };
    Ok((node, target))
}

/// A [`RemoteCallError`] as the runtime's [`CallFailure`].
fn failure(e: RemoteCallError) -> CallFailure {
    match e {
        RemoteCallError::NoProc => CallFailure::NoProc,
        RemoteCallError::Exit(reason) => CallFailure::Exit(reason),
        RemoteCallError::NoConnection | RemoteCallError::BadAddress(_) => CallFailure::NoConnection,
        other => CallFailure::Codec(other.to_string()),
    }
}

/// Sends `{Label, {From, Tag}, Request}` to `server` under a monitor, now.
fn start<Req: Serialize + ?Sized>(
    shared: &Arc<Shared>,
    server: ServerAddress<'_>,
    label: &str,
    request: &Req,
) -> Result<OutgoingCall, CallFailure> {
    let (node, target) = target(server)?;
    shared
        .start_call(target, &node, label, request)
        .map_err(failure)
}

/// `Transport::call`: the request is sent before this returns.
pub(super) fn call(
    shared: &Arc<Shared>,
    server: ServerAddress<'_>,
    request: RemoteMessage,
    reply: ReplyDecoder,
) -> RemoteReply {
    let started = start(shared, server, GEN_CALL, request.serialize());
    let opts = shared.serde;
    Box::pin(async move {
        let payload = started?.answer().await.map_err(failure)?;
        crate::serde::with_erased_deserializer(&payload, &opts, |d| Tagged(reply).deserialize(d))
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()))
            .map_err(|e| {
                CallFailure::Codec(format!(
                    "the reply does not decode as {}: {e}",
                    reply.type_name()
                ))
            })
    })
}

/// `Transport::stop`: `{system, {From, Tag}, {terminate, Reason}}`, sent before this
/// returns; the call's monitor reports the end.
pub(super) fn stop(
    shared: &Arc<Shared>,
    server: ServerAddress<'_>,
    reason: &mote::ExitReason,
) -> RemoteReply {
    let request = (
        Atom::new("terminate").expect("a short atom"),
        super::terms::reason_to_wire(reason),
    );
    let started = start(shared, server, SYSTEM, &request);
    Box::pin(async move {
        // `sys` answers nothing to a terminate: a reply means the server did not end.
        started?.answer().await.map_err(failure)?;
        Ok(Box::new(()) as Box<dyn Any + Send>)
    })
}

/// `Transport::cast`: `{'$gen_cast', Request}`.
pub(super) fn cast(shared: &Arc<Shared>, server: ServerAddress<'_>, request: RemoteMessage) {
    let label = Atom::new("$gen_cast").expect("a short atom");
    send(
        shared,
        server,
        &(label, request.serialize()),
        request.type_name(),
    )
}

/// `Transport::send_named`.
pub(super) fn send_named(
    shared: &Arc<Shared>,
    node: u32,
    name: &mote::Atom,
    message: RemoteMessage,
) {
    let server = ServerAddress::Name { name, node };
    send(shared, server, message.serialize(), message.type_name())
}

/// Sends `payload` to `server` (SEND_SENDER to a pid, REG_SEND to a name), from the
/// calling process; dropped, as any send, if its node is unknown.
fn send<P: Serialize + ?Sized>(
    shared: &Arc<Shared>,
    server: ServerAddress<'_>,
    payload: &P,
    type_name: &str,
) {
    let Ok((node, target)) = target(server) else {
        return tracing::debug!(?server, "message to a server of an unknown node dropped");
    };
    let from = node_table::to_wire(mote::self_id().unwrap_or(mote::ProcessId::NONE));
    let control = match target {
        Target::Pid(to) => ControlMessage::SendSender { from, to },
        Target::Name(to_name) => ControlMessage::RegSend { from, to_name },
    };
    let frame = FrameBuilder::new(&control)
        .and_then(|f| f.payload(payload, &shared.serde))
        .and_then(FrameBuilder::finish_frame);
    match frame {
        Ok(frame) => shared.route(node, frame),
        Err(e) => tracing::warn!(
            ?server,
            message_type = type_name,
            "message to a server of another node not encodable, dropped: {e}"
        ),
    }
}

/// Decodes a call's `{Tag, Reply}`, the reply by its [`ReplyDecoder`].
struct Tagged(ReplyDecoder);

impl<'de> DeserializeSeed<'de> for Tagged {
    type Value = Box<dyn Any + Send>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_tuple(2, self)
    }
}

impl<'de> Visitor<'de> for Tagged {
    type Value = Box<dyn Any + Send>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a call's reply {Tag, Reply}")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        seq.next_element::<IgnoredAny>()?
            .ok_or_else(|| A::Error::invalid_length(0, &self))?;
        let reply = self.0;
        seq.next_element_seed(reply)?
            .ok_or_else(|| A::Error::invalid_length(1, &self))
    }
}
