//! Watching nodes: Erlang's `monitor_node/2` (one `nodedown` for one node) and
//! `net_kernel:monitor_nodes/1` (every `nodeup` and `nodedown`), delivered as typed
//! messages to the watching process.

use mote::Pid;

use super::connections::Shared;
use super::Node;
use crate::etf::Atom;
use crate::handshake::NodeName;

/// The connection to a node monitored with [`Node::monitor_node`] is gone, or could not be
/// made (Erlang's `{nodedown, Node}`).
///
/// ```
/// let down = mote_dist::node::NodeDown("erl@127.0.0.1".into());
/// assert_eq!(down.0, "erl@127.0.0.1");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeDown(pub String);

/// A node connected or disconnected (Erlang's `{nodeup, Node}` and `{nodedown, Node}`),
/// for processes that called [`Node::monitor_nodes`].
///
/// ```
/// use mote_dist::node::NodeEvent;
/// assert_ne!(NodeEvent::Up("a@h".into()), NodeEvent::Down("a@h".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeEvent {
    /// Connected.
    Up(String),
    /// Disconnected.
    Down(String),
}

/// A callback that tells a process, false once the process is gone.
pub(crate) type Tell<T> = Box<dyn Fn(T) -> bool + Send + Sync>;

fn tell<M: From<T> + Send + 'static, T>(pid: Pid<M>) -> Tell<T> {
    Box::new(move |event| {
        pid.send(M::from(event));
        mote::is_alive(pid)
    })
}

impl Node {
    /// Erlang's `monitor_node(Node, true)`: `pid` gets one [`NodeDown`] (converted into its
    /// message type) when the connection to `node` goes down, or at once if it cannot be
    /// made. Connects if not connected.
    ///
    /// ```no_run
    /// use mote::Process;
    /// use mote_dist::node::NodeDown;
    ///
    /// # async fn demo(node: mote_dist::node::Node, mut p: Process<NodeDown>) {
    /// node.monitor_node(p.pid(), "erl@127.0.0.1");
    /// let NodeDown(which) = p.recv().await;
    /// println!("{which} is down");
    /// # }
    /// ```
    pub fn monitor_node<M: From<NodeDown> + Send + 'static>(&self, pid: Pid<M>, node: &str) {
        let Ok(name) = node.parse::<NodeName>() else {
            pid.send(M::from(NodeDown(node.to_owned())));
            return;
        };
        let peer = name.atom().clone();
        self.shared
            .node_watchers
            .lock()
            .entry(peer.clone())
            .or_default()
            .push(tell(pid));
        let shared = self.shared.clone();
        self.shared.spawn(async move {
            // A failed connection reports the loss to the watchers (`node_down`).
            shared.connected(peer).await;
        });
    }

    /// Erlang's `net_kernel:monitor_nodes(true)`: `pid` gets a [`NodeEvent`] (converted
    /// into its message type) each time a node connects or disconnects, while it lives.
    ///
    /// ```no_run
    /// use mote::Process;
    /// use mote_dist::node::NodeEvent;
    ///
    /// # async fn demo(node: mote_dist::node::Node, mut p: Process<NodeEvent>) {
    /// node.monitor_nodes(p.pid());
    /// while let NodeEvent::Up(n) | NodeEvent::Down(n) = p.recv().await {
    ///     println!("{n} changed");
    /// }
    /// # }
    /// ```
    pub fn monitor_nodes<M: From<NodeEvent> + Send + 'static>(&self, pid: Pid<M>) {
        self.shared.nodes_watchers.lock().push(tell(pid));
    }
}

impl Shared {
    /// Tells the watchers of every node that `peer` connected.
    pub(crate) fn tell_up(&self, peer: &Atom) {
        let event = NodeEvent::Up(peer.as_str().to_owned());
        self.nodes_watchers.lock().retain(|t| t(event.clone()));
    }

    /// Tells the watchers of `peer` that it is gone, and those of every node too if it was
    /// connected (a node never up is never reported down to them, as in Erlang).
    pub(crate) fn tell_down(&self, peer: &Atom, was_up: bool) {
        let name = peer.as_str().to_owned();
        let once = self.node_watchers.lock().remove(peer).unwrap_or_default();
        for t in once {
            t(NodeDown(name.clone()));
        }
        if was_up {
            let event = NodeEvent::Down(name);
            self.nodes_watchers.lock().retain(|t| t(event.clone()));
        }
    }

    pub(crate) fn spawn(&self, f: impl std::future::Future<Output = ()> + Send + 'static) {
        self.runtime.spawn(f);
    }
}

/// Keeps the types' names in one place for the table of node watchers.
pub(crate) type NodeWatchers = std::collections::HashMap<Atom, Vec<Tell<NodeDown>>>;
pub(crate) type NodesWatchers = Vec<Tell<NodeEvent>>;
