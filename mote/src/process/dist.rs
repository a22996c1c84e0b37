//! The hook a distribution layer plugs into (the `dist` feature), so that a [`Pid`] may name
//! a process of another node and user code does not change.
//!
//! The runtime knows nothing of sockets or wire formats. A distribution layer (the
//! `mote-dist` crate) [`install`]s a [`Transport`]; from then on:
//!
//! * **Sending to a remote pid.** [`Pid::send`] on a pid of another node (its
//!   [`ProcessId::node`] is not `0`) hands the message to the transport as a
//!   [`RemoteMessage`], which the transport encodes through serde. A `Pid<M>` of another
//!   node can only be made by deserializing it, which needs `M: Serialize`, so every message
//!   that reaches the transport can be encoded.
//! * **Receiving from other nodes.** A local process is reachable from other nodes once it
//!   is [`expose`]d with its message type (which must be `DeserializeOwned`); the transport
//!   then [`deliver`]s each message for it, decoded straight into that type. A message for
//!   a process that is not exposed cannot be decoded and is refused with an error the
//!   transport logs.
//! * **Pids in messages.** A [`Pid<M>`] deserializes: a remote one for any `M: Serialize`,
//!   a local one only if its process is exposed with message type `M` (a typed pid made
//!   from data is checked, never trusted).
//!
//! **Deviation from Erlang:** a BEAM process receives any term from anywhere. A mote
//! process's mailbox is typed, so it declares the type it accepts from other nodes
//! (`expose`), and a message that does not decode as that type is refused (and logged by
//! the transport), not queued.
//!
//! ```
//! use std::sync::Arc;
//! use mote::dist::{self, RemoteMessage, Transport};
//! use mote::{Pid, Process};
//!
//! /// A transport that prints what it would put on the wire.
//! struct Print;
//! impl Transport for Print {
//!     fn send(&self, to: mote::ProcessId, message: RemoteMessage) {
//!         println!("to {to}: {}", serde_json::to_string(message.serialize()).unwrap());
//!     }
//! }
//! let _ = dist::install(Arc::new(Print)); // once per OS process
//!
//! mote::run(|mut p: Process<String>| async move {
//!     // A pid of node 3, as a message from that node would carry it.
//!     let remote: Pid<String> =
//!         serde_json::from_str(r#"{"node":3,"number":42,"serial":0,"creation":1}"#).unwrap();
//!     remote.send("hello".to_string()); // goes to the transport
//!
//!     // A message from another node, for this process once it is exposed.
//!     assert!(dist::expose(p.pid()));
//!     let mut json = serde_json::Deserializer::from_str(r#""hi there""#);
//!     dist::deliver(p.id(), &mut <dyn erased_serde::Deserializer>::erase(&mut json)).unwrap();
//!     assert_eq!(p.recv().await, "hi there");
//! })
//! .unwrap();
//! ```

/// The crate whose object-safe `Serialize` and `Deserializer` traits carry messages
/// between the runtime and the transport.
pub use erased_serde;

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;
use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};

use crate::rt::signals;
use crate::rt::table::extras::Inbox;
use crate::values::exit::ExitReason;
use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::{Pid, ProcessId};
use crate::values::term::Atom;

/// The struct name a [`ProcessId`] (and so a [`Pid`]) is serialized under, for a
/// serializer that has a word of its own for pids (Erlang's term format writes a pid
/// there, not a struct).
///
/// ```
/// assert_eq!(mote::dist::PROCESS_ID_STRUCT, "mote::ProcessId");
/// ```
pub const PROCESS_ID_STRUCT: &str = crate::values::serde_impls::PROCESS_ID_STRUCT;

