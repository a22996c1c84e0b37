//! [`ServerRef`]s of servers on other nodes (the `dist` feature): how they are made (by
//! `{Name, Node}` with [`ServerRef::named_on`], from data with `Deserialize`) and the cold
//! branch of `call`, `cast`, `info` and `stop` that hands them to the distribution
//! transport, which speaks the `gen_server` protocol.
//!
//! `ServerRef` stays a `Copy` pid: a reference of another node holds that server's pid, and
//! one by name holds a placeholder id of that node (process number `u32::MAX`, which no
//! process has) whose serial indexes the name in a table of names interned here. The
//! server's message types need serde only to cross nodes, so the bounds sit on the
//! constructors, which register the erased codecs of `S`'s types with the runtime's hook
//! (as `Pid<M>`'s `Deserialize` registers `M`); `call` and the rest have no serde bound and
//! find the codecs by type.

use std::any::Any;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;

use parking_lot::RwLock;
use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

use super::handle::Early;
use super::{CallError, Server, ServerRef, StopError};
use crate::dist::{self, CallFailure, ServerAddress};
use crate::process::registry::RegistryError;
use crate::values::exit::ExitReason;
use crate::values::pid::{Pid, ProcessId};
use crate::values::term::Atom;

/// The process number of a by-name placeholder: no process has it.
const NAMED: u32 = u32::MAX;
/// The creation of a by-name placeholder (the serial is the name's index, from 1, so it
/// differs from the placeholder of a monitor by name, whose serial is 0).
const NAMED_CREATION: u32 = u32::MAX;

/// The names of by-name references, interned: a reference stays a `Copy` id. Leaked: a
/// program addresses finitely many names.
struct Names {
    by_index: Vec<&'static Atom>,
    index: HashMap<&'static Atom, u32>,
}

fn names() -> &'static RwLock<Names> {
    static NAMES: OnceLock<RwLock<Names>> = OnceLock::new();
    NAMES.get_or_init(|| {
        RwLock::new(Names {
            by_index: Vec::new(),
            index: HashMap::new(),
        })
    })
}

/// The placeholder id of `{name, node}`.
fn named_id(name: Atom, node: u32) -> ProcessId {
    let known = names().read().index.get(&name).copied();
    let index = known.unwrap_or_else(|| {
        let mut names = names().write();
        if let Some(&i) = names.index.get(&name) {
            return i;
        }
        let name: &'static Atom = Box::leak(Box::new(name));
        names.by_index.push(name);
        let i = names.by_index.len() as u32;
        names.index.insert(name, i);
        i
    });
    ProcessId::from_parts(node, NAMED, index, NAMED_CREATION)
}

/// The name of a by-name placeholder id, or `None` for a real pid.
fn name_of(id: ProcessId) -> Option<&'static Atom> {
    if id.number() != NAMED || id.creation() != NAMED_CREATION || id.serial() == 0 {
        return None;
    }
    names()
        .read()
        .by_index
        .get(id.serial() as usize - 1)
        .copied()
}

/// Where a remote reference's messages go.
fn address(id: ProcessId) -> ServerAddress<'static> {
    match name_of(id) {
        Some(name) => ServerAddress::Name {
            name,
            node: id.node(),
        },
        None => ServerAddress::Pid(id),
    }
}

/// Registers the codecs a call, cast and info message of `S` need to cross nodes.
fn register<S>()
where
    S: Server,
    S::Call: Serialize,
    S::Reply: DeserializeOwned,
    S::Cast: Serialize,
    S::Info: Serialize,
{
    dist::register_message_type::<S::Call>();
    dist::register_message_type::<S::Cast>();
    dist::register_message_type::<S::Info>();
    dist::register_reply_type::<S::Reply>();
}

