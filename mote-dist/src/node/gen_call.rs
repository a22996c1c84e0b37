//! `gen_server` calls between this node and others, both ways.
//!
//! * **Into mote.** [`serve`] makes a typed mote [`Server`] answer
//!   `gen_server:call({Name, Node}, Request)` (and calls by its pid) from Erlang, Elixir or
//!   another mote node. The `{'$gen_call', {From, Tag}, Request}` message is taken from the
//!   connection before ordinary delivery, its request decoded into the server's
//!   [`Server::Call`] type, and the call made from a task of its own, so a slow server never
//!   holds up the connection's other messages. The reply goes back as `{Tag, Reply}`, the
//!   tag echoed exactly as received: through the caller's alias (ALIAS_SEND) when the tag
//!   is OTP 24's `[alias | Ref]`, so a reply that comes after the caller gave up is dropped
//!   by the caller's node instead of left in its mailbox, else by a plain send to `From`.
//!   Each call waits for its reply in a task of its own, so the replies to two calls
//!   outstanding at once (`gen_server:send_request`) may leave in either order.
//! * **Out of mote.** [`Node::call`] (by `{Name, Node}`) and [`Node::call_pid`] (by pid) call
//!   an Erlang `gen_server` (or a served mote server on another node); so do the calls and
//!   stops through a `ServerRef` of another node (`server_ref.rs`), through the same
//!   `Shared::start_call`. The caller's `From`
//!   is a pid of this node that no mote process can have (a process number beyond the
//!   runtime's table), served by the node itself; the tag is a fresh reference of this
//!   node, and the call waits in a table keyed by it, removed on reply, on timeout and when
//!   the caller's future is dropped, so a late reply finds no entry and is dropped: it
//!   never reaches a mailbox.
//!
//! As Erlang's `gen_server:call`, a call monitors its server (MONITOR_P from the node's
//! pid, under the call's tag, sent before the request on the same connection): a server
//! that is not alive fails the call with [`RemoteCallError::NoProc`], one that ends before
//! replying with [`RemoteCallError::Exit`] and its reason, a lost connection with
//! [`RemoteCallError::NoConnection`], all at once rather than at the timeout; the monitor
//! is removed when the call ends. In the other direction the Erlang caller's own monitor
//! of a served server works the same way; a served server that drops the call
//! ([`CallError::NoReply`]) or a request that does not decode (logged here) leaves the
//! Erlang caller to its timeout, as a gen_server that never replies does.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use bytes::Bytes;
use mote::server::{CallError, Server, ServerRef};
use mote::ProcessId;
use parking_lot::{Mutex, RwLock};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::Serialize;
use tokio::sync::oneshot;

use super::connections::Shared;
use super::Node;
use crate::connection::{ControlMessage, DistMessage, DistSender, Frame, FrameBuilder, ProcessRef};
use crate::etf::{Atom, DecodeError, EncodeError, ErlPid, ErlRef, WireTerm};
use crate::handshake::NodeName;
use crate::node_table;
use crate::serde::Options;

/// A boxed future that may move between threads.
pub(crate) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A reply on its way, its type erased.
pub(crate) type ErasedReply = Box<dyn erased_serde::Serialize + Send>;

/// The process number of the node's own pid: beyond mote's process table (about 2^28
/// slots), so it never names a mote process. Replies to calls made by [`Node::call`]
/// arrive there, and the node's services (`rex`) send from it.
const NODE_PROCESS_NUMBER: u32 = u32::MAX;

/// The node's own pid, with this node's current name and creation.
pub(crate) fn node_pid() -> ErlPid {
    node_table::to_wire(ProcessId::from_parts(0, NODE_PROCESS_NUMBER, 0, 0))
}

fn is_node_pid(id: ProcessId) -> bool {
    id.is_local() && id.number() == NODE_PROCESS_NUMBER
}