/// What a distribution layer does with messages for processes of other nodes.
///
/// Installed once per OS process with [`install`]. `send` is called on the sender's thread,
/// inside the sender's `Pid::send`: it must not block (queue the message and return), and
/// it must keep the order of the messages one sender sends to one receiver.
///
/// ```
/// use mote::dist::{RemoteMessage, Transport};
///
/// struct Drop;
/// impl Transport for Drop {
///     fn send(&self, _to: mote::ProcessId, _message: RemoteMessage) {}
/// }
/// ```
pub trait Transport: Send + Sync + 'static {
    /// A message for `to`, a process of another node. Never fails: a message that cannot
    /// be delivered is dropped, as Erlang drops a message to a dead process.
    fn send(&self, to: ProcessId, message: RemoteMessage);

    /// Local process `from` linked to `to`, of another node (the runtime has recorded the
    /// link on `from`'s side). The other node answers a dead `to` with a `noproc` exit
    /// signal, which the transport hands to [`exit_from_remote`]. Default: dropped, as a
    /// signal to an unreachable node.
    fn link(&self, from: ProcessId, to: ProcessId) {
        let _ = (from, to);
    }

    /// Local process `from` removed its link to `to`, of another node.
    fn unlink(&self, from: ProcessId, to: ProcessId) {
        let _ = (from, to);
    }

    /// An exit signal from `from` (a local process, or [`ProcessId::NONE`]) to `to`, of
    /// another node: a link's (`from` ended) when `via_link`, else Erlang's `exit/2`.
    fn exit(&self, from: ProcessId, to: ProcessId, reason: &ExitReason, via_link: bool) {
        let _ = (from, to, reason, via_link);
    }

    /// Local process `watcher` monitors `target`, of another node, under `monitor`. The
    /// transport reports the target's end (or the loss of its node) with
    /// [`down_from_remote`].
    fn monitor(&self, watcher: ProcessId, target: ProcessId, monitor: MonitorRef) {
        let _ = (watcher, target, monitor);
    }

    /// Local process `watcher` monitors the process registered as `name` on node `node`
    /// (Erlang's `monitor(process, {Name, Node})`), under `monitor`. Its `Down` is reported
    /// with [`down_from_remote`], naming [`name_monitor_target`]`(node)` as the target.
    fn monitor_name(&self, watcher: ProcessId, node: u32, name: &Atom, monitor: MonitorRef) {
        let _ = (watcher, node, name, monitor);
    }

    /// Local process `watcher` removed its monitor of `target`, or ended. For a monitor by
    /// name, `target` is [`name_monitor_target`]`(node)`.
    fn demonitor(&self, watcher: ProcessId, target: ProcessId, monitor: MonitorRef) {
        let _ = (watcher, target, monitor);
    }

    /// A `gen_server` call to `server`, of another node: sends `request` (Erlang's
    /// `{'$gen_call', {From, Tag}, Request}`) and gives the reply, decoded by `reply`, or
    /// why there is none. The request must be queued before this returns, so a call keeps
    /// its order with the caller's earlier sends to that node; the future only waits, and
    /// has no timeout of its own: the caller drops it when it gives up, which must end
    /// whatever the call holds (its entry, its monitor of the server).
    ///
    /// Default: fails at once with [`CallFailure::Unsupported`].
    fn call(
        &self,
        server: ServerAddress<'_>,
        request: RemoteMessage,
        reply: ReplyDecoder,
    ) -> RemoteReply {
        let _ = (server, request, reply);
        Box::pin(std::future::ready(Err(CallFailure::Unsupported)))
    }

    /// Stops `server`, of another node, with `reason`, as Erlang's `gen_server:stop/3`
    /// does: a system message `{system, {From, Tag}, {terminate, Reason}}` sent as a call
    /// (what `sys:terminate` sends), under a monitor of the server. The future ends with
    /// the server's end, [`CallFailure::Exit`] and its exit reason (`Ok` would mean the
    /// server answered instead of ending). As [`Transport::call`] otherwise: sent before
    /// this returns, no timeout of its own, ended by dropping it.
    ///
    /// Default: fails at once with [`CallFailure::Unsupported`].
    fn stop(&self, server: ServerAddress<'_>, reason: &ExitReason) -> RemoteReply {
        let _ = (server, reason);
        Box::pin(std::future::ready(Err(CallFailure::Unsupported)))
    }

    /// A `gen_server` cast to `server`, of another node (Erlang's `{'$gen_cast',
    /// Request}`). Never fails, as `gen_server:cast` does not. Default: dropped.
    fn cast(&self, server: ServerAddress<'_>, request: RemoteMessage) {
        let _ = (server, request);
    }

    /// A message for the process registered as `name` on node `node` (Erlang's
    /// `{Name, Node} ! Message`). Default: dropped.
    fn send_named(&self, node: u32, name: &Atom, message: RemoteMessage) {
        let _ = (node, name, message);
    }

    /// `None` when messages to node `node` can be queued now; else a future that ends when
    /// they can again: the connection's queue of bytes the socket has not taken passed its
    /// busy limit (Erlang's `dist_buf_busy_limit`, where a sending process is suspended
    /// as `busy_dist_port`), and the future ends once the queue is back under it or the
    /// connection is gone. [`Pid::send_async`](crate::Pid::send_async) to a process of
    /// that node waits for it; [`Pid::send`](crate::Pid::send) never does.
    /// Default: never busy.
    fn busy(&self, node: u32) -> Option<Writable> {
        let _ = node;
        None
    }
}

/// What [`Transport::busy`] gives: the end of a connection's busy state.
pub type Writable = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// The server a [`Transport::call`] or [`Transport::cast`] goes to: a process of another
/// node, or the process registered under a name there (Erlang's `{Name, Node}`, looked up
/// by that node at each call).
///
/// ```
/// use mote::dist::ServerAddress;
/// let at = ServerAddress::Pid(mote::ProcessId::from_parts(2, 7, 0, 1));
/// assert_eq!(at.node(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerAddress<'a> {
    /// The server's process.
    Pid(ProcessId),
    /// The process registered as `name` on node `node` (a node number: see
    /// [`ProcessId::node`]).
    Name {
        /// The registered name.
        name: &'a Atom,
        /// The node's number.
        node: u32,
    },
}

