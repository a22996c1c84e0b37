//! Helpers for the tests against a real `erl`: starting and killing `erl` and `epmd`
//! processes, and a minimal node built from this crate's parts.
#![allow(dead_code)] // each test binary uses part of this

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mote_dist::connection::{
    self, ConnectionOptions, ControlMessage, DistMessage, DistSender, GenCall,
};
use mote_dist::epmd::{EpmdClient, NodeEntry, NodeType, Registration};
use mote_dist::etf::{Atom, DecodeLimits, ErlPid, ErlRef, WireTerm};
use mote_dist::handshake::{self, Cookie, HandshakeOptions, LocalNode, NodeName, PeerNode};
use parking_lot::Mutex;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

/// How long any single wait in these tests may take. Generous: the machines are shared.
pub const WAIT: Duration = Duration::from_secs(60);

/// Whether the erl tests can run: `erl`, `epmd` and `erlc` on PATH. Without them a test prints a
/// SKIP line and passes, unless `MOTE_REQUIRE_ERL=1` (CI) makes that a failure.
pub fn erl_or_skip(test: &str) -> bool {
    let found = ["erl", "epmd", "erlc"].iter().all(|tool| {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
    });
    if !found {
        if std::env::var("MOTE_REQUIRE_ERL").as_deref() == Ok("1") {
            panic!("{test}: erl/epmd/erlc not on PATH and MOTE_REQUIRE_ERL=1");
        }
        // Written to the stream itself: the harness captures `println!` of passing tests.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIP {test}: erl/epmd/erlc not on PATH (set MOTE_REQUIRE_ERL=1 to fail instead)"
        );
    }
    found
}

/// A name no other test (or test run) uses.
pub fn unique(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "{prefix}{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Waits for a future, failing the test after [`WAIT`].
pub async fn within<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(WAIT, f)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// A child process (erl, epmd) killed when dropped, whatever the test's outcome, with
/// its output lines available to the test.
pub struct Proc {
    child: Child,
    lines: mpsc::UnboundedReceiver<String>,
    log: Arc<Mutex<Vec<String>>>,
    what: String,
}

impl Proc {
    pub fn spawn(mut cmd: Command, what: &str) -> Proc {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("starting {what}: {e}"));
        let (tx, lines) = mpsc::unbounded_channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        let out = child.stdout.take().expect("piped");
        let err = child.stderr.take().expect("piped");
        for (stream, prefix) in [
            (
                Box::new(out) as Box<dyn tokio::io::AsyncRead + Unpin + Send>,
                "",
            ),
            (Box::new(err), "stderr: "),
        ] {
            let tx = tx.clone();
            let log = log.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(stream).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    log.lock().push(format!("{prefix}{line}"));
                    if prefix.is_empty() {
                        let _ = tx.send(line);
                    }
                }
            });
        }
        Proc {
            child,
            lines,
            log,
            what: what.to_owned(),
        }
    }

    /// The next stdout line (panics with everything the process printed on timeout or exit).
    pub async fn line(&mut self) -> String {
        match tokio::time::timeout(WAIT, self.lines.recv()).await {
            Ok(Some(line)) => line,
            Ok(None) => panic!(
                "{} exited; output:\n{}",
                self.what,
                self.log.lock().join("\n")
            ),
            Err(_) => panic!(
                "{} printed nothing in time; output:\n{}",
                self.what,
                self.log.lock().join("\n")
            ),
        }
    }

    /// Skips lines until one starting with `prefix`; returns the rest of it.
    pub async fn expect(&mut self, prefix: &str) -> String {
        loop {
            let line = self.line().await;
            if let Some(rest) = line.strip_prefix(prefix) {
                return rest.trim().to_owned();
            }
        }
    }

    /// Everything the process printed so far.
    pub fn output(&self) -> String {
        self.log.lock().join("\n")
    }

    /// Kills the process and waits for it.
    pub async fn kill(mut self) {
        let _ = self.child.kill().await;
    }
}

/// An `erl` node: `-noshell -start_epmd false` (it never starts an epmd that would
/// outlive the test), the given name flag, cookie and expression.
pub fn erl(
    name_flag: &str,
    name: &str,
    cookie: &str,
    epmd_port: u16,
    extra: &[&str],
    eval: &str,
) -> Proc {
    let mut cmd = Command::new("erl");
    cmd.env("ERL_EPMD_PORT", epmd_port.to_string())
        .args([
            "-noshell",
            "-start_epmd",
            "false",
            name_flag,
            name,
            "-setcookie",
            cookie,
        ])
        .args(extra)
        .args(["-eval", eval]);
    Proc::spawn(cmd, &format!("erl {name}"))
}

