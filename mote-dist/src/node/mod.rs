//! A mote node: this OS process's processes, reachable from Erlang and mote nodes.
//!
//! [`NodeOptions::start`] names the node, registers it with the machine's EPMD (or starts
//! an embedded EPMD-compatible name server when asked and none runs), listens for other
//! nodes and installs itself as mote's distribution transport (`mote::dist`). From then
//! on a `Pid` of another node is used like a local one:
//!
//! * [`Pid::send`](mote::Pid::send) to a remote pid connects to its node on first use (as
//!   Erlang does), then queues the message on that one connection; messages from one
//!   sender to one receiver keep their order.
//! * A local process is reachable from other nodes once it is exposed with the message
//!   type it accepts ([`register`] under a name, or `mote::dist::expose`); a remote pid
//!   arrives inside a message (any `Pid<M>` field of a message type).
//! * [`Node::send_named`] sends to `{Name, Node}`; `net_adm:ping` from Erlang gets `pong`.
//! * `gen_server` calls both ways: [`serve`] makes a mote server answer
//!   `gen_server:call` from other nodes, [`Node::call`] and [`Node::call_pid`] call a
//!   `gen_server` of another node.
//! * `rpc:call` (and `erpc:call`, `rpc:block_call`) from Erlang reaches the functions
//!   registered with [`register_fn`].
//!
//! One node per OS process, as one BEAM VM is one node.
//!
//! ```no_run
//! use mote::Process;
//! use mote_dist::etf::WireTerm;
//! use mote_dist::node::NodeOptions;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let node = NodeOptions::new("mote@127.0.0.1").cookie("secret").start().await?;
//! // A process Erlang can send to: `{echo, 'mote@127.0.0.1'} ! {self(), hello}`.
//! let echo = mote::spawn(|mut p: Process<(mote::Pid<WireTerm>, WireTerm)>| async move {
//!     while let Some((from, term)) = p.recv_timeout(std::time::Duration::from_secs(3600)).await {
//!         from.send(term);
//!     }
//! });
//! mote_dist::node::register("echo", echo)?;
//! assert!(node.ping("erl@127.0.0.1").await);
//! # Ok(()) }
//! ```

mod connections;
mod gen_call;
mod incoming;
mod options;
mod rpc;
mod server_ref;
mod signals;
mod spawn;
mod terms;
mod tls;
mod transport;
mod watch;

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use gen_call::{serve, RemoteCallError};
pub use options::{NodeError, NodeOptions};
pub use rpc::register_fn;
pub use spawn::{register_spawn, RemoteSpawn, SpawnError};
pub use tls::{TlsConfig, TlsError};
pub use watch::{NodeDown, NodeEvent};

use crate::connection::{ControlMessage, FrameBuilder};
use crate::etf::Atom;
use crate::handshake::NodeName;
use crate::node_table;
use connections::Shared;

/// The running node (a cheap handle; clones share it). See the [module](self) docs.
#[derive(Clone)]
pub struct Node {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node")
            .field("name", &self.name().as_str())
            .field("creation", &self.creation())
            .finish_non_exhaustive()
    }
}

impl Node {
    /// The node's name, `alive@host`.
    ///
    /// ```no_run
    /// # async fn demo(node: mote_dist::node::Node) {
    /// println!("I am {}", node.name());
    /// # }
    /// ```
    pub fn name(&self) -> &NodeName {
        &self.shared.local.name
    }

    /// The node's creation (from its EPMD registration), which tells its pids from those of
    /// an earlier run under the same name.
    ///
    /// ```no_run
    /// # async fn demo(node: mote_dist::node::Node) {
    /// assert_ne!(node.creation(), 0);
    /// # }
    /// ```
    pub fn creation(&self) -> u32 {
        self.shared.local.creation
    }

    /// The port the node accepts connections on.
    ///
    /// ```no_run
    /// # async fn demo(node: mote_dist::node::Node) {
    /// println!("listening on {}", node.port());
    /// # }
    /// ```
    pub fn port(&self) -> u16 {
        self.shared.port
    }