impl ServerAddress<'_> {
    /// The number of the server's node.
    ///
    /// ```
    /// let name = mote::Atom::new("kv").unwrap();
    /// let at = mote::dist::ServerAddress::Name { name: &name, node: 4 };
    /// assert_eq!(at.node(), 4);
    /// ```
    pub fn node(&self) -> u32 {
        match self {
            ServerAddress::Pid(id) => id.node(),
            ServerAddress::Name { node, .. } => *node,
        }
    }
}

/// Why a [`Transport::call`] gave no reply. The server layer turns these into its
/// `CallError`s.
///
/// ```
/// use mote::dist::CallFailure;
/// assert_eq!(CallFailure::NoProc.to_string(), "noproc: no such server");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CallFailure {
    /// No process has the name, or the pid's process is not alive (Erlang's `noproc`).
    #[error("noproc: no such server")]
    NoProc,
    /// The server ended before it replied, with this reason.
    #[error("the server ended before replying: {0}")]
    Exit(ExitReason),
    /// The server's node cannot be reached, or its connection was lost during the call.
    #[error("noconnection: the node cannot be reached")]
    NoConnection,
    /// The request could not be encoded, or the reply does not decode as the type asked
    /// for.
    #[error("the call's request or reply does not fit the wire: {0}")]
    Codec(String),
    /// The transport does not make calls.
    #[error("the distribution transport does not make calls")]
    Unsupported,
}

/// The reply of a [`Transport::call`], as its [`ReplyDecoder`] made it.
pub type RemoteReply = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Box<dyn Any + Send>, CallFailure>> + Send>,
>;

/// How the reply of a call to another node is decoded: into the reply type of the server
/// called, boxed. Made once per reply type, where that type is known to be
/// `DeserializeOwned` (when a reference to a server of another node is made). It is a
/// [`DeserializeSeed`](serde::de::DeserializeSeed), so a transport decodes the reply in
/// place, inside the `{Tag, Reply}` around it.
///
/// ```
/// use mote::dist::ReplyDecoder;
/// let decoder = ReplyDecoder::of::<Vec<u8>>();
/// let mut json = serde_json::Deserializer::from_str("[1,2]");
/// let reply = decoder.decode(&mut <dyn erased_serde::Deserializer>::erase(&mut json)).unwrap();
/// assert_eq!(*reply.downcast::<Vec<u8>>().unwrap(), vec![1, 2]);
/// ```
#[derive(Clone, Copy)]
pub struct ReplyDecoder {
    type_name: &'static str,
    decode: DecodeReplyFn,
}

/// Decodes one reply type, boxed.
type DecodeReplyFn =
    fn(&mut dyn erased_serde::Deserializer<'_>) -> Result<Box<dyn Any + Send>, erased_serde::Error>;

fn decode_reply<R: DeserializeOwned + Send + 'static>(
    d: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<Box<dyn Any + Send>, erased_serde::Error> {
    Ok(Box::new(erased_serde::deserialize::<R>(d)?))
}

impl ReplyDecoder {
    /// The decoder of replies of type `R`.
    ///
    /// ```
    /// assert!(mote::dist::ReplyDecoder::of::<String>().type_name().contains("String"));
    /// ```
    pub fn of<R: DeserializeOwned + Send + 'static>() -> Self {
        ReplyDecoder {
            type_name: std::any::type_name::<R>(),
            decode: decode_reply::<R>,
        }
    }

    /// Decodes a reply.
    ///
    /// ```
    /// let d = mote::dist::ReplyDecoder::of::<u8>();
    /// let mut json = serde_json::Deserializer::from_str("300");
    /// assert!(d.decode(&mut <dyn erased_serde::Deserializer>::erase(&mut json)).is_err());
    /// ```
    pub fn decode(
        &self,
        d: &mut dyn erased_serde::Deserializer<'_>,
    ) -> Result<Box<dyn Any + Send>, erased_serde::Error> {
        (self.decode)(d)
    }

    /// The Rust type of the reply, for error messages.
    ///
    /// ```
    /// assert_eq!(mote::dist::ReplyDecoder::of::<u8>().type_name(), "u8");
    /// ```
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }
}

impl std::fmt::Debug for ReplyDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ReplyDecoder")
            .field(&self.type_name)
            .finish()
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for ReplyDecoder {
    type Value = Box<dyn Any + Send>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        use serde::de::Error;
        let mut erased = <dyn erased_serde::Deserializer<'_>>::erase(deserializer);
        (self.decode)(&mut erased).map_err(D::Error::custom)
    }
}

