//! The node's connections: one per peer node, made on first send (or by an incoming
//! handshake), with the frames queued while it is being made.
//!
//! The table maps a peer's name to its state: `Connecting` (a dial is under way; frames
//! and pings wait in order) or `Up` (frames go straight to the connection's writer).
//! Taking the table's lock around "queue or send" is what keeps one sender's messages in
//! order while a connection comes up: the dialler flushes the queue and switches the entry
//! to `Up` under the same lock.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::connection::{self, ConnectionOptions, DistReceiver, DistSender, Frame};
use crate::epmd::{EpmdClient, EpmdServer, Registration};
use crate::etf::Atom;
use crate::handshake::{
    self, resolve_simultaneous, Admission, DistFlags, HandshakeHooks, HandshakeOptions, LocalNode,
    NodeName, PeerNode,
};
use crate::serde::Options;

/// A dialled connection, before the connected phase.
enum Stream {
    Tcp(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

/// One peer's connection state.
enum Conn {
    /// A dial is under way: what to send once it is up, and who waits for the outcome.
    Connecting {
        queued: Vec<Frame>,
        waiters: Vec<oneshot::Sender<bool>>,
    },
    /// Connected; `id` tells this connection from a later one to the same peer.
    Up { sender: DistSender, id: u64 },
}

/// What the node's tasks share.
pub(crate) struct Shared {
    pub(crate) local: LocalNode,
    pub(crate) port: u16,
    pub(crate) serde: Options,
    epmd_port: u16,
    handshake: HandshakeOptions,
    conn_options: ConnectionOptions,
    conns: Mutex<HashMap<Atom, Conn>>,
    next_id: AtomicU64,
    /// The id of the next UNLINK_ID this node sends.
    pub(crate) next_unlink: AtomicU64,
    /// Links and monitors across each connection (see `signals.rs`).
    pub(crate) relations: Mutex<HashMap<Atom, super::signals::Relations>>,
    /// `monitor_node` watchers, by node (each told once).
    pub(crate) node_watchers: Mutex<super::watch::NodeWatchers>,
    /// `monitor_nodes` watchers.
    pub(crate) nodes_watchers: Mutex<super::watch::NodesWatchers>,
    /// The runtime the node was started in: dials start there, whatever thread sends.
    pub(crate) runtime: tokio::runtime::Handle,
    /// TLS settings: every connection is a TLS session when set.
    tls: Option<super::TlsConfig>,
    /// Held for the node's life: dropping it would unregister the node from EPMD.
    _registration: Mutex<Registration>,
    _epmd_server: Option<EpmdServer>,
}

/// The handshake decisions, made from the connection table.
struct Hooks(Weak<Shared>);

impl HandshakeHooks for Hooks {
    fn admit(&self, peer: &NodeName, _flags: DistFlags) -> Admission {
        let Some(shared) = self.0.upgrade() else {
            return Admission::NotAllowed;
        };
        let conns = shared.conns.lock();
        let admission = match conns.get(peer.atom()) {
            None => Admission::Ok,
            // Both nodes dial each other: Erlang's rule picks one attempt.
            Some(Conn::Connecting { .. }) => resolve_simultaneous(&shared.local.name, peer),
            // The peer dials while we believe a connection is up (it restarted, or the
            // connection died silently): it decides whether to replace ours.
            Some(Conn::Up { sender, .. }) if !sender.is_closed() => Admission::Alive,
            Some(Conn::Up { .. }) => Admission::Ok,
        };
        admission
    }
}

impl Shared {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        local: LocalNode,
        epmd_port: u16,
        port: u16,
        handshake: HandshakeOptions,
        conn_options: ConnectionOptions,
        registration: Registration,
        epmd_server: Option<EpmdServer>,
        tls: Option<super::TlsConfig>,
    ) -> Arc<Shared> {
        Arc::new_cyclic(|weak| Shared {
            local,
            port,
            serde: Options::default(),
            epmd_port,
            handshake: HandshakeOptions {
                hooks: Arc::new(Hooks(weak.clone())),
                ..handshake
            },
            conn_options,
            conns: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            next_unlink: AtomicU64::new(1),
            relations: Mutex::new(HashMap::new()),
            node_watchers: Mutex::new(Default::default()),
            nodes_watchers: Mutex::new(Vec::new()),
            runtime: tokio::runtime::Handle::current(),
            tls,
            _registration: Mutex::new(registration),
            _epmd_server: epmd_server,
        })
    }

    /// Queues `frame` for `peer`, connecting first if there is no connection.
    /// Borrows the node: a message to a connected node costs no reference count.
    pub(crate) fn route(self: &Arc<Self>, peer: Atom, frame: impl Into<Frame>) {
        let frame = frame.into();
        let mut conns = self.conns.lock();
        match conns.get_mut(&peer) {
            Some(Conn::Up { sender, .. }) => match sender.send_frame(frame) {
                Ok(()) => return,
                // The connection just died; its receiver cleans up. Dial a new one.
                Err(_) => {
                    conns.insert(
                        peer.clone(),
                        Conn::Connecting {
                            queued: Vec::new(),
                            waiters: Vec::new(),
                        },
                    );
                }
            },
            Some(Conn::Connecting { queued, .. }) => {
                queued.push(frame);
                return;
            }
            None => {
                conns.insert(
                    peer.clone(),
                    Conn::Connecting {
                        queued: vec![frame],
                        waiters: Vec::new(),
                    },
                );
            }
        }
        drop(conns);
        self.runtime.spawn(self.clone().dial(peer));
    }

    /// The end of `peer`'s connection's busy state, if it is busy now (see
    /// `DistSender::is_busy`).
    pub(crate) fn busy(&self, peer: &Atom) -> Option<mote::dist::Writable> {
        match self.conns.lock().get(peer) {
            Some(Conn::Up { sender, .. }) if sender.is_busy() => {
                let sender = sender.clone();
                Some(Box::pin(async move { sender.writable().await }))
            }
            _ => None,
        }
    }

    /// Connects to `peer` if needed; `true` once connected.
    pub(crate) async fn connected(self: Arc<Self>, peer: Atom) -> bool {
        let (tx, rx) = oneshot::channel();
        let dial = {
            let mut conns = self.conns.lock();
            match conns.get_mut(&peer) {
                Some(Conn::Up { sender, .. }) if !sender.is_closed() => return true,
                Some(Conn::Connecting { waiters, .. }) => {
                    waiters.push(tx);
                    false
                }
                _ => {
                    conns.insert(
                        peer.clone(),
                        Conn::Connecting {
                            queued: Vec::new(),
                            waiters: vec![tx],
                        },
                    );
                    true
                }
            }
        };
        if dial {
            self.runtime.clone().spawn(self.dial(peer));
        }
        rx.await.unwrap_or(false)
    }

    /// The peers with a live connection.
    pub(crate) fn connected_nodes(&self) -> Vec<String> {
        self.conns
            .lock()
            .iter()
            .filter_map(|(name, c)| match c {
                Conn::Up { sender, .. } if !sender.is_closed() => Some(name.as_str().to_owned()),
                _ => None,
            })
            .collect()
    }

    /// Dials `peer` (EPMD lookup on its host, TCP, handshake as the initiator).
    async fn dial(self: Arc<Self>, peer: Atom) {
        let result = match peer.as_str().parse::<NodeName>() {
            Ok(name) => {
                let epmd = EpmdClient::for_host(name.host()).with_port(self.epmd_port);
                match &self.tls {
                    None => handshake::dial(&self.local, &name, &epmd, &self.handshake)
                        .await
                        .map(|(stream, info)| (Stream::Tcp(stream), info))
                        .map_err(|e| e.to_string()),
                    Some(tls) => self.dial_tls(tls, &name, &epmd).await,
                }
            }
            Err(e) => Err(e.to_string()),
        };
        match result {
            Ok((Stream::Tcp(stream), info)) => self.serve(stream, info),
            Ok((Stream::Tls(stream), info)) => self.serve_stream(*stream, info),
            Err(e) => {
                // Erlang drops what was queued for a node it cannot reach. An incoming
                // connection that won a simultaneous attempt has already replaced the
                // entry with `Up`; then nothing is lost.
                let mut conns = self.conns.lock();
                if let Some(Conn::Connecting { .. }) = conns.get(&peer) {
                    if let Some(Conn::Connecting { queued, waiters }) = conns.remove(&peer) {
                        drop(conns);
                        tracing::info!(peer = %peer, dropped = queued.len(), "connection failed: {e}");
                        for w in waiters {
                            let _ = w.send(false);
                        }
                        self.node_down(&peer, false);
                    }
                }
            }
        }
    }

    /// Accepts connections for the node's life.
    pub(crate) async fn accept_loop(self: Arc<Self>, listener: TcpListener) {
        loop {
            let (stream, addr) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            };
            let shared = self.clone();
            tokio::spawn(async move {
                let Some(tls) = shared.tls.clone() else {
                    match handshake::accept(stream, &shared.local, &shared.handshake).await {
                        Ok((stream, peer)) => shared.serve(stream, peer),
                        Err(e) => tracing::info!(%addr, "incoming handshake failed: {e}"),
                    }
                    return;
                };
                let _ = stream.set_nodelay(true);
                let session =
                    tokio::time::timeout(shared.handshake.timeout, tls.acceptor.accept(stream))
                        .await;
                let stream = match session {
                    Ok(Ok(stream)) => stream,
                    Ok(Err(e)) => return tracing::info!(%addr, "incoming TLS session refused: {e}"),
                    Err(_) => return tracing::info!(%addr, "incoming TLS session timed out"),
                };
                let opts = HandshakeOptions {
                    tls_framing: true,
                    ..shared.handshake.clone()
                };
                match handshake::accept(stream, &shared.local, &opts).await {
                    Ok((stream, peer)) => shared.serve_stream(stream, peer),
                    Err(e) => tracing::info!(%addr, "incoming handshake failed: {e}"),
                }
            });
        }
    }