/// Makes the mote server `server` answer `gen_server:call`s from other nodes, addressed
/// as `{name, ThisNode}` or by the server's pid, and registers it as `name` (accepted if
/// the server already holds that name, as [`ServerOptions::name`] gives it).
///
/// The request decodes into `S::Call` and the reply encodes from `S::Reply` by the serde
/// mapping of [`crate::serde`]. The rest of the `gen_server` protocol is served too, so a
/// `ServerRef` of another node ([`Node::server`]) works in full: `{'$gen_cast', Request}`
/// decodes into `S::Cast` and is cast, any other message decodes into `S::Info` (one that
/// does not is logged and dropped), and `{system, From, {terminate, Reason}}`
/// (`gen_server:stop`) is answered `ok`, as `sys` does, and the server stopped with the
/// reason. A request that does not decode is logged and not answered:
/// the Erlang caller gets its `timeout` exit. The server is called with no timeout of its
/// own (the caller has one), from a task per call. The caller's monitor of the server (by
/// name, as `gen_server:call` makes it) sees the server end; a call the server drops
/// leaves the caller to its timeout.
///
/// [`ServerOptions::name`]: mote::server::ServerOptions::name
///
/// ```no_run
/// use mote::server::{self, Context, Next, ReplyTo, Server};
/// use serde::Deserialize;
///
/// #[derive(Deserialize)]
/// enum Call { Add(i64), Get }   // Erlang: {add, 5} and get
///
/// struct Counter(i64);
/// impl Server for Counter {
///     type Call = Call;
///     type Reply = i64;
///     type Cast = ();
///     type Info = ();
///     async fn handle_call(&mut self, call: Call, from: ReplyTo<i64>, _: &mut Context<Self>) -> Next {
///         if let Call::Add(n) = call { self.0 += n }
///         from.reply(self.0);
///         Next::Continue
///     }
/// }
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let _node = mote_dist::node::NodeOptions::new("mote@127.0.0.1").cookie("c").start().await?;
/// let counter = server::start(Counter(0)).await?;
/// mote_dist::node::serve("counter", counter)?;
/// // Erlang: 5 = gen_server:call({counter, 'mote@127.0.0.1'}, {add, 5}).
/// # Ok(()) }
/// ```
pub fn serve<S>(name: &str, server: ServerRef<S>) -> Result<(), mote::RegistryError>
where
    S: Server,
    S::Call: DeserializeOwned,
    S::Reply: Serialize,
    S::Cast: DeserializeOwned,
    S::Info: DeserializeOwned,
{
    match mote::register(name, server.pid()) {
        Ok(()) => {}
        Err(mote::RegistryError::NameTaken { owner, .. }) if owner == server.id() => {}
        Err(e) => return Err(e),
    }
    let mut served = SERVED.write();
    // Entries of servers that ended go now, so the table holds the live ones only.
    served.retain(|id, _| mote::is_alive(*id));
    served.insert(server.id(), Arc::new(Served(server)));
    Ok(())
}

/// A served server, its types erased.
trait CallHandler: Send + Sync {
    /// Decodes the request of the `$gen_call` in `payload` and makes the call; the future
    /// gives the reply, or why there is none.
    fn call(
        &self,
        payload: &[u8],
        opts: &Options,
    ) -> Result<BoxFuture<Result<ErasedReply, CallError>>, DecodeError>;

    /// Decodes the request of the `{'$gen_cast', Request}` in `payload` and casts it.
    fn cast(&self, payload: &[u8], opts: &Options) -> Result<(), DecodeError>;

    /// Decodes `payload` as an info message and sends it.
    fn info(&self, payload: &[u8], opts: &Options) -> Result<(), DecodeError>;

    /// Stops the server with `reason` (`sys:terminate`'s system message).
    fn stop(&self, reason: mote::ExitReason) -> BoxFuture<()>;
}

struct Served<S: Server>(ServerRef<S>);