/// The target that stands for "the process holding the name" in a monitor by `{Name, Node}`
/// of node `node`: the `pid` of its `Down`, whose `by_name` says the name and the node.
///
/// ```
/// let t = mote::dist::name_monitor_target(3);
/// assert_eq!(t.node(), 3);
/// ```
pub fn name_monitor_target(node: u32) -> ProcessId {
    signals::remote::by_name_target(node)
}

/// Monitors the process registered as `name` on node `node` (a node number: see
/// [`ProcessId::node`]), for `process` (Erlang's `monitor(process, {Name, Node})`). Its
/// `Down` carries the name and the node in `by_name`. Without a transport it is a `Down`
/// with `noconnection` at once.
///
/// ```
/// use mote::{Down, ExitReason, Process};
/// mote::run(|mut p: Process<Down>| async move {
///     let r = mote::dist::monitor_name_at(&p, "logger", 9).unwrap();
///     let down = p.recv().await;
///     assert_eq!(down.monitor, r);
///     assert_eq!(down.by_name.unwrap().node, 9);
/// })
/// .unwrap();
/// ```
pub fn monitor_name_at<M: From<crate::Down> + Send + 'static>(
    process: &crate::Process<M>,
    name: &str,
    node: u32,
) -> Result<MonitorRef, crate::RegistryError> {
    let name = Atom::new(name).map_err(|e| crate::RegistryError::NameTooLong { chars: e.chars })?;
    if node == 0 {
        return process.monitor_name(&name);
    }
    Ok(signals::monitor_remote_name(
        process.id(),
        node,
        name,
        signals::deliver_down::<M>,
    ))
}

/// Hands the runtime's signals for remote pids to the installed transport.
struct Signals;

impl signals::remote::RemoteSignals for Signals {
    fn link(&self, from: ProcessId, to: ProcessId) {
        if let Some(t) = TRANSPORT.get() {
            t.link(from, to)
        }
    }
    fn unlink(&self, from: ProcessId, to: ProcessId) {
        if let Some(t) = TRANSPORT.get() {
            t.unlink(from, to)
        }
    }
    fn exit(&self, from: ProcessId, to: ProcessId, reason: &ExitReason, via_link: bool) {
        if let Some(t) = TRANSPORT.get() {
            t.exit(from, to, reason, via_link)
        }
    }
    fn monitor(&self, watcher: ProcessId, target: ProcessId, r: MonitorRef) {
        if let Some(t) = TRANSPORT.get() {
            t.monitor(watcher, target, r)
        }
    }
    fn monitor_name(&self, watcher: ProcessId, node: u32, name: &Atom, r: MonitorRef) {
        if let Some(t) = TRANSPORT.get() {
            t.monitor_name(watcher, node, name, r)
        }
    }
    fn demonitor(&self, watcher: ProcessId, target: ProcessId, r: MonitorRef) {
        if let Some(t) = TRANSPORT.get() {
            t.demonitor(watcher, target, r)
        }
    }
}

/// A link from `remote` (a process of another node) to local process `local`, as the other
/// node asked. Returns `false` if `local` is not alive: the transport answers with a
/// `noproc` exit signal, as Erlang does.
///
/// ```
/// mote::run(|p: mote::Process<()>| async move {
///     let remote = mote::ProcessId::from_parts(4, 1, 0, 1);
///     assert!(mote::dist::link_from_remote(p.id(), remote));
///     assert_eq!(mote::process_info(p.id()).unwrap().links, vec![remote]);
/// })
/// .unwrap();
/// ```
pub fn link_from_remote(local: ProcessId, remote: ProcessId) -> bool {
    signals::with_live(local, |_, s| {
        if !s.links.contains(&remote) {
            s.links.push(remote);
        }
    })
    .is_some()
}

/// The other node removed the link between `remote` and local process `local`.
///
/// ```
/// mote::run(|p: mote::Process<()>| async move {
///     let remote = mote::ProcessId::from_parts(4, 1, 0, 1);
///     mote::dist::link_from_remote(p.id(), remote);
///     mote::dist::unlink_from_remote(p.id(), remote);
///     assert!(mote::process_info(p.id()).unwrap().links.is_empty());
/// })
/// .unwrap();
/// ```
pub fn unlink_from_remote(local: ProcessId, remote: ProcessId) {
    let _ = signals::peek_live(local, |_, s| {
        if let Some(s) = s {
            s.links.retain(|&l| l != remote);
        }
    });
}

/// An exit signal from `remote` (a process of another node) to local process `local`,
/// under Erlang's rules: a link's (`via_link`, dropped if the link no longer exists) or
/// `exit/2`'s. The loss of a connection is a link's exit signal with reason
/// `noconnection` from each linked process of that node.
///
/// ```
/// use mote::{ExitReason, Process, Signal};
/// mote::run(|mut p: Process<Signal<()>>| async move {
///     p.trap_exit(true);
///     let remote = mote::ProcessId::from_parts(4, 1, 0, 1);
///     mote::dist::link_from_remote(p.id(), remote);
///     mote::dist::exit_from_remote(p.id(), remote, ExitReason::NoConnection, true);
///     let Signal::Exit(exit) = p.recv().await else { panic!() };
///     assert_eq!((exit.from, exit.reason), (remote, ExitReason::NoConnection));
/// })
/// .unwrap();
/// ```
pub fn exit_from_remote(local: ProcessId, remote: ProcessId, reason: ExitReason, via_link: bool) {
    if local.is_local() {
        signals::exit_signal(local, remote, reason, via_link);
    }
}