/// A real `epmd` on a free port, in the foreground (killed with the test).
pub async fn real_epmd() -> (Proc, u16) {
    let port = free_port();
    let mut cmd = Command::new("epmd");
    cmd.args(["-port", &port.to_string(), "-address", "127.0.0.1"]);
    let proc = Proc::spawn(cmd, "epmd");
    let client = EpmdClient::new(SocketAddr::from(([127, 0, 0, 1], port)));
    within("epmd to listen", async {
        while client.names().await.is_err() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    (proc, port)
}

/// A port free at the time of asking.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// What the test node saw.
#[derive(Debug)]
pub enum Seen {
    /// A message other than the `is_auth` calls it answers itself.
    Message(NodeName, Box<DistMessage>),
    /// A connection ended with this error.
    Closed(NodeName, String),
    /// An incoming handshake failed.
    HandshakeFailed(String),
}

/// A node made of this crate's parts: EPMD registration, a listener running the acceptor
/// handshake, the connected phase, and `net_kernel`'s `is_auth` answered so
/// `net_adm:ping` works. Everything else it receives goes to [`TestNode::seen`].
pub struct TestNode {
    pub local: LocalNode,
    pub addr: SocketAddr,
    pub epmd: EpmdClient,
    pub seen: mpsc::UnboundedReceiver<Seen>,
    shared: Arc<Shared>,
    _registration: Registration,
    _acceptor: AbortOnDrop,
}

/// What the node's connection tasks share.
struct Shared {
    local: LocalNode,
    seen_tx: mpsc::UnboundedSender<Seen>,
    senders: Mutex<HashMap<NodeName, DistSender>>,
    handshake: HandshakeOptions,
    conn: ConnectionOptions,
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl TestNode {
    pub async fn start(name: &str, cookie: &str, epmd_port: u16, published: bool) -> TestNode {
        Self::start_with(
            name,
            cookie,
            epmd_port,
            published,
            HandshakeOptions::default(),
            ConnectionOptions::default(),
        )
        .await
    }

    pub async fn start_with(
        name: &str,
        cookie: &str,
        epmd_port: u16,
        published: bool,
        handshake: HandshakeOptions,
        conn: ConnectionOptions,
    ) -> TestNode {
        let name: NodeName = name.parse().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let epmd = EpmdClient::new(SocketAddr::from(([127, 0, 0, 1], epmd_port)));
        let node_type = if published {
            NodeType::Normal
        } else {
            NodeType::Hidden
        };
        let registration = epmd
            .register(&NodeEntry::new(name.alive(), addr.port(), node_type))
            .await
            .expect("register with EPMD");
        let mut local = LocalNode::new(name, Cookie::new(cookie), registration.creation());
        if published {
            local = local.published();
        }
        let (seen_tx, seen) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            local: local.clone(),
            seen_tx,
            senders: Mutex::new(HashMap::new()),
            handshake,
            conn,
        });
        let acceptor = tokio::spawn(accept_loop(listener, shared.clone()));
        TestNode {
            local,
            addr,
            epmd,
            seen,
            shared,
            _registration: registration,
            _acceptor: AbortOnDrop(acceptor),
        }
    }

    /// Connects to `peer` (found through the same EPMD) as the initiator.
    pub async fn connect(&self, peer: &NodeName) -> Result<DistSender, handshake::DialError> {
        let (stream, peer) =
            handshake::dial(&self.local, peer, &self.epmd, &self.shared.handshake).await?;
        Ok(self.shared.clone().serve(stream, peer))
    }

    /// The sender of the connection to `peer`, once there is one.
    pub fn sender(&self, peer: &NodeName) -> Option<DistSender> {
        self.shared.senders.lock().get(peer).cloned()
    }

    /// A pid on this node.
    pub fn pid(&self, id: u32) -> ErlPid {
        ErlPid {
            node: self.local.name.atom().clone(),
            id,
            serial: 0,
            creation: self.local.creation,
        }
    }

    /// A reference made by this node.
    pub fn reference(&self, ids: &[u32]) -> ErlRef {
        ErlRef::new(self.local.name.atom().clone(), self.local.creation, ids).unwrap()
    }

    /// The next thing seen.
    pub async fn next_seen(&mut self) -> Seen {
        within("the test node to see something", self.seen.recv())
            .await
            .expect("node alive")
    }

    /// The next message (other events are skipped).
    pub async fn next_message(&mut self) -> (NodeName, DistMessage) {
        loop {
            match self.next_seen().await {
                Seen::Message(peer, msg) => return (peer, *msg),
                other => eprintln!("(skipping {other:?})"),
            }
        }
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            match handshake::accept(stream, &shared.local, &shared.handshake).await {
                Ok((stream, peer)) => {
                    shared.clone().serve(stream, peer);
                }
                Err(e) => {
                    let _ = shared.seen_tx.send(Seen::HandshakeFailed(e.to_string()));
                }
            }
        });
    }
}

impl Shared {
    /// Starts the connected phase and a task that receives from it; returns the sender.
    fn serve(self: Arc<Self>, stream: TcpStream, peer: PeerNode) -> DistSender {
        let (sender, receiver) = connection::start(stream, peer.clone(), self.conn.clone());
        self.senders
            .lock()
            .insert(peer.name.clone(), sender.clone());
        tokio::spawn(self.receive_loop(receiver, peer, sender.clone()));
        sender
    }

