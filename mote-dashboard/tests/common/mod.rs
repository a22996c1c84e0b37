//! What the dashboard's tests share: a known supervision tree, and a small HTTP client.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use mote::supervisor::{ChildSpec, DynamicSupervisor, Restart, Strategy, Supervisor};
use mote::{Process, ProcessId, SpawnOptions};

/// The longest any wait of these tests takes before it fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// The processes of the tree [`start_tree`] starts, by their registered names.
pub struct Tree {
    pub root: ProcessId,
    pub inner: ProcessId,
    pub sessions: ProcessId,
    pub worker: ProcessId,
    pub temporary: ProcessId,
}

/// A child spec for a plain process registered as `name` that waits forever.
fn sleeper(id: &str, name: String) -> ChildSpec {
    ChildSpec::new(id, move || {
        let name = name.clone();
        async move {
            let pid = SpawnOptions::new()
                .name(name)
                .linked()
                .spawn(|mut c: Process<()>| async move { c.recv().await });
            Ok(pid.id())
        }
    })
}

/// Starts, from outside any process so that it belongs to no run and outlives this call
/// (a tree started inside `mote::run` ends when that run returns):
///
/// ```text
/// {p}_root (one_for_one)
/// ├── {p}_worker         permanent, registered as {p}_worker
/// ├── {p}_inner (one_for_all)
/// │   └── {p}_leaf       permanent
/// └── {p}_sessions (dynamic)
///     └── {p}_temp       temporary, registered as {p}_temp
/// ```
///
/// `p` keeps the names of two tests of one binary apart.
pub fn start_tree(p: &str) -> Tree {
    let p = p.to_string();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime for the set-up");
    runtime.block_on(async move {
        let inner = Supervisor::new(Strategy::OneForAll)
            .name(format!("{p}_inner"))
            .child(sleeper("leaf", format!("{p}_leaf")));
        let root = Supervisor::new(Strategy::OneForOne)
            .name(format!("{p}_root"))
            .intensity(50, Duration::from_secs(10))
            .child(sleeper("worker", format!("{p}_worker")))
            .child(inner.into_child_spec("inner"))
            .child(
                DynamicSupervisor::new()
                    .name(format!("{p}_sessions"))
                    .into_child_spec("sessions"),
            )
            .start()
            .await
            .expect("the tree starts");
        let sessions = mote::supervisor::DynamicSupervisorRef::named(&format!("{p}_sessions"))
            .expect("the dynamic supervisor is registered");
        let temporary = sessions
            .start_child(sleeper("temp", format!("{p}_temp")).restart(Restart::Temporary))
            .await
            .expect("the temporary child starts");
        let whereis = |n: &str| mote::whereis(format!("{p}_{n}").as_str()).expect(n);
        Tree {
            root: root.id(),
            inner: whereis("inner"),
            sessions: sessions.id(),
            worker: whereis("worker"),
            temporary,
        }
    })
}

/// Waits until `check` gives a value, failing the test after [`WAIT`] with `what`.
pub fn eventually<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A pid as it goes in a URL path.
pub fn path_pid(id: ProcessId) -> String {
    id.to_string().replace('<', "%3C").replace('>', "%3E")
}

/// One HTTP/1.1 request; the status and the body parsed as JSON (`Null` if it is not).
pub fn request(addr: SocketAddr, method: &str, path: &str) -> (u16, serde_json::Value) {
    let (status, body) = request_text(addr, method, path);
    (
        status,
        serde_json::from_str(&body).unwrap_or(serde_json::Value::Null),
    )
}

/// One HTTP/1.1 request; the status and the body as text.
pub fn request_text(addr: SocketAddr, method: &str, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("connecting to the dashboard");
    stream.set_read_timeout(Some(WAIT)).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .expect("reading the response");
    let (head, body) = response
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {response:?}"));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        unchunk(body)
    } else {
        body.to_string()
    };
    (status, body)
}

fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").expect("a chunk size");
        let size = usize::from_str_radix(size.trim(), 16).expect("a hex chunk size");
        if size == 0 {
            return out;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
}