impl<S: Server> ServerRef<S> {
    /// The server registered as `name` on node `node` (Erlang's `{Name, Node}`; `node` is a
    /// node number, see [`ProcessId::node`]; the distribution layer maps node names, as
    /// `mote_dist`'s `Node::server` does). Only a server whose message types are serde can
    /// be reached on another node: this is where that is required.
    ///
    /// On another node the name is looked up there at each call, cast and info message,
    /// as Erlang does, so a restarted server is reached again; nothing is checked here.
    /// Calls, casts and info messages speak the `gen_server` protocol, so the server may
    /// be an Erlang `gen_server` or a mote server made reachable by the distribution layer
    /// (`mote_dist::node::serve`); the errors are those of a local call:
    /// [`CallError::NoProc`] if nobody holds the name, [`CallError::Exit`] if the server
    /// ends during the call, and `Exit(`[`ExitReason::NoConnection`]`)` if its node cannot
    /// be reached or the connection is lost (Erlang's call exits with `{nodedown, Node}`).
    /// Without a distribution layer every call fails that way.
    ///
    /// Node `0` is this node: the name is looked up now ([`ServerRef::named`]).
    ///
    /// **Deviations:** the reference's [`id`](ServerRef::id) is a placeholder of that node
    /// (process number `u32::MAX`), not the server's pid, which only the other node knows;
    /// and it does not serialize (send the server's pid instead: a reference made from a
    /// pid does).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mote::server::{CallError, Server, ServerRef};
    ///
    /// struct Kv;
    /// impl Server for Kv { type Call = String; type Reply = String; type Cast = (); type Info = (); }
    ///
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     // Node 5 is not connected (no distribution layer here): the call says so.
    ///     let kv = ServerRef::<Kv>::named_on("kv", 5).unwrap();
    ///     assert_eq!(kv.id().node(), 5);
    ///     let r = kv.call("get".into(), Duration::from_secs(1)).await;
    ///     assert_eq!(r, Err(CallError::Exit(mote::ExitReason::NoConnection)));
    /// })
    /// .unwrap();
    /// ```
    pub fn named_on(name: &str, node: u32) -> Result<Self, RegistryError>
    where
        S::Call: Serialize,
        S::Reply: DeserializeOwned,
        S::Cast: Serialize,
        S::Info: Serialize,
    {
        if node == 0 {
            return Self::named(name);
        }
        let name = Atom::new(name).map_err(|e| RegistryError::NameTooLong { chars: e.chars })?;
        register::<S>();
        // SAFETY: the id is of another node: it names no local slot, and every message
        // through this reference goes to the transport (`ServerRef`'s remote branch).
        Ok(Self::from_pid(unsafe {
            Pid::from_id(named_id(name, node))
        }))
    }

    /// The name a reference made by [`ServerRef::named_on`] addresses on its node, or
    /// `None` for a reference by pid.
    ///
    /// ```
    /// use mote::server::{Server, ServerRef};
    /// struct Kv;
    /// impl Server for Kv { type Call = (); type Reply = (); type Cast = (); type Info = (); }
    ///
    /// let kv = ServerRef::<Kv>::named_on("kv", 3).unwrap();
    /// assert_eq!(kv.remote_name().map(|n| n.as_str()), Some("kv"));
    /// ```
    pub fn remote_name(&self) -> Option<&'static Atom> {
        name_of(self.id()).filter(|_| !self.id().is_local())
    }
}

/// The remote branch of [`ServerRef::call`]: the request is sent now; the wait (with the
/// call's timeout) is left to the returned future.
#[cold]
#[inline(never)]
pub(super) fn call<S: Server>(id: ProcessId, request: S::Call, timeout: Duration) -> Early {
    let reply = dist::call::<S::Call, S::Reply>(address(id), request);
    Early::Remote(Box::pin(async move {
        match crate::rt::timeout_wheel::timeout(timeout, reply).await {
            Err(_) => Err(CallError::Timeout),
            Ok(Ok(reply)) if reply.is::<S::Reply>() => Ok(reply),
            Ok(Ok(_)) => Err(failed(
                id,
                CallFailure::Codec("a reply of another type".into()),
            )),
            Ok(Err(f)) => Err(failed(id, f)),
        }
    }))
}

/// A transport's failure as the [`CallError`] a local call would give.
fn failed(id: ProcessId, failure: CallFailure) -> CallError {
    match failure {
        CallFailure::NoProc => CallError::NoProc,
        CallFailure::Exit(reason) => CallError::Exit(reason),
        CallFailure::Codec(e) => {
            tracing::warn!(server = %id, "call to another node: {e}");
            CallError::NoReply
        }
        // A transport that cannot make calls cannot reach the node's servers.
        CallFailure::NoConnection | CallFailure::Unsupported => {
            CallError::Exit(ExitReason::NoConnection)
        }
    }
}

/// The remote branch of [`ServerRef::request`]: typed requests do not cross nodes (their
/// types are not known to be serde).
#[cold]
#[inline(never)]
pub(super) fn request(id: ProcessId, request_type: &'static str) -> CallError {
    tracing::warn!(server = %id, request_type, "typed requests do not cross nodes; use the server's Call type");
    CallError::NoReply
}

/// The remote branch of [`ServerRef::cast`].
#[cold]
#[inline(never)]
pub(super) fn cast<S: Server>(id: ProcessId, message: S::Cast) {
    dist::cast(address(id), message)
}

/// The remote branch of [`ServerRef::info`]: a plain message, as Erlang's `Pid ! Info`.
#[cold]
#[inline(never)]
pub(super) fn info<S: Server>(id: ProcessId, message: S::Info) {
    match address(id) {
        ServerAddress::Name { name, node } => dist::send_named(node, name, message),
        ServerAddress::Pid(id) => dist::send(id, message),
    }
}

