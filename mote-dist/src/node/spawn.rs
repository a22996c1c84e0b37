//! Remote spawn: processes started on this node by other nodes, from functions registered
//! by module and function name (Cloud Haskell's static closures: code is never sent, only
//! the name of a function both sides know, and its arguments).
//!
//! A SPAWN_REQUEST for a registered `{Module, Function}` (from a mote node's
//! [`Node::spawn`], or Erlang's `spawn(Node, Module, Function, Args)` and
//! `spawn_request/5`) decodes its argument list as the function's argument tuple, spawns
//! the process (exposed to other nodes with its message type), makes the link or monitor
//! the request asked for *before* the process runs, then answers SPAWN_REPLY with the pid.
//! A function not registered is refused with `notsup` (see `rpc.rs`, which serves the one
//! other function spawned by name, erpc's), arguments that do not decode with `badarg`;
//! either way the caller's spawn fails. (Erlang itself spawns a process that dies with
//! `undef`; a mote node cannot run a function it does not have.)
//!
//! [`Node::spawn`] waits for the reply (a synchronous spawn costs a round trip);
//! [`Node::spawn_async`] sends the request and goes on, as Cloud Haskell's `spawnAsync`:
//! its reply is dropped at the node, so nothing piles up in the caller's mailbox.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::sync::oneshot;

use mote::{Pid, Process, ProcessId};

use super::connections::Shared;
use super::Node;
use crate::connection::{ControlMessage, DistMessage, DistSender, FrameBuilder, ProcessRef};
use crate::etf::{Atom, DecodeError, EncodeError, ErlPid, ErlRef, WireTerm};
use crate::handshake::NodeName;
use crate::node_table;
use crate::serde::Options;

/// A registered function, its types erased: decodes the argument tuple and spawns a
/// process that waits at a gate (opened once its link or monitor is in place).
type Spawner =
    dyn Fn(&[u8], &Options) -> Result<(ProcessId, oneshot::Sender<()>), DecodeError> + Send + Sync;

/// The registered functions, by module and function name.
type Spawnable = HashMap<(Atom, Atom), Arc<Spawner>>;

static SPAWNABLE: LazyLock<RwLock<Spawnable>> = LazyLock::new(Default::default);

/// Registers `f` as `module:function` for remote spawns: a spawn request with arguments
/// that decode as `A` (the argument list as a tuple: `[1, <<"x">>]` is `(i64, String)`)
/// starts a process running `f(args, process)`, reachable from other nodes with message
/// type `M`. Registering the same name again replaces the function.
///
/// ```
/// use mote::Process;
///
/// // Erlang: spawn('mote@127.0.0.1', worker, run, [3]).
/// mote_dist::node::register_spawn("worker", "run", |(n,): (u32,), mut p: Process<String>| async move {
///     for _ in 0..n {
///         let _job = p.recv().await;
///     }
/// })
/// .unwrap();
/// ```
pub fn register_spawn<A, M, F, Fut>(module: &str, function: &str, f: F) -> Result<(), EncodeError>
where
    A: DeserializeOwned + Send + 'static,
    M: DeserializeOwned + Send + 'static,
    F: Fn(A, Process<M>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let key = (Atom::new(module)?, Atom::new(function)?);
    let f = Arc::new(f);
    let spawner: Arc<Spawner> = Arc::new(move |args: &[u8], opts: &Options| {
        let args: A = crate::serde::from_slice_with(args, opts)?;
        let (open, gate) = oneshot::channel::<()>();
        let f = f.clone();
        let pid = mote::spawn(move |p: Process<M>| async move {
            // Until the requester's link or monitor is in place (or the request failed).
            if gate.await.is_ok() {
                f(args, p).await;
            }
        });
        mote::dist::expose(pid);
        Ok((pid.id(), open))
    });
    SPAWNABLE.write().insert(key, spawner);
    Ok(())
}

/// Why a remote spawn failed.
///
/// ```
/// let e = mote_dist::node::SpawnError::Refused("badarg".into());
/// assert!(e.to_string().contains("badarg"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpawnError {
    /// The node answered with an error (`notsup`: no such registered function; `badarg`:
    /// arguments that do not decode).
    #[error("the node refused the spawn: {0}")]
    Refused(String),
    /// No reply in time, or the node cannot be reached.
    #[error("no reply from the node in time")]
    Timeout,
    /// The arguments, module or function name cannot be encoded, or the node name is bad.
    #[error("the request cannot be made: {0}")]
    Request(String),
}

/// How a spawn is made.
///
/// ```
/// let opts = mote_dist::node::RemoteSpawn::new().link().timeout(std::time::Duration::from_secs(2));
/// # let _ = opts;
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RemoteSpawn {
    link: bool,
    timeout: Duration,
}

impl Default for RemoteSpawn {
    fn default() -> Self {
        RemoteSpawn {
            link: false,
            timeout: Duration::from_secs(10),
        }
    }
}