    async fn receive_loop(
        self: Arc<Self>,
        mut receiver: connection::DistReceiver<tokio::io::ReadHalf<TcpStream>>,
        peer: PeerNode,
        sender: DistSender,
    ) {
        let limits = DecodeLimits::default();
        loop {
            match receiver.recv().await {
                Ok(msg) => {
                    if let Some(call) = is_auth_call(&msg, &limits) {
                        let reply = call.reply_frame(&WireTerm::atom("yes").unwrap()).unwrap();
                        let _ = sender.send(reply).await;
                        continue;
                    }
                    let _ = self
                        .seen_tx
                        .send(Seen::Message(peer.name.clone(), Box::new(msg)));
                }
                Err(e) => {
                    let _ = self
                        .seen_tx
                        .send(Seen::Closed(peer.name.clone(), e.to_string()));
                    return;
                }
            }
        }
    }
}

/// `net_kernel`'s `{is_auth, Node}` call, which `net_adm:ping` makes.
fn is_auth_call(msg: &DistMessage, limits: &DecodeLimits) -> Option<GenCall> {
    match &msg.control {
        ControlMessage::RegSend { to_name, .. } if to_name == "net_kernel" => {
            GenCall::parse(msg.payload.as_ref()?, limits)
        }
        _ => None,
    }
}

/// An atom.
pub fn atom(s: &str) -> Atom {
    Atom::new(s).unwrap()
}

/// The term with map pairs sorted by key encoding, and lists of small integers in one
/// form (map order and the STRING_EXT choice carry no meaning).
pub fn canonical(t: &WireTerm) -> WireTerm {
    match t {
        WireTerm::ByteList(b) => {
            WireTerm::List(b.iter().map(|&x| WireTerm::Int(i64::from(x))).collect())
        }
        WireTerm::List(e) => WireTerm::List(e.iter().map(canonical).collect()),
        WireTerm::Tuple(e) => WireTerm::Tuple(e.iter().map(canonical).collect()),
        WireTerm::ImproperList(e, tail) => {
            WireTerm::ImproperList(e.iter().map(canonical).collect(), Box::new(canonical(tail)))
        }
        WireTerm::Map(pairs) => {
            let mut pairs: Vec<_> = pairs
                .iter()
                .map(|(k, v)| (canonical(k), canonical(v)))
                .collect();
            pairs.sort_by_key(|(k, _)| k.encode().unwrap());
            WireTerm::Map(pairs)
        }
        other => other.clone(),
    }
}

/// The tokio runtime of a test binary whose tests share one mote node: it outlives each
/// test, as the node's tasks must.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    })
}

/// Runs a test on [`runtime`].
pub fn run(test: impl std::future::Future<Output = ()>) {
    runtime().block_on(test)
}

/// Starts this test process's mote node (`mote_dist::node`, one per OS process) with its
/// embedded EPMD on a free port; returns the node and that port.
pub async fn start_node(cookie: &str) -> (mote_dist::node::Node, u16) {
    let name = format!("{}@127.0.0.1", unique("mote"));
    start_with_epmd(|port| {
        mote_dist::node::NodeOptions::new(name.clone())
            .cookie(cookie)
            .epmd_port(port)
            .start_epmd(true)
    })
    .await
}

/// Starts the node `options` describes for an EPMD port, on a free port, with its embedded
/// EPMD; returns the node and the port. [`free_port`] finds a port by binding port 0 and
/// letting go, so another socket on the machine (another test's connection, given an
/// ephemeral port) may take it before the EPMD binds it: then it tries another port, a few
/// times, rather than failing the test on a race that is not the code's.
pub async fn start_with_epmd(
    options: impl Fn(u16) -> mote_dist::node::NodeOptions,
) -> (mote_dist::node::Node, u16) {
    const ATTEMPTS: usize = 5;
    let mut attempt = 1;
    loop {
        let port = free_port();
        match options(port).start().await {
            Ok(node) => return (node, port),
            Err(mote_dist::node::NodeError::Epmd(mote_dist::epmd::EpmdError::Io(e)))
                if e.kind() == std::io::ErrorKind::AddrInUse && attempt < ATTEMPTS =>
            {
                eprintln!("EPMD port {port} taken before it was bound ({e}); another port");
                attempt += 1;
            }
            Err(e) => panic!("the node starts (EPMD port {port}): {e}"),
        }
    }
}

/// Waits until the peer closes the socket.
pub async fn closed(mut s: TcpStream) {
    use tokio::io::AsyncReadExt;
    within("the node to close the connection", async {
        let mut buf = [0u8; 1024];
        while !matches!(s.read(&mut buf).await, Ok(0) | Err(_)) {}
    })
    .await
}

/// A frame: `body` after its 4-byte length.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut f = (body.len() as u32).to_be_bytes().to_vec();
    f.extend_from_slice(body);
    f
}