    /// Dials `name` over TLS: EPMD, TCP, the TLS session (the peer's certificate checked
    /// against its host), then the handshake inside it.
    async fn dial_tls(
        &self,
        tls: &super::TlsConfig,
        name: &NodeName,
        epmd: &EpmdClient,
    ) -> Result<(Stream, PeerNode), String> {
        let tcp = handshake::dial_tcp(name, epmd, &self.handshake)
            .await
            .map_err(|e| e.to_string())?;
        let server = rustls_pki_types::ServerName::try_from(name.host().to_owned())
            .map_err(|e| format!("{}: {e}", name.host()))?;
        let stream =
            tokio::time::timeout(self.handshake.timeout, tls.connector.connect(server, tcp))
                .await
                .map_err(|_| "TLS session timed out".to_string())?
                .map_err(|e| format!("TLS session refused: {e}"))?;
        let opts = HandshakeOptions {
            tls_framing: true,
            ..self.handshake.clone()
        };
        let (stream, info) = handshake::connect(stream, &self.local, name, &opts)
            .await
            .map_err(|e| e.to_string())?;
        Ok((Stream::Tls(Box::new(stream)), info))
    }

    /// Starts the connected phase with `peer` on a plain TCP connection (written from
    /// the sender's thread).
    fn serve(self: Arc<Self>, stream: TcpStream, peer: PeerNode) {
        let _ = stream.set_nodelay(true);
        let (sender, receiver) =
            connection::start_tcp(stream, peer.clone(), self.conn_options.clone());
        self.up(sender, receiver, peer);
    }