impl<S> CallHandler for Served<S>
where
    S: Server,
    S::Call: DeserializeOwned,
    S::Reply: Serialize,
    S::Cast: DeserializeOwned,
    S::Info: DeserializeOwned,
{
    fn call(
        &self,
        payload: &[u8],
        opts: &Options,
    ) -> Result<BoxFuture<Result<ErasedReply, CallError>>, DecodeError> {
        let (_, _, request): (IgnoredAny, IgnoredAny, S::Call) =
            crate::serde::from_slice_with(payload, opts)?;
        // Sent now, in the connection's order; only the wait is left to the task.
        let reply = self.0.call(request, Duration::MAX);
        Ok(Box::pin(async move {
            reply.await.map(|r| Box::new(r) as ErasedReply)
        }))
    }

    fn cast(&self, payload: &[u8], opts: &Options) -> Result<(), DecodeError> {
        let (_, request): (IgnoredAny, S::Cast) = crate::serde::from_slice_with(payload, opts)?;
        self.0.cast(request);
        Ok(())
    }

    fn info(&self, payload: &[u8], opts: &Options) -> Result<(), DecodeError> {
        self.0.info(crate::serde::from_slice_with(payload, opts)?);
        Ok(())
    }

    fn stop(&self, reason: mote::ExitReason) -> BoxFuture<()> {
        let server = self.0;
        Box::pin(async move {
            // The caller's monitor sees the end; nothing is answered (as `sys` answers
            // nothing to a terminate: the server exits).
            if let Err(e) = server.stop(reason, Duration::MAX).await {
                tracing::debug!(server = %server.id(), "stop from another node: {e}");
            }
        })
    }
}

/// The served servers, by process id (a name resolves to its holder's id first, so a
/// server is reached by either).
static SERVED: LazyLock<RwLock<HashMap<ProcessId, Arc<dyn CallHandler>>>> =
    LazyLock::new(Default::default);

/// Where the answers to an intercepted message go.
#[derive(Clone)]
pub(crate) enum Replies {
    /// Back on the connection the message came on.
    Conn(DistSender),
    /// To this node itself (a call this node made to its own name or pids).
    Local,
}

impl Replies {
    pub(crate) fn send(&self, frame: impl Into<Frame>) {
        match self {
            Replies::Conn(sender) => {
                // The connection closed: the caller's node saw it go down, nothing to do.
                let _ = sender.send_frame(frame.into());
            }
            Replies::Local => {
                let frame = frame.into().into_contiguous();
                match DistMessage::parse(frame.slice(4..), &Options::default().limits) {
                    Ok(msg) => match &msg.control {
                        ControlMessage::Send { to } | ControlMessage::SendSender { to, .. }
                            if is_node_pid(node_table::from_wire(to)) =>
                        {
                            reply_arrived(msg.payload.as_ref(), &Options::default())
                        }
                        _ => tracing::debug!(
                            op = msg.control.op(),
                            "local answer not for this node's pid dropped"
                        ),
                    },
                    Err(e) => tracing::warn!("local answer unreadable: {e}"),
                }
            }
        }
    }
}

/// The `{'$gen_call', {From, Tag}, _}` around a request (or `{system, {From, Tag}, _}`
/// around a system message).
struct CallHeader {
    label: Atom,
    from: ErlPid,
    tag: WireTerm,
}

impl CallHeader {
    fn parse(payload: &[u8], opts: &Options) -> Option<CallHeader> {
        let (label, (from, tag), _): (Atom, (ErlPid, WireTerm), IgnoredAny) =
            crate::serde::from_slice_with(payload, opts).ok()?;
        (label == GEN_CALL || label == SYSTEM).then_some(CallHeader { label, from, tag })
    }
}

/// Whether `payload` is a `{'$gen_cast', _}`.
fn is_cast(payload: &[u8], opts: &Options) -> bool {
    crate::serde::from_slice_with::<(Atom, IgnoredAny)>(payload, opts)
        .is_ok_and(|(label, _)| label == "$gen_cast")
}

/// The reason of a `{system, From, {terminate, Reason}}` (what `sys:terminate` and so
/// `gen_server:stop` send), or `None` for another system message.
fn terminate_reason(payload: &[u8], opts: &Options) -> Option<mote::ExitReason> {
    let (_, _, (what, reason)): (IgnoredAny, IgnoredAny, (Atom, WireTerm)) =
        crate::serde::from_slice_with(payload, opts).ok()?;
    (what == "terminate").then(|| super::terms::reason_from_wire(&reason))
}