/// The end of `target`, of another node, monitored by local process `watcher` under
/// `monitor` (from the other node, or `noconnection` when the connection is lost). Returns
/// whether the monitor was still active (its `Down` is then queued).
///
/// ```
/// # use std::sync::Arc;
/// # struct T;
/// # impl mote::dist::Transport for T { fn send(&self, _: mote::ProcessId, _: mote::dist::RemoteMessage) {} }
/// # let _ = mote::dist::install(Arc::new(T));
/// use mote::{Down, ExitReason, Process};
/// mote::run(|mut p: Process<Down>| async move {
///     let remote = mote::ProcessId::from_parts(4, 1, 0, 1);
///     let r = p.monitor(remote);
///     assert!(mote::dist::down_from_remote(p.id(), r, remote, ExitReason::NoConnection));
///     assert_eq!(p.recv().await.reason, ExitReason::NoConnection);
/// })
/// .unwrap();
/// ```
pub fn down_from_remote(
    watcher: ProcessId,
    monitor: MonitorRef,
    target: ProcessId,
    reason: ExitReason,
) -> bool {
    signals::remote_down(watcher, monitor, target, reason)
}

/// A watch a process of another node holds on local process `target` (its monitor): `on_exit`
/// runs once, with the exit reason, when `target` ends. `None` (and `on_exit` dropped) if
/// `target` is not alive: the transport answers `noproc` at once.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// mote::run(|_p: mote::Process<()>| async move {
///     let seen = Arc::new(Mutex::new(None));
///     let s = seen.clone();
///     let child = mote::spawn(|_c: mote::Process<()>| async {});
///     let watched = mote::dist::watch_for_remote(child.id(), move |r| *s.lock().unwrap() = Some(r.clone()));
///     if watched.is_some() {
///         while seen.lock().unwrap().is_none() { mote::sleep(std::time::Duration::from_millis(1)).await }
///         assert_eq!(*seen.lock().unwrap(), Some(mote::ExitReason::Normal));
///     }
/// })
/// .unwrap();
/// ```
pub fn watch_for_remote(
    target: ProcessId,
    on_exit: impl FnOnce(&ExitReason) + Send + 'static,
) -> Option<MonitorRef> {
    let hook: OnExitFn = Box::new(on_exit);
    signals::watch(
        target,
        Arc::new(OnExit(parking_lot::Mutex::new(Some(hook)))),
    )
}

/// Removes a watch made by [`watch_for_remote`] (the other node demonitored). Returns
/// whether it had not fired.
///
/// ```
/// mote::run(|p: mote::Process<()>| async move {
///     let r = mote::dist::watch_for_remote(p.id(), |_| unreachable!()).unwrap();
///     assert!(mote::dist::unwatch_for_remote(p.id(), r));
/// })
/// .unwrap();
/// ```
pub fn unwatch_for_remote(target: ProcessId, monitor: MonitorRef) -> bool {
    signals::unwatch(target, monitor)
}

/// What [`watch_for_remote`] runs once.
type OnExitFn = Box<dyn FnOnce(&ExitReason) + Send>;

struct OnExit(parking_lot::Mutex<Option<OnExitFn>>);

impl crate::rt::table::extras::ExitListener for OnExit {
    fn exited(&self, reason: &ExitReason) {
        if let Some(f) = self.0.lock().take() {
            f(reason)
        }
    }
}

/// A [`Transport`] was already installed in this OS process.
///
/// ```
/// # use std::sync::Arc;
/// # struct T;
/// # impl mote::dist::Transport for T { fn send(&self, _: mote::ProcessId, _: mote::dist::RemoteMessage) {} }
/// let first = mote::dist::install(Arc::new(T));
/// assert!(mote::dist::install(Arc::new(T)).is_err() || first.is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a distribution transport is already installed in this OS process")]
pub struct AlreadyInstalled;

static TRANSPORT: OnceLock<Arc<dyn Transport>> = OnceLock::new();

/// Installs the transport that carries messages to other nodes. One per OS process (one
/// node, as one BEAM VM is one node).
///
/// ```
/// # use std::sync::Arc;
/// # struct T;
/// # impl mote::dist::Transport for T { fn send(&self, _: mote::ProcessId, _: mote::dist::RemoteMessage) {} }
/// let _ = mote::dist::install(Arc::new(T));
/// assert!(mote::dist::is_installed());
/// ```
pub fn install(transport: Arc<dyn Transport>) -> Result<(), AlreadyInstalled> {
    TRANSPORT.set(transport).map_err(|_| AlreadyInstalled)?;
    signals::remote::install(Box::new(Signals));
    Ok(())
}