    /// Starts the connected phase with `peer` on any stream (a TLS session).
    fn serve_stream<S>(self: Arc<Self>, stream: S, peer: PeerNode)
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
    {
        let (sender, receiver) = connection::start(stream, peer.clone(), self.conn_options.clone());
        self.up(sender, receiver, peer);
    }

    /// Flushes what was queued for `peer`, marks it `Up`, and receives from it until it
    /// closes.
    fn up<R>(self: Arc<Self>, sender: DistSender, receiver: DistReceiver<R>, peer: PeerNode)
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
    {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let name = peer.name.atom().clone();
        let mut conns = self.conns.lock();
        let old = conns.insert(
            name.clone(),
            Conn::Up {
                sender: sender.clone(),
                id,
            },
        );
        // The queued frames go out before the lock is released: a sender that finds the
        // entry `Up` writes at once, and must not overtake its own queued messages.
        let waiters = match old {
            Some(Conn::Connecting { queued, waiters }) => {
                for frame in queued {
                    let _ = sender.send_frame(frame);
                }
                waiters
            }
            _ => Vec::new(),
        };
        drop(conns);
        for w in waiters {
            let _ = w.send(true);
        }
        tracing::info!(peer = %name, hidden = peer.is_hidden(), "node connected");
        // A replaced connection (the peer restarted) was down in between: its relations
        // fired with `noconnection` when its receive loop ended.
        self.tell_up(&name);
        tokio::spawn(self.receive_loop(receiver, name, sender, id));
    }

    async fn receive_loop<R: tokio::io::AsyncRead + Unpin>(
        self: Arc<Self>,
        mut receiver: DistReceiver<R>,
        peer: Atom,
        sender: DistSender,
        id: u64,
    ) {
        let error = loop {
            match receiver.recv().await {
                Ok(msg) => {
                    let taken = self.handle_signal(&peer, &msg)
                        || self.spawn_registered(&peer, &sender, &msg)
                        || self.spawn_reply(&peer, &msg);
                    if !taken {
                        self.handle(&peer, &sender, msg)
                    }
                }
                Err(e) => break e,
            }
        };
        tracing::info!(peer = %peer, "node disconnected: {error}");
        let current = {
            let mut conns = self.conns.lock();
            let current = matches!(conns.get(&peer), Some(Conn::Up { id: up, .. }) if *up == id);
            if current {
                conns.remove(&peer);
            }
            current
        };
        if current {
            self.node_down(&peer, true);
        }
    }
}