/// The frame that answers `{Tag, Reply}` to a `gen_server` caller: through its alias when
/// the tag is `[alias | Ref]` (or `[[alias | Ref] | _]`), else sent to its pid. `sender`
/// is the replying process.
pub(crate) fn reply_frame<R: Serialize + ?Sized>(
    sender: ErlPid,
    caller: &ErlPid,
    tag: &WireTerm,
    reply: &R,
    opts: &Options,
) -> Result<Frame, EncodeError> {
    let control = match alias_of(tag) {
        Some(alias) => ControlMessage::AliasSend {
            from: sender,
            alias: alias.clone(),
        },
        None => ControlMessage::SendSender {
            from: sender,
            to: caller.clone(),
        },
    };
    FrameBuilder::new(&control)?
        .payload(&(tag, reply), opts)?
        .finish_frame()
}

/// The alias in a tag of OTP 24's forms.
fn alias_of(tag: &WireTerm) -> Option<&ErlRef> {
    match tag {
        WireTerm::ImproperList(head, tail) if head.len() == 1 => match (&head[0], &**tail) {
            (WireTerm::Atom(a), WireTerm::Ref(r)) if a == "alias" => Some(r),
            _ => None,
        },
        WireTerm::ImproperList(head, _) | WireTerm::List(head) if !head.is_empty() => {
            alias_of(&head[0])
        }
        _ => None,
    }
}

impl Shared {
    /// Takes what this module and `rpc` serve out of the incoming stream: replies to this
    /// node's calls, calls to served servers, `rex` and spawn requests. `true` if taken,
    /// else the message goes on to ordinary delivery.
    pub(crate) fn intercept(&self, peer: &Atom, sender: &DistSender, msg: &DistMessage) -> bool {
        let replies = || Replies::Conn(sender.clone());
        match &msg.control {
            ControlMessage::Send { to }
            | ControlMessage::SendSender { to, .. }
            | ControlMessage::SendTt { to, .. }
            | ControlMessage::SendSenderTt { to, .. } => {
                let id = node_table::from_wire(to);
                id.is_local() && self.to_process(peer, id, msg.payload.as_ref(), replies)
            }
            ControlMessage::RegSend { to_name, .. } | ControlMessage::RegSendTt { to_name, .. } => {
                match mote::whereis(to_name.as_str()) {
                    Some(id) => self.to_process(peer, id, msg.payload.as_ref(), replies),
                    // Erlang's rpc server, unless a mote process took the name.
                    None if to_name == "rex" => {
                        self.rex(peer, replies(), msg.payload.as_ref());
                        true
                    }
                    None => false,
                }
            }
            ControlMessage::SpawnRequest { .. } | ControlMessage::SpawnRequestTt { .. } => {
                self.spawn_request(peer, sender, msg);
                true
            }
            _ => false,
        }
    }