/// The remote branch of [`ServerRef::stop`].
#[cold]
#[inline(never)]
pub(super) async fn stop(
    id: ProcessId,
    reason: ExitReason,
    timeout: Duration,
) -> Result<(), StopError> {
    let ended = dist::stop(address(id), reason.clone());
    match crate::rt::timeout_wheel::timeout(timeout, ended).await {
        Err(_) => Err(StopError::Timeout),
        Ok(Err(CallFailure::NoProc)) => Err(StopError::NoProc),
        Ok(Err(CallFailure::Exit(r))) if r == reason => Ok(()),
        Ok(Err(CallFailure::Exit(r))) => Err(StopError::Exit(r)),
        Ok(Err(other)) => Err(StopError::Exit(match other {
            CallFailure::NoConnection | CallFailure::Unsupported => ExitReason::NoConnection,
            other => ExitReason::custom(other.to_string()),
        })),
        // The server answered instead of ending.
        Ok(Ok(_)) => Err(StopError::Timeout),
    }
}

/// A `ServerRef` serializes as its server's pid, so it crosses nodes inside messages
/// (and reaches Erlang as a pid, a valid `gen_server` reference there).
///
/// **Deviation:** a reference by name ([`ServerRef::named_on`]) does not serialize (an
/// error), where Erlang would send `{Name, Node}`.
///
/// ```
/// use mote::server::{self, Server};
/// struct A;
/// impl Server for A { type Call = (); type Reply = (); type Cast = (); type Info = (); }
///
/// mote::run(|_p: mote::Process<()>| async move {
///     let a = server::start(A).await.unwrap();
///     assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&a.id()).unwrap());
/// })
/// .unwrap();
/// ```
impl<S: Server> Serialize for ServerRef<S> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        if self.remote_name().is_some() {
            use serde::ser::Error;
            return Err(Z::Error::custom(
                "a ServerRef by {Name, Node} does not serialize; send the server's pid",
            ));
        }
        self.id().serialize(serializer)
    }
}

/// A `ServerRef<S>` deserializes from its server's pid: one of another node for a server
/// whose message types are serde (which makes them sendable there, as a `Pid<M>`'s
/// `Deserialize` does), a local one only if its process is a live server of type `S`
/// (a typed reference made from data is checked, never trusted).
///
/// ```
/// use mote::server::{self, Server, ServerRef};
/// struct A;
/// impl Server for A { type Call = (); type Reply = (); type Cast = (); type Info = (); }
/// struct B;
/// impl Server for B { type Call = (); type Reply = (); type Cast = (); type Info = (); }
///
/// mote::run(|p: mote::Process<()>| async move {
///     let a = server::start(A).await.unwrap();
///     let json = serde_json::to_string(&a).unwrap();
///     assert_eq!(serde_json::from_str::<ServerRef<A>>(&json).unwrap(), a);
///     assert!(serde_json::from_str::<ServerRef<B>>(&json).is_err()); // another type
///     let plain = serde_json::to_string(&p.id()).unwrap();
///     assert!(serde_json::from_str::<ServerRef<A>>(&plain).is_err()); // not a server
///     // A pid of node 3: a reference to a server there.
///     let remote = r#"{"node":3,"number":42,"serial":0,"creation":1}"#;
///     assert_eq!(serde_json::from_str::<ServerRef<A>>(remote).unwrap().id().node(), 3);
/// })
/// .unwrap();
/// ```
impl<'de, S> Deserialize<'de> for ServerRef<S>
where
    S: Server,
    S::Call: Serialize,
    S::Reply: DeserializeOwned,
    S::Cast: Serialize,
    S::Info: Serialize,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let id = ProcessId::deserialize(deserializer)?;
        if id.is_local() {
            return ServerRef::from_id(id).ok_or_else(|| {
                D::Error::custom(format_args!(
                    "process {id} is not a live server of type {}",
                    std::any::type_name::<S>()
                ))
            });
        }
        if id.number() == NAMED {
            // The other node's own pid, or a placeholder: no server has that number.
            return Err(D::Error::custom(format_args!("{id} is not a server's pid")));
        }
        register::<S>();
        // SAFETY: a remote id names no local slot: everything sent through this reference
        // goes to the transport (`ServerRef`'s remote branch), never into a mailbox here.
        Ok(ServerRef::from_pid(unsafe { Pid::from_id(id) }))
    }
}

/// The reply of a remote call, as [`dist::call`] boxed it.
pub(super) type BoxedReply = Box<dyn Any + Send>;