/// Whether a transport is installed.
///
/// ```
/// // Without a distribution layer a remote pid's messages are dropped.
/// let _ = mote::dist::is_installed();
/// ```
pub fn is_installed() -> bool {
    TRANSPORT.get().is_some()
}

/// Asks for `flush` to run on this thread when the poll of the process running here ends,
/// and says whether it will: `false` outside a process (a tokio task, a plain thread),
/// where there is no poll to wait for and the caller writes at once.
///
/// A transport uses it to write many messages in one system call: a process that sends
/// in a loop leaves each frame in its connection's buffer, and `flush` writes the buffer
/// when the process yields (ends its poll: waits in `recv`, sleeps, returns, panics or is
/// killed), before the process's exit signals go out. A process that sends one message
/// and then waits ends its poll at once, so the message does not wait. One function per
/// poll: asking for another one runs the first at once (flushing early is always
/// allowed). With nothing asked, the end of a poll costs one thread-local load.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// static FLUSHED: AtomicUsize = AtomicUsize::new(0);
/// fn flush() {
///     FLUSHED.fetch_add(1, Ordering::Relaxed);
/// }
///
/// assert!(!mote::dist::flush_at_poll_end(flush)); // not in a process: write at once
/// mote::run(|_p: mote::Process<()>| async move {
///     assert!(mote::dist::flush_at_poll_end(flush));
///     assert!(mote::dist::flush_at_poll_end(flush)); // the same one: still once
///     assert_eq!(FLUSHED.load(Ordering::Relaxed), 0);
///     mote::sleep(std::time::Duration::from_millis(1)).await; // the poll ends here
///     assert_eq!(FLUSHED.load(Ordering::Relaxed), 1);
/// })
/// .unwrap();
/// ```
#[inline]
pub fn flush_at_poll_end(flush: fn()) -> bool {
    let in_poll = crate::rt::current::pinned();
    if in_poll {
        crate::rt::poll_end::defer(flush);
    }
    in_poll
}

/// A message on its way to another node: the value and how to serialize it.
///
/// ```
/// # use std::sync::Arc;
/// use mote::dist::{RemoteMessage, Transport};
///
/// struct Json;
/// impl Transport for Json {
///     fn send(&self, to: mote::ProcessId, message: RemoteMessage) {
///         let text = serde_json::to_string(message.serialize()).unwrap();
///         println!("{to} <- {text} ({})", message.type_name());
///     }
/// }
/// ```
pub struct RemoteMessage {
    value: Box<dyn Any + Send>,
    encoding: &'static Encoding,
}

impl RemoteMessage {
    /// The message, to serialize with any serde serializer (`erased_serde::Serialize`
    /// implements `serde::Serialize`).
    ///
    /// ```
    /// # use mote::dist::RemoteMessage;
    /// fn to_json(m: &RemoteMessage) -> String {
    ///     serde_json::to_string(m.serialize()).unwrap()
    /// }
    /// ```
    pub fn serialize(&self) -> &dyn erased_serde::Serialize {
        (self.encoding.view)(&*self.value)
    }

    /// The Rust type of the message, for error messages.
    ///
    /// ```
    /// # use mote::dist::RemoteMessage;
    /// fn describe(m: &RemoteMessage) -> &'static str {
    ///     m.type_name()
    /// }
    /// ```
    pub fn type_name(&self) -> &'static str {
        self.encoding.type_name
    }
}

impl std::fmt::Debug for RemoteMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteMessage")
            .field("type", &self.type_name())
            .finish_non_exhaustive()
    }
}

/// How the values of one message type are serialized, made where the type is known to be
/// `Serialize` (when a `Pid` of that type is deserialized).
struct Encoding {
    type_name: &'static str,
    view: fn(&(dyn Any + Send)) -> &dyn erased_serde::Serialize,
}

/// The encodings of the message types remote pids were made for. Leaked once per type:
/// a program has finitely many types.
static ENCODINGS: OnceLock<RwLock<HashMap<TypeId, &'static Encoding>>> = OnceLock::new();

fn encodings() -> &'static RwLock<HashMap<TypeId, &'static Encoding>> {
    ENCODINGS.get_or_init(Default::default)
}

fn view<M: Serialize + Send + 'static>(value: &(dyn Any + Send)) -> &dyn erased_serde::Serialize {
    value
        .downcast_ref::<M>()
        .expect("a RemoteMessage holds the type its encoding was made for")
}