    /// A message for local process `id`: taken if `id` is the node's pid (a reply) or a
    /// served server (a call).
    fn to_process(
        &self,
        peer: &Atom,
        id: ProcessId,
        payload: Option<&Bytes>,
        replies: impl FnOnce() -> Replies,
    ) -> bool {
        if is_node_pid(id) {
            reply_arrived(payload, &self.serde);
            return true;
        }
        let Some(handler) = SERVED.read().get(&id).cloned() else {
            return false;
        };
        let Some(payload) = payload else { return true };
        let Some(header) = CallHeader::parse(payload, &self.serde) else {
            // A cast, or an info message (anything else a process may be sent).
            let handled = if is_cast(payload, &self.serde) {
                handler.cast(payload, &self.serde)
            } else {
                handler.info(payload, &self.serde)
            };
            if let Err(e) = handled {
                tracing::warn!(peer = %peer, server = %id, "message to a served server does not decode as its cast or info type, dropped: {e}");
            }
            return true;
        };
        if header.label == SYSTEM {
            match terminate_reason(payload, &self.serde) {
                Some(reason) => {
                    // As `sys` does: `ok` to the caller, then the server terminates (its
                    // end reaches the caller through its monitor).
                    let ok = Atom::new("ok").expect("a short atom");
                    match reply_frame(
                        node_table::to_wire(id),
                        &header.from,
                        &header.tag,
                        &ok,
                        &self.serde,
                    ) {
                        Ok(frame) => replies().send(frame),
                        Err(e) => {
                            tracing::warn!(server = %id, "reply to terminate not encodable: {e}")
                        }
                    }
                    tokio::spawn(handler.stop(reason));
                }
                None => {
                    tracing::debug!(peer = %peer, server = %id, "system message other than terminate not answered")
                }
            }
            return true;
        }
        let call = match handler.call(payload, &self.serde) {
            Ok(call) => call,
            Err(e) => {
                tracing::warn!(peer = %peer, server = %id, caller = ?header.from, "call request does not decode, not answered: {e}");
                return true;
            }
        };
        let (opts, replies) = (self.serde, replies());
        tokio::spawn(async move {
            match call.await {
                Ok(reply) => match reply_frame(
                    node_table::to_wire(id),
                    &header.from,
                    &header.tag,
                    &reply,
                    &opts,
                ) {
                    Ok(frame) => replies.send(frame),
                    Err(e) => tracing::warn!(server = %id, "reply not encodable, not sent: {e}"),
                },
                Err(CallError::NoProc) => {
                    SERVED.write().remove(&id);
                    tracing::debug!(server = %id, "call to a served server that has ended");
                }
                Err(e) => tracing::debug!(server = %id, "call not answered: {e}"),
            }
        });
        true
    }
}

/// Why [`Node::call`] or [`Node::call_pid`] returned no reply.
///
/// ```
/// use mote_dist::node::RemoteCallError;
/// let e = RemoteCallError::Timeout;
/// assert_eq!(e.to_string(), "timeout: no reply in time");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemoteCallError {
    /// The name or the node name is malformed, or the pid names no node known here.
    #[error("bad address: {0}")]
    BadAddress(String),
    /// The server's node cannot be reached (Erlang's `noconnection`).
    #[error("noconnection: the node cannot be reached")]
    NoConnection,
    /// No reply within the timeout; a reply that comes later is dropped.
    #[error("timeout: no reply in time")]
    Timeout,
    /// No process has the name, or the pid's process is not alive (Erlang's `noproc`):
    /// the call's monitor of the server says so before any timeout.
    #[error("noproc: no such server")]
    NoProc,
    /// The server ended before it replied, with this reason (Erlang's call exits with it).
    #[error("the server ended before replying: {0}")]
    Exit(mote::ExitReason),
    /// The request could not be encoded.
    #[error("the request is not encodable: {0}")]
    Encode(#[from] EncodeError),
    /// The reply came but does not decode as the reply type asked for.
    #[error("the reply does not decode: {0}")]
    BadReply(DecodeError),
}

/// How a call ended, when it did not time out.
enum Answer {
    /// The server's `{Tag, Reply}`.
    Reply(Bytes),
    /// The call's monitor of the server fired (or its node was lost) with this reason.
    Down(mote::ExitReason),
}

/// A call waiting: the node it went to, where its answer goes, and whether a reply ends
/// it (a stop waits for the server's end: `sys` replies `ok` to a terminate, then the
/// server exits).
struct Waiter {
    node: Option<Atom>,
    answer: oneshot::Sender<Answer>,
    wants_reply: bool,
}

/// The calls this node waits on, by tag.
static PENDING: LazyLock<Mutex<HashMap<ErlRef, Waiter>>> = LazyLock::new(Default::default);

/// A call's entry in [`PENDING`], removed when dropped (reply, timeout, or the caller's
/// future dropped).
struct Pending {
    tag: ErlRef,
    reply: oneshot::Receiver<Answer>,
}

