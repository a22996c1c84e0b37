//! How a node starts: [`NodeOptions`].

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use super::connections::Shared;
use super::transport::NodeTransport;
use super::Node;
use crate::connection::ConnectionOptions;
use crate::epmd::{EpmdClient, EpmdError, EpmdServer, NodeEntry, NodeType};
use crate::handshake::{BadNodeName, Cookie, CookieError, HandshakeOptions, LocalNode, NodeName};

/// What a node is started with: its name, cookie and options.
///
/// ```no_run
/// use std::time::Duration;
/// use mote_dist::node::NodeOptions;
///
/// # async fn demo() -> Result<(), mote_dist::node::NodeError> {
/// let node = NodeOptions::new("worker1@127.0.0.1")
///     .cookie("secret")         // default: ~/.erlang.cookie, as erl reads it
///     .hidden()                 // not part of other nodes' `nodes()`
///     .start_epmd(true)         // start a name server if none runs
///     .tick_time(Duration::from_secs(20))
///     .start()
///     .await?;
/// # let _ = node; Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct NodeOptions {
    name: String,
    cookie: Option<Cookie>,
    hidden: bool,
    epmd_port: Option<u16>,
    start_epmd: bool,
    listen: IpAddr,
    tick_time: Duration,
    handshake_timeout: Duration,
    tls: Option<super::TlsConfig>,
}