/// Makes `M` sendable to processes of other nodes. Called by `Pid<M>`'s `Deserialize`;
/// a distribution layer that makes remote pids another way calls it too.
///
/// ```
/// mote::dist::register_message_type::<String>();
/// ```
pub fn register_message_type<M: Serialize + Send + 'static>() {
    let id = TypeId::of::<M>();
    if encodings().read().contains_key(&id) {
        return;
    }
    encodings().write().entry(id).or_insert_with(|| {
        Box::leak(Box::new(Encoding {
            type_name: std::any::type_name::<M>(),
            view: view::<M>,
        }))
    });
}

/// `message` with the encoding registered for its type, or `None` (logged) if `M` was never
/// registered.
fn remote_message<M: Send + 'static>(message: M) -> Option<RemoteMessage> {
    let encoding = encodings().read().get(&TypeId::of::<M>()).copied();
    match encoding {
        Some(encoding) => Some(RemoteMessage {
            value: Box::new(message),
            encoding,
        }),
        // Unreachable through safe code: a remote `Pid<M>` is only made by `Deserialize`,
        // which registers `M`, and a remote server reference by constructors that register
        // its message types.
        None => {
            tracing::error!(
                message_type = std::any::type_name::<M>(),
                "message to another node dropped: its type was never registered for distribution"
            );
            None
        }
    }
}

/// `Pid::send` to a process of another node.
pub(crate) fn send<M: Send + 'static>(to: ProcessId, message: M) {
    let Some(transport) = TRANSPORT.get() else {
        return; // no distribution: nothing can be reached
    };
    if to.node() == 0 {
        return; // an earlier incarnation of this node, or the id of no process
    }
    if let Some(message) = remote_message(message) {
        transport.send(to, message)
    }
}

/// The reply decoders of the servers of other nodes referenced here, by reply type.
/// Leaked once per type, as the encodings are.
static DECODERS: OnceLock<RwLock<HashMap<TypeId, ReplyDecoder>>> = OnceLock::new();

fn decoders() -> &'static RwLock<HashMap<TypeId, ReplyDecoder>> {
    DECODERS.get_or_init(Default::default)
}

/// Makes `R` decodable as the reply of a call to another node. Called where a reference to
/// a server of another node is made (where its reply type is known to be
/// `DeserializeOwned`).
pub(crate) fn register_reply_type<R: DeserializeOwned + Send + 'static>() {
    let id = TypeId::of::<R>();
    if decoders().read().contains_key(&id) {
        return;
    }
    decoders()
        .write()
        .entry(id)
        .or_insert_with(ReplyDecoder::of::<R>);
}

/// A `gen_server` call of a server of another node: the request is sent now; the future
/// gives the reply, of type `Rep`. Without a transport the node cannot be reached.
pub(crate) fn call<Req: Send + 'static, Rep: Send + 'static>(
    server: ServerAddress<'_>,
    request: Req,
) -> RemoteReply {
    let fail = |f: CallFailure| -> RemoteReply { Box::pin(std::future::ready(Err(f))) };
    let Some(transport) = TRANSPORT.get() else {
        return fail(CallFailure::NoConnection);
    };
    let decoder = decoders().read().get(&TypeId::of::<Rep>()).copied();
    let (Some(request), Some(decoder)) = (remote_message(request), decoder) else {
        return fail(CallFailure::Codec(format!(
            "{} was never registered for distribution",
            std::any::type_name::<Rep>()
        )));
    };
    transport.call(server, request, decoder)
}

/// Stops a server of another node (see [`Transport::stop`]).
pub(crate) fn stop(server: ServerAddress<'_>, reason: ExitReason) -> RemoteReply {
    match TRANSPORT.get() {
        Some(transport) => transport.stop(server, &reason),
        None => Box::pin(std::future::ready(Err(CallFailure::NoConnection))),
    }
}

/// A `gen_server` cast to a server of another node; dropped without a transport.
pub(crate) fn cast<M: Send + 'static>(server: ServerAddress<'_>, message: M) {
    if let (Some(transport), Some(message)) = (TRANSPORT.get(), remote_message(message)) {
        transport.cast(server, message)
    }
}

/// Waits while the connection to node `node` is busy (see [`Transport::busy`]).
pub(crate) async fn writable(node: u32) {
    if let Some(wait) = TRANSPORT.get().and_then(|t| t.busy(node)) {
        wait.await;
    }
}

/// A send to the process registered as `name` on node `node`; dropped without a transport.
pub(crate) fn send_named<M: Send + 'static>(node: u32, name: &Atom, message: M) {
    if let (Some(transport), Some(message)) = (TRANSPORT.get(), remote_message(message)) {
        transport.send_named(node, name, message)
    }
}