/// The end of the server of call `tag` (its monitor, whose reference is the call's tag,
/// fired): the call fails with the reason. False if `tag` is no call of this node.
pub(crate) fn server_down(tag: &ErlRef, reason: &mote::ExitReason) -> bool {
    match PENDING.lock().remove(tag) {
        Some(waiter) => {
            let _ = waiter.answer.send(Answer::Down(reason.clone()));
            true
        }
        None => false,
    }
}

/// The connection to `peer` is gone: every call to it fails with `noconnection`.
pub(crate) fn node_down(peer: &Atom) {
    let mut pending = PENDING.lock();
    let lost: Vec<ErlRef> = pending
        .iter()
        .filter(|(_, waiter)| waiter.node.as_ref() == Some(peer))
        .map(|(tag, _)| tag.clone())
        .collect();
    for tag in lost {
        if let Some(waiter) = pending.remove(&tag) {
            let _ = waiter
                .answer
                .send(Answer::Down(mote::ExitReason::NoConnection));
        }
    }
}

impl Pending {
    fn new(node: Option<Atom>, wants_reply: bool) -> Pending {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        // A random word tells our tags from those of an earlier run of this node name.
        static SALT: LazyLock<u32> = LazyLock::new(rand::random);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let (name, creation) = node_table::local();
        let tag =
            ErlRef::new(name, creation, &[n as u32, (n >> 32) as u32, *SALT]).expect("three words");
        let (tx, reply) = oneshot::channel();
        let waiter = Waiter {
            node,
            answer: tx,
            wants_reply,
        };
        PENDING.lock().insert(tag.clone(), waiter);
        Pending { tag, reply }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        PENDING.lock().remove(&self.tag);
    }
}

/// A message for the node's pid: the `{Tag, Reply}` of one of its calls, handed to the
/// caller if it still waits.
fn reply_arrived(payload: Option<&Bytes>, opts: &Options) {
    let Some(payload) = payload else { return };
    let Ok((tag, _)) = crate::serde::from_slice_with::<(ErlRef, IgnoredAny)>(payload, opts) else {
        tracing::debug!("message to the node's pid that is not a call reply dropped");
        return;
    };
    let mut pending = PENDING.lock();
    match pending.get(&tag) {
        Some(waiter) if waiter.wants_reply => {
            if let Some(waiter) = pending.remove(&tag) {
                let _ = waiter.answer.send(Answer::Reply(payload.clone()));
            }
        }
        Some(_) => tracing::debug!(?tag, "reply to a stop ignored: its end is the answer"),
        None => tracing::debug!(?tag, "late reply dropped: its call has ended"),
    }
}

/// Where a call goes.
pub(crate) enum Target {
    Name(Atom),
    Pid(ErlPid),
}

impl Node {
    /// Calls the `gen_server` registered as `name` on `node` (Erlang's
    /// `gen_server:call({Name, Node}, Request, Timeout)`) and decodes its reply as `Reply`.
    /// [`Duration::MAX`] waits forever, as `infinity` does.
    ///
    /// The request is encoded by the serde mapping of [`crate::serde`] (so `(Atom, i64)`
    /// is `{Atom, Int}`, a unit variant an atom). Errors are [`RemoteCallError`]s; a reply
    /// that comes after the timeout is dropped. `node` may be this node: a server made
    /// reachable with [`serve`] answers through the same encoding.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use mote_dist::etf::Atom;
    ///
    /// # async fn demo(node: mote_dist::node::Node) -> Result<(), mote_dist::node::RemoteCallError> {
    /// // Erlang: gen_server:call({kv, 'erl@127.0.0.1'}, {get, name}, 5000)
    /// let get = (Atom::new("get").unwrap(), Atom::new("name").unwrap());
    /// let v: String = node.call("kv", "erl@127.0.0.1", &get, Duration::from_secs(5)).await?;
    /// # let _ = v; Ok(()) }
    /// ```
    pub async fn call<Req, Reply>(
        &self,
        name: &str,
        node: &str,
        request: &Req,
        timeout: Duration,
    ) -> Result<Reply, RemoteCallError>
    where
        Req: Serialize + ?Sized,
        Reply: DeserializeOwned,
    {
        let to_name = Atom::new(name).map_err(|e| RemoteCallError::BadAddress(e.to_string()))?;
        let node = node
            .parse::<NodeName>()
            .map_err(|e| RemoteCallError::BadAddress(e.to_string()))?;
        self.call_to(Target::Name(to_name), node.atom(), request, timeout)
            .await
    }