/// Why a node did not start.
///
/// ```
/// use mote_dist::node::{NodeError, NodeOptions};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let e = NodeOptions::new("no-host-part").cookie("c").start().await.unwrap_err();
/// assert!(matches!(e, NodeError::Name(_)));
/// # }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NodeError {
    /// The name is not `alive@host`.
    #[error("bad node name: {0}")]
    Name(#[from] BadNodeName),
    /// No cookie was given and `~/.erlang.cookie` could not be read or made.
    #[error("no cookie: {0}")]
    Cookie(#[from] CookieError),
    /// The listening socket could not be opened.
    #[error("cannot listen: {0}")]
    Listen(std::io::Error),
    /// EPMD refused the registration (the name is taken) or does not run.
    #[error("EPMD registration failed: {0}")]
    Epmd(#[from] EpmdError),
    /// A node already runs in this OS process.
    #[error("a node already runs in this OS process")]
    AlreadyStarted,
}

impl NodeOptions {
    /// Options for a node named `name` (`alive@host`; a host with a dot makes a long
    /// name, as `erl -name`, otherwise a short one, as `erl -sname`).
    ///
    /// ```
    /// let o = mote_dist::node::NodeOptions::new("mote@127.0.0.1");
    /// # let _ = o;
    /// ```
    pub fn new(name: impl Into<String>) -> Self {
        NodeOptions {
            name: name.into(),
            cookie: None,
            hidden: false,
            epmd_port: None,
            start_epmd: false,
            listen: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            tick_time: Duration::from_secs(60),
            handshake_timeout: Duration::from_secs(7),
            tls: None,
        }
    }

    /// The cookie (default: the contents of `~/.erlang.cookie`, created if missing, as
    /// `erl` does).
    ///
    /// ```
    /// let o = mote_dist::node::NodeOptions::new("a@h").cookie("secret");
    /// # let _ = o;
    /// ```
    pub fn cookie(mut self, cookie: impl Into<String>) -> Self {
        self.cookie = Some(Cookie::new(cookie));
        self
    }

    /// A hidden node (`erl -hidden`): connections to it are not part of other nodes'
    /// `nodes()`, and it does not join their global groups.
    ///
    /// ```
    /// let o = mote_dist::node::NodeOptions::new("a@h").hidden();
    /// # let _ = o;
    /// ```
    pub fn hidden(mut self) -> Self {
        self.hidden = true;
        self
    }

    /// The EPMD port (default: `ERL_EPMD_PORT`, or 4369).
    ///
    /// ```
    /// let o = mote_dist::node::NodeOptions::new("a@h").epmd_port(4400);
    /// # let _ = o;
    /// ```
    pub fn epmd_port(mut self, port: u16) -> Self {
        self.epmd_port = Some(port);
        self
    }

    /// When no EPMD runs on this machine, start an embedded EPMD-compatible name server in
    /// this process (it serves other nodes too, and lives as long as the node), so a
    /// mote-only cluster needs no Erlang install. Default `false`.
    ///
    /// ```
    /// let o = mote_dist::node::NodeOptions::new("a@h").start_epmd(true);
    /// # let _ = o;
    /// ```
    pub fn start_epmd(mut self, start: bool) -> Self {
        self.start_epmd = start;
        self
    }

    /// The address to accept connections on (default: all interfaces).
    ///
    /// ```
    /// let o = mote_dist::node::NodeOptions::new("a@127.0.0.1").listen([127, 0, 0, 1].into());
    /// # let _ = o;
    /// ```
    pub fn listen(mut self, addr: IpAddr) -> Self {
        self.listen = addr;
        self
    }

    /// Erlang's `net_ticktime` (default 60 s): a peer silent this long is declared down.
    ///
    /// ```
    /// let o = mote_dist::node::NodeOptions::new("a@h").tick_time(std::time::Duration::from_secs(8));
    /// # let _ = o;
    /// ```
    pub fn tick_time(mut self, tick_time: Duration) -> Self {
        self.tick_time = tick_time;
        self
    }

    /// Distribution over TLS (Erlang's `-proto_dist inet_tls`): every connection, made or
    /// accepted, is a TLS session in which both nodes present certificates signed by the
    /// CA of `tls`. A node with TLS talks only to nodes with TLS, as Erlang's do.
    ///
    /// ```no_run
    /// # fn demo(tls: mote_dist::node::TlsConfig) {
    /// let o = mote_dist::node::NodeOptions::new("a@127.0.0.1").tls(tls);
    /// # let _ = o; }
    /// ```
    pub fn tls(mut self, tls: super::TlsConfig) -> Self {
        self.tls = Some(tls);
        self
    }

    /// Starts the node. Must be called inside a tokio runtime that outlives the node (the
    /// runtime of `mote::run` or `mote::run_async` when called from a process): its
    /// listener and connections are tasks of that runtime.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), mote_dist::node::NodeError> {
    /// let node = mote_dist::node::NodeOptions::new("mote@127.0.0.1").cookie("c").start().await?;
    /// # let _ = node; Ok(()) }
    /// ```
    pub async fn start(self) -> Result<Node, NodeError> {
        let name: NodeName = self.name.parse()?;
        let cookie = match self.cookie {
            Some(c) => c,
            None => Cookie::from_home_or_create()?,
        };
        if mote::dist::is_installed() {
            return Err(NodeError::AlreadyStarted);
        }
        let listener = TcpListener::bind(SocketAddr::new(self.listen, 0))
            .await
            .map_err(NodeError::Listen)?;
        let port = listener.local_addr().map_err(NodeError::Listen)?.port();
        let epmd_port = self
            .epmd_port
            .unwrap_or_else(crate::epmd::client::port_from_env);
        let epmd = EpmdClient::new(SocketAddr::from(([127, 0, 0, 1], epmd_port)));
        let node_type = if self.hidden {
            NodeType::Hidden
        } else {
            NodeType::Normal
        };
        let entry = NodeEntry::new(name.alive(), port, node_type);
        let (registration, epmd_server) = match epmd.register(&entry).await {
            Ok(r) => (r, None),
            Err(EpmdError::Io(_)) | Err(EpmdError::Timeout(_)) if self.start_epmd => {
                let server =
                    EpmdServer::bind(SocketAddr::from(([127, 0, 0, 1], epmd_port))).await?;
                (epmd.register(&entry).await?, Some(server))
            }
            Err(e) => return Err(e.into()),
        };
        let mut local = LocalNode::new(name, cookie, registration.creation());
        if !self.hidden {
            local = local.published();
        }
        let shared = Shared::new(
            local,
            epmd_port,
            port,
            HandshakeOptions {
                timeout: self.handshake_timeout,
                ..HandshakeOptions::default()
            },
            ConnectionOptions {
                tick_time: self.tick_time,
                ..ConnectionOptions::default()
            },
            registration,
            epmd_server,
            self.tls,
        );
        mote::dist::install(Arc::new(NodeTransport {
            shared: shared.clone(),
        }))
        .map_err(|_| NodeError::AlreadyStarted)?;
        crate::node_table::set_local(shared.local.name.atom().clone(), shared.local.creation);
        tokio::spawn(shared.clone().accept_loop(listener));
        Ok(Node { shared })
    }
}