impl RemoteSpawn {
    /// A plain spawn, waiting up to 10 s for the reply.
    ///
    /// ```
    /// let opts = mote_dist::node::RemoteSpawn::new();
    /// # let _ = opts;
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Links the new process to the calling process before it runs (`spawn_link`): its
    /// exit signals reach the caller even if it ends at once.
    ///
    /// ```
    /// let opts = mote_dist::node::RemoteSpawn::new().link();
    /// # let _ = opts;
    /// ```
    pub fn link(mut self) -> Self {
        self.link = true;
        self
    }

    /// How long [`Node::spawn_with`] waits for the reply.
    ///
    /// ```
    /// let opts = mote_dist::node::RemoteSpawn::new().timeout(std::time::Duration::from_secs(1));
    /// # let _ = opts;
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// Spawn requests of this node waiting for their reply, by request id.
/// Where a spawn request's outcome goes: the new pid, or the error the node answered.
type Waiting = HashMap<ErlRef, oneshot::Sender<Result<ErlPid, String>>>;

static PENDING: LazyLock<Mutex<Waiting>> = LazyLock::new(Default::default);

fn new_req_id() -> ErlRef {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let (name, creation) = node_table::local();
    // The fourth word tells spawn requests from monitors and calls of this node.
    ErlRef::new(name, creation, &[n as u32, (n >> 32) as u32, 0x5350_574e]).expect("three words")
}

impl Node {
    /// Spawns `module:function(args)` on `node` (registered there with
    /// [`register_spawn`]) and waits for its pid: a synchronous spawn, one round trip.
    ///
    /// ```no_run
    /// # async fn demo(node: mote_dist::node::Node) -> Result<(), mote_dist::node::SpawnError> {
    /// let worker: mote::Pid<String> = node.spawn("other@127.0.0.1", "worker", "run", &(3u32,)).await?;
    /// worker.send("job".to_string());
    /// # Ok(()) }
    /// ```
    pub async fn spawn<A: Serialize + ?Sized, M: Serialize + Send + 'static>(
        &self,
        node: &str,
        module: &str,
        function: &str,
        args: &A,
    ) -> Result<Pid<M>, SpawnError> {
        self.spawn_with(node, module, function, args, RemoteSpawn::new())
            .await
    }

    /// [`spawn`](Self::spawn) with options (a link made before the process runs, the
    /// timeout).
    ///
    /// ```no_run
    /// # async fn demo(node: mote_dist::node::Node) -> Result<(), mote_dist::node::SpawnError> {
    /// use mote_dist::node::RemoteSpawn;
    /// let w: mote::Pid<String> =
    ///     node.spawn_with("other@127.0.0.1", "worker", "run", &(3u32,), RemoteSpawn::new().link()).await?;
    /// # let _ = w; Ok(()) }
    /// ```
    pub async fn spawn_with<A: Serialize + ?Sized, M: Serialize + Send + 'static>(
        &self,
        node: &str,
        module: &str,
        function: &str,
        args: &A,
        opts: RemoteSpawn,
    ) -> Result<Pid<M>, SpawnError> {
        let req_id = new_req_id();
        let (tx, rx) = oneshot::channel();
        PENDING.lock().insert(req_id.clone(), tx);
        let caller = mote::self_id();
        if let Err(e) =
            self.send_spawn_request(node, module, function, args, &req_id, opts.link, caller)
        {
            PENDING.lock().remove(&req_id);
            return Err(e);
        }
        let reply = tokio::time::timeout(opts.timeout, rx).await;
        PENDING.lock().remove(&req_id);
        match reply {
            Ok(Ok(Ok(pid))) => {
                node_table::typed_pid(&pid).map_err(|e| SpawnError::Request(e.to_string()))
            }
            Ok(Ok(Err(reason))) => Err(SpawnError::Refused(reason)),
            _ => Err(SpawnError::Timeout),
        }
    }

    /// Sends the spawn request and goes on (Cloud Haskell's `spawnAsync`): no round trip
    /// is waited for, and the reply is dropped at the node. A request that cannot be made
    /// (a bad name, unencodable arguments) is an error; one the other node refuses is lost,
    /// as a message to a process that is gone.
    ///
    /// ```no_run
    /// # fn demo(node: mote_dist::node::Node) -> Result<(), mote_dist::node::SpawnError> {
    /// for n in 0..1000u32 {
    ///     node.spawn_async("other@127.0.0.1", "worker", "run", &(n,))?;
    /// }
    /// # Ok(()) }
    /// ```
    pub fn spawn_async<A: Serialize + ?Sized>(
        &self,
        node: &str,
        module: &str,
        function: &str,
        args: &A,
    ) -> Result<(), SpawnError> {
        let req_id = new_req_id();
        self.send_spawn_request(node, module, function, args, &req_id, false, None)
    }

    #[allow(clippy::too_many_arguments)]
    fn send_spawn_request<A: Serialize + ?Sized>(
        &self,
        node: &str,
        module: &str,
        function: &str,
        args: &A,
        req_id: &ErlRef,
        link: bool,
        caller: Option<ProcessId>,
    ) -> Result<(), SpawnError> {
        let bad = |e: &dyn std::fmt::Display| SpawnError::Request(e.to_string());
        let peer: NodeName = node.parse().map_err(|e| bad(&e))?;
        // The argument list: the tuple's elements as a list.
        let encoded = crate::serde::to_vec(args).map_err(|e| bad(&e))?;
        let list = match WireTerm::decode(&encoded).map_err(|e| bad(&e))? {
            WireTerm::Tuple(items) => items,
            other => vec![other],
        };
        let from = node_table::to_wire(
            caller.unwrap_or_else(|| node_table::from_wire(&super::gen_call::node_pid())),
        );
        let options = if link {
            vec![WireTerm::atom("link").expect("short")]
        } else {
            vec![]
        };
        let control = ControlMessage::SpawnRequest {
            req_id: req_id.clone(),
            from: from.clone(),
            group_leader: from,
            module: Atom::new(module).map_err(|e| bad(&e))?,
            function: Atom::new(function).map_err(|e| bad(&e))?,
            arity: list.len() as u32,
            options: WireTerm::List(options),
        };
        let frame = FrameBuilder::new(&control)
            .and_then(|f| f.payload_term(&WireTerm::List(list)))
            .and_then(FrameBuilder::finish)
            .map_err(|e| bad(&e))?;
        self.shared.route(peer.atom().clone(), frame);
        Ok(())
    }
}