    /// Calls the `gen_server` whose process is `server` (a pid of another node, as one
    /// arrives in a message: `Pid::id`; or of this node, for a server made reachable with
    /// [`serve`]). As [`Node::call`] otherwise.
    ///
    /// ```no_run
    /// use std::time::Duration;
    ///
    /// # async fn demo(node: mote_dist::node::Node, server: mote::Pid<String>) {
    /// let reply: Result<u64, _> = node.call_pid(server.id(), &"count", Duration::from_secs(5)).await;
    /// # let _ = reply; }
    /// ```
    pub async fn call_pid<Req, Reply>(
        &self,
        server: ProcessId,
        request: &Req,
        timeout: Duration,
    ) -> Result<Reply, RemoteCallError>
    where
        Req: Serialize + ?Sized,
        Reply: DeserializeOwned,
    {
        if node_table::node_name(server.node()).is_none() {
            return Err(RemoteCallError::BadAddress(format!(
                "{server} names no known node"
            )));
        }
        let pid = node_table::to_wire(server);
        let node = pid.node.clone();
        self.call_to(Target::Pid(pid), &node, request, timeout)
            .await
    }

    /// The calls made by [`Node::call`] and [`Node::call_pid`] that wait for a reply now
    /// (a diagnostic: a call that ended, by reply or timeout, is not counted).
    ///
    /// ```no_run
    /// # fn demo(node: mote_dist::node::Node) {
    /// println!("{} calls in flight", node.pending_calls());
    /// # }
    /// ```
    pub fn pending_calls(&self) -> usize {
        PENDING.lock().len()
    }

    async fn call_to<Req, Reply>(
        &self,
        target: Target,
        node: &Atom,
        request: &Req,
        timeout: Duration,
    ) -> Result<Reply, RemoteCallError>
    where
        Req: Serialize + ?Sized,
        Reply: DeserializeOwned,
    {
        let mut call = self.shared.start_call(target, node, GEN_CALL, request)?;
        let payload = tokio::time::timeout(timeout, call.answer())
            .await
            .map_err(|_| RemoteCallError::Timeout)??;
        let (_, reply): (IgnoredAny, Reply) =
            crate::serde::from_slice_with(&payload, &self.shared.serde)
                .map_err(RemoteCallError::BadReply)?;
        Ok(reply)
    }
}

/// The label of a `gen_server` call.
pub(crate) const GEN_CALL: &str = "$gen_call";
/// The label of a system message (`sys:terminate` sends `{terminate, Reason}` under it).
pub(crate) const SYSTEM: &str = "system";

/// A call sent and waiting for its answer (by `Shared::start_call`). Dropped, it ends
/// the call: its entry goes, so a late reply is dropped, and its monitor of the server is
/// removed (unless the monitor fired).
pub(crate) struct OutgoingCall {
    pending: Pending,
    shared: Arc<Shared>,
    node: Atom,
    /// DEMONITOR_P for the call's monitor, sent when the call ends; `None` once the
    /// monitor fired (or for a call to this node, which makes none).
    demonitor: Option<Bytes>,
}