/// Makes a local process reachable from other nodes: messages for it are decoded as `M`.
/// Returns `false` if the process is not alive. Exposing again (with the same type, the
/// only one its `Pid<M>` allows) changes nothing.
///
/// ```
/// mote::run(|p: mote::Process<(u32, String)>| async move {
///     assert!(mote::dist::expose(p.pid()));
///     assert_eq!(
///         mote::dist::exposed_type(p.id()),
///         Some(std::any::TypeId::of::<(u32, String)>())
///     );
/// })
/// .unwrap();
/// ```
pub fn expose<M: DeserializeOwned + Send + 'static>(pid: Pid<M>) -> bool {
    signals::with_live(pid.id(), |_, extras| {
        extras.inbox = Some(Inbox {
            message_type: TypeId::of::<M>(),
            decode: decode_into::<M>,
        });
    })
    .is_some()
}

/// The message type a local process was [`expose`]d with, if it is alive and exposed.
///
/// ```
/// mote::run(|p: mote::Process<u8>| async move {
///     assert_eq!(mote::dist::exposed_type(p.id()), None);
/// })
/// .unwrap();
/// ```
pub fn exposed_type(id: ProcessId) -> Option<TypeId> {
    inbox(id).map(|inbox| inbox.message_type)
}

fn inbox(id: ProcessId) -> Option<Inbox> {
    signals::peek_live(id, |_, extras| extras.as_ref()?.inbox).flatten()
}

fn decode_into<M: DeserializeOwned + Send + 'static>(
    to: ProcessId,
    d: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<(), erased_serde::Error> {
    let message: M = erased_serde::deserialize(d)?;
    // SAFETY: this function is the inbox `expose::<M>` recorded for the incarnation `to`,
    // which its `Pid<M>` names, so that process's mailbox takes `M`.
    unsafe { Pid::<M>::from_id(to) }.send(message);
    Ok(())
}

/// Why a message from another node was not delivered.
///
/// ```
/// use mote::dist::{deliver, DeliverError};
/// let mut json = serde_json::Deserializer::from_str("1");
/// let gone = mote::ProcessId::from_parts(0, 123_456, 9, 0);
/// let r = deliver(gone, &mut <dyn erased_serde::Deserializer>::erase(&mut json));
/// assert!(matches!(r, Err(DeliverError::NoProcess)));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeliverError {
    /// No local process has that id (it ended, or never lived): dropped, as Erlang drops it.
    #[error("no such process")]
    NoProcess,
    /// The process is alive but was never exposed to other nodes, so its message type is
    /// unknown here.
    #[error("the process is not exposed to other nodes (see mote::dist::expose)")]
    NotExposed,
    /// The message does not decode as the process's message type.
    #[error("the message does not decode as the process's message type: {0}")]
    Decode(#[from] erased_serde::Error),
}

/// Delivers a message from another node to local process `to`, decoding it as the type the
/// process was [`expose`]d with.
///
/// ```
/// mote::run(|mut p: mote::Process<Vec<u8>>| async move {
///     mote::dist::expose(p.pid());
///     let mut json = serde_json::Deserializer::from_str("[1,2,3]");
///     let mut d = <dyn erased_serde::Deserializer>::erase(&mut json);
///     mote::dist::deliver(p.id(), &mut d).unwrap();
///     assert_eq!(p.recv().await, vec![1, 2, 3]);
/// })
/// .unwrap();
/// ```
pub fn deliver(
    to: ProcessId,
    message: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<(), DeliverError> {
    let inbox = signals::peek_live(to, |_, extras| extras.as_ref()?.inbox)
        .ok_or(DeliverError::NoProcess)?
        .ok_or(DeliverError::NotExposed)?;
    (inbox.decode)(to, message)?;
    Ok(())
}

/// A `Pid<M>` deserializes from its [`ProcessId`]: one of another node for any
/// `M: Serialize` (which makes `M` sendable there), a local one only if its process is
/// alive and [`expose`]d with message type `M`.
///
/// ```
/// mote::run(|p: mote::Process<u64>| async move {
///     let json = serde_json::to_string(&p.pid()).unwrap();
///     assert!(serde_json::from_str::<mote::Pid<u64>>(&json).is_err()); // not exposed
///     mote::dist::expose(p.pid());
///     assert_eq!(serde_json::from_str::<mote::Pid<u64>>(&json).unwrap(), p.pid());
///     assert!(serde_json::from_str::<mote::Pid<u8>>(&json).is_err()); // another type
/// })
/// .unwrap();
/// ```
impl<'de, M: Serialize + Send + 'static> Deserialize<'de> for Pid<M> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let id = ProcessId::deserialize(deserializer)?;
        if id.is_local() {
            if exposed_type(id) != Some(TypeId::of::<M>()) {
                return Err(D::Error::custom(format_args!(
                    "process {id} is not a live process exposed with message type {}",
                    std::any::type_name::<M>()
                )));
            }
        } else {
            register_message_type::<M>();
        }
        // SAFETY: a local id was checked just above: its process is exposed with message
        // type `M`, which `expose` only records from a `Pid<M>`. A remote id names no local
        // slot: sends through it go to the transport, never into a mailbox here.
        Ok(unsafe { Pid::from_id(id) })
    }
}