impl Shared {
    /// A SPAWN_REQUEST for a registered function; `false` if the function is not one
    /// (the request is someone else's to answer).
    pub(crate) fn spawn_registered(
        self: &Arc<Self>,
        peer: &Atom,
        sender: &DistSender,
        msg: &DistMessage,
    ) -> bool {
        let (ControlMessage::SpawnRequest {
            req_id,
            from,
            module,
            function,
            options,
            ..
        }
        | ControlMessage::SpawnRequestTt {
            req_id,
            from,
            module,
            function,
            options,
            ..
        }) = &msg.control
        else {
            return false;
        };
        let spawner = SPAWNABLE
            .read()
            .get(&(module.clone(), function.clone()))
            .cloned();
        let Some(spawner) = spawner else {
            return false;
        };
        let has = |option: &str| match options {
            WireTerm::List(o) => o
                .iter()
                .any(|o| matches!(o, WireTerm::Atom(a) if a == option)),
            _ => false,
        };
        let reply = |flags: u32, result: WireTerm| {
            let control = ControlMessage::SpawnReply {
                req_id: req_id.clone(),
                to: from.clone(),
                flags,
                result,
            };
            if let Ok(frame) = FrameBuilder::new(&control).and_then(FrameBuilder::finish) {
                let _ = sender.send_now(frame);
            }
        };
        // The argument list, as the function's argument tuple.
        let args = match msg.payload_term(&self.serde.limits) {
            Ok(WireTerm::List(items)) => WireTerm::Tuple(items),
            Ok(WireTerm::ByteList(b)) => {
                WireTerm::Tuple(b.iter().map(|&x| WireTerm::Int(x.into())).collect())
            }
            _ => WireTerm::Atom(Atom::new("bad").expect("short")),
        };
        let spawned = args
            .encode()
            .map_err(|e| e.to_string())
            .and_then(|bytes| spawner(&bytes, &self.serde).map_err(|e| e.to_string()));
        let (id, gate) = match spawned {
            Ok(spawned) => spawned,
            Err(e) => {
                tracing::info!(peer = %peer, "spawn of {module}:{function} refused: {e}");
                reply(0, WireTerm::Atom(Atom::new("badarg").expect("short")));
                return true;
            }
        };
        let requester = node_table::from_wire(from);
        let mut flags = 0;
        if has("link") && mote::dist::link_from_remote(id, requester) {
            self.note_link(peer, id, requester);
            flags |= 1;
        }
        if has("monitor") {
            let to = ProcessRef::Pid(node_table::to_wire(id));
            self.monitor_in(peer, from.clone(), to, req_id.clone());
            flags |= 2;
        }
        reply(flags, WireTerm::Pid(node_table::to_wire(id)));
        let _ = gate.send(());
        true
    }

    /// A SPAWN_REPLY for a request of this node.
    pub(crate) fn spawn_reply(&self, peer: &Atom, msg: &DistMessage) -> bool {
        let (ControlMessage::SpawnReply {
            req_id,
            to,
            flags,
            result,
        }
        | ControlMessage::SpawnReplyTt {
            req_id,
            to,
            flags,
            result,
            ..
        }) = &msg.control
        else {
            return false;
        };
        let outcome = match result {
            WireTerm::Pid(pid) => {
                if flags & 1 != 0 {
                    // The link exists on the other side: record ours before the next
                    // frame (an exit signal from the new process may follow at once).
                    let (local, remote) = (node_table::from_wire(to), node_table::from_wire(pid));
                    if mote::dist::link_from_remote(local, remote) {
                        self.note_link(peer, local, remote);
                    }
                }
                Ok(pid.clone())
            }
            WireTerm::Atom(reason) => Err(reason.as_str().to_owned()),
            other => Err(format!("{other:?}")),
        };
        if let Some(tx) = PENDING.lock().remove(req_id) {
            let _ = tx.send(outcome);
        }
        true
    }
}