impl OutgoingCall {
    /// The server's `{Tag, Reply}` payload, or why none came (no timeout of its own).
    pub(crate) async fn answer(&mut self) -> Result<Bytes, RemoteCallError> {
        // The sender goes only with the entry, which this call holds: never `Err`.
        let answer = (&mut self.pending.reply)
            .await
            .map_err(|_| RemoteCallError::Timeout)?;
        match answer {
            Answer::Reply(payload) => Ok(payload),
            Answer::Down(reason) => {
                // The monitor has fired: nothing to remove.
                self.demonitor = None;
                Err(match reason {
                    mote::ExitReason::NoProc => RemoteCallError::NoProc,
                    mote::ExitReason::NoConnection => RemoteCallError::NoConnection,
                    reason => RemoteCallError::Exit(reason),
                })
            }
        }
    }
}

impl Drop for OutgoingCall {
    fn drop(&mut self) {
        if let Some(frame) = self.demonitor.take() {
            self.shared.route(self.node.clone(), frame);
        }
    }
}

impl Shared {
    /// Sends `{Label, {From, Tag}, Request}` to `target` on `node` (this node's name
    /// too), under a monitor of the server made as `gen_server:call` makes it, and returns
    /// the call, waiting. Sent before this returns, on the connection's queue (dialled if
    /// needed; a dial that fails ends the call with `noconnection`), so the call keeps its
    /// order with the caller's earlier messages to that node.
    pub(crate) fn start_call<Req: Serialize + ?Sized>(
        self: &Arc<Self>,
        target: Target,
        node: &Atom,
        label: &str,
        request: &Req,
    ) -> Result<OutgoingCall, RemoteCallError> {
        let remote = node != self.local.name.atom();
        let pending = Pending::new(remote.then(|| node.clone()), label != SYSTEM);
        let from = node_pid();
        // The call monitors its server, as gen_server:call does, under the call's tag:
        // a server that is gone, or ends, fails the call at once (`noproc`, its reason),
        // and a lost connection with `noconnection`. Sent before the request, on the same
        // connection, so it is in place when the request arrives.
        let watched = match &target {
            Target::Name(name) => ProcessRef::Name(name.clone()),
            Target::Pid(pid) => ProcessRef::Pid(pid.clone()),
        };
        let monitor = ControlMessage::MonitorP {
            from: from.clone(),
            to: watched.clone(),
            reference: pending.tag.clone(),
        };
        let demonitor = ControlMessage::DemonitorP {
            from: from.clone(),
            to: watched,
            reference: pending.tag.clone(),
        };
        let envelope = (
            Atom::new(label).expect("a short atom"),
            (&from, &pending.tag),
            request,
        );
        let control = match target {
            Target::Name(to_name) => ControlMessage::RegSend {
                from: from.clone(),
                to_name,
            },
            Target::Pid(to) => ControlMessage::SendSender {
                from: from.clone(),
                to,
            },
        };
        let frame = FrameBuilder::new(&control)?
            .payload(&envelope, &self.serde)?
            .finish()?;
        let mut call = OutgoingCall {
            pending,
            shared: self.clone(),
            node: node.clone(),
            demonitor: None,
        };
        if remote {
            let monitor = FrameBuilder::new(&monitor)?.finish()?;
            call.demonitor = Some(FrameBuilder::new(&demonitor)?.finish()?);
            self.route(node.clone(), monitor);
            self.route(node.clone(), frame);
        } else {
            self.call_local(frame);
        }
        Ok(call)
    }

    /// A call this node makes to its own name or pid: served as one from another node
    /// would be, the answer handed straight back.
    fn call_local(&self, frame: Bytes) {
        let msg = match DistMessage::parse(frame.slice(4..), &self.serde.limits) {
            Ok(msg) => msg,
            Err(e) => return tracing::warn!("local call unreadable: {e}"),
        };
        let me = self.local.name.atom().clone();
        let id = match &msg.control {
            ControlMessage::RegSend { to_name, .. } => mote::whereis(to_name.as_str()),
            ControlMessage::SendSender { to, .. } => Some(node_table::from_wire(to)),
            _ => None,
        };
        let taken =
            id.is_some_and(|id| self.to_process(&me, id, msg.payload.as_ref(), || Replies::Local));
        if !taken {
            // Not a served server: delivered as any message is, and the call times out,
            // as it would from another node.
            self.handle_local(frame);
        }
    }
}