    /// Connects to `node` if not connected yet: `true` once connected (Erlang's
    /// `net_adm:ping` gives `pong`), `false` if the node cannot be reached or refuses us
    /// (a wrong cookie). A refused attempt does not stop later ones.
    ///
    /// ```no_run
    /// # async fn demo(node: mote_dist::node::Node) {
    /// if !node.ping("erl@127.0.0.1").await {
    ///     eprintln!("erl@127.0.0.1 is down");
    /// }
    /// # }
    /// ```
    pub async fn ping(&self, node: &str) -> bool {
        let Ok(name) = node.parse::<NodeName>() else {
            return false;
        };
        if name == self.shared.local.name {
            return true;
        }
        self.shared.clone().connected(name.atom().clone()).await
    }

    /// The nodes connected now (Erlang's `nodes(connected)`).
    ///
    /// ```no_run
    /// # async fn demo(node: mote_dist::node::Node) {
    /// for peer in node.nodes() {
    ///     println!("connected to {peer}");
    /// }
    /// # }
    /// ```
    pub fn nodes(&self) -> Vec<String> {
        self.shared.connected_nodes()
    }

    /// Sends `message` to the process registered as `name` on `node` (Erlang's
    /// `{Name, Node} ! Message`). Like any send it never fails: if the node cannot be
    /// reached or no process has the name, the message is dropped. The sender is the
    /// calling process (or none outside processes).
    ///
    /// ```no_run
    /// # async fn demo(node: mote_dist::node::Node) {
    /// node.send_named("logger", "erl@127.0.0.1", &("info", "hello from mote"));
    /// # }
    /// ```
    pub fn send_named<M: Serialize + ?Sized>(&self, name: &str, node: &str, message: &M) {
        let (Ok(to_name), Ok(node)) = (Atom::new(name), node.parse::<NodeName>()) else {
            tracing::debug!(name, node, "send to a malformed {{Name, Node}} dropped");
            return;
        };
        let from = node_table::to_wire(mote::self_id().unwrap_or(mote::ProcessId::NONE));
        let frame = FrameBuilder::new(&ControlMessage::RegSend { from, to_name })
            .and_then(|f| f.payload(message, &self.shared.serde))
            .and_then(FrameBuilder::finish_frame);
        match frame {
            Ok(frame) if node == self.shared.local.name => {
                self.shared.handle_local(frame.into_contiguous())
            }
            Ok(frame) => self.shared.route(node.atom().clone(), frame),
            Err(e) => tracing::warn!(name, %node, "message not encodable, dropped: {e}"),
        }
    }
}

impl Node {
    /// Monitors the process registered as `name` on `node` for `process` (Erlang's
    /// `monitor(process, {Name, Node})`): its `Down` carries `{name, node}` in `by_name`
    /// (and, since the pid is not known here, [`mote::dist::name_monitor_target`] as its
    /// `pid`). `noproc` if no process has the name there; `noconnection` if the node cannot
    /// be reached or its connection is lost.
    ///
    /// ```no_run
    /// use mote::{Down, Process};
    /// # async fn demo(node: mote_dist::node::Node, mut p: Process<Down>) {
    /// let r = node.monitor_name(&p, "logger", "erl@127.0.0.1").unwrap();
    /// let down = p.recv().await;
    /// assert_eq!(down.monitor, r);
    /// # }
    /// ```
    pub fn monitor_name<M: From<mote::Down> + Send + 'static>(
        &self,
        process: &mote::Process<M>,
        name: &str,
        node: &str,
    ) -> Result<mote::MonitorRef, mote::RegistryError> {
        let number = match node.parse::<NodeName>() {
            Ok(n) if n == self.shared.local.name => 0,
            Ok(n) => node_table::node_number(n.atom()),
            // A malformed node name: no such node (a number nothing is connected to).
            Err(_) => u32::MAX,
        };
        mote::dist::monitor_name_at(process, name, number)
    }
}

/// Registers `pid` under `name` (as [`mote::register`]) and exposes it to other nodes
/// (`mote::dist::expose`): messages sent to `{name, ThisNode}` decode as `M`.
///
/// ```
/// use mote::Process;
///
/// mote::run(|p: Process<(u32, String)>| async move {
///     mote_dist::node::register("jobs", p.pid()).unwrap();
///     assert_eq!(mote::whereis("jobs"), Some(p.id()));
/// })
/// .unwrap();
/// ```
pub fn register<M: DeserializeOwned + Send + 'static>(
    name: &str,
    pid: mote::Pid<M>,
) -> Result<(), mote::RegistryError> {
    mote::register(name, pid)?;
    mote::dist::expose(pid);
    Ok(())
}
