//! An embedded EPMD-compatible name server.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use super::protocol::{self, NodeEntry};
use super::EpmdError;

/// How long a client may take to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// An EPMD-compatible name server running on the current tokio runtime.
///
/// It answers ALIVE2 (registering a node with a fresh creation number, refusing a name
/// already taken), PORT_PLEASE2 and NAMES like `epmd`, so both mote nodes and `erl`
/// (started with `ERL_EPMD_PORT` set to its port) can use it. A node's registration ends
/// when its ALIVE2 socket closes. Debug and kill requests (DUMP, KILL, STOP) are not
/// served: the server lives as long as this value.
///
/// ```
/// use mote_dist::epmd::{EpmdClient, EpmdServer, NodeEntry, NodeType};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mote_dist::epmd::EpmdError> {
/// let server = EpmdServer::bind("127.0.0.1:0".parse().unwrap()).await?;
/// let client = EpmdClient::new(server.local_addr());
/// let reg = client.register(&NodeEntry::new("a", 4000, NodeType::Normal)).await?;
/// assert_ne!(reg.creation(), 0);
/// assert_eq!(client.names().await?, [("a".to_string(), 4000)]);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct EpmdServer {
    local_addr: SocketAddr,
    accept: JoinHandle<()>,
    state: Arc<State>,
}

#[derive(Debug)]
struct State {
    nodes: Mutex<HashMap<String, NodeEntry>>,
    next_creation: Mutex<u32>,
    port: u16,
}

impl EpmdServer {
    /// Listens on `addr` (port 0 picks a free port) and serves until dropped.
    pub async fn bind(addr: SocketAddr) -> Result<Self, EpmdError> {
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let state = Arc::new(State {
            nodes: Mutex::new(HashMap::new()),
            // Creations start at a random non-zero value, as epmd's do, so a node that
            // restarts gets a different one even if the server restarted too.
            next_creation: Mutex::new(rand::random::<u32>().max(1)),
            port: local_addr.port(),
        });
        let serving = state.clone();
        let accept = tokio::spawn(async move {
            loop {
                match listener.accept().await {
                    Ok((stream, _)) => {
                        let state = serving.clone();
                        tokio::spawn(async move {
                            if let Err(e) = serve(stream, &state).await {
                                tracing::debug!("EPMD client: {e}");
                            }
                        });
                    }
                    Err(e) => {
                        tracing::warn!("EPMD accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            }
        });
        Ok(EpmdServer {
            local_addr,
            accept,
            state,
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The nodes registered now.
    pub fn registered(&self) -> Vec<NodeEntry> {
        self.state.nodes.lock().values().cloned().collect()
    }
}

impl Drop for EpmdServer {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

impl State {
    fn creation(&self) -> u32 {
        let mut next = self.next_creation.lock();
        let c = *next;
        *next = next.wrapping_add(1).max(1);
        c
    }
}

async fn serve(mut stream: TcpStream, state: &State) -> Result<(), EpmdError> {
    let request = tokio::time::timeout(REQUEST_TIMEOUT, async {
        let len = usize::from(stream.read_u16().await?);
        let mut req = vec![0u8; len];
        stream.read_exact(&mut req).await?;
        Ok::<_, std::io::Error>(req)
    })
    .await
    .map_err(|_| EpmdError::Timeout(REQUEST_TIMEOUT))??;
    let Some((&tag, body)) = request.split_first() else {
        return Err(EpmdError::Malformed("empty request".into()));
    };
    match tag {
        protocol::ALIVE2_REQ => alive(stream, state, body).await,
        protocol::PORT_PLEASE2_REQ => {
            let name = String::from_utf8_lossy(body);
            let entry = state.nodes.lock().get(name.as_ref()).cloned();
            let mut reply = vec![protocol::PORT2_RESP];
            match entry {
                Some(e) => {
                    reply.push(0);
                    e.encode_fields(&mut reply)?;
                }
                None => reply.push(1),
            }
            stream.write_all(&reply).await?;
            Ok(())
        }
        protocol::NAMES_REQ => {
            let mut reply = u32::from(state.port).to_be_bytes().to_vec();
            let mut names: Vec<_> = state
                .nodes
                .lock()
                .values()
                .map(|e| (e.name.clone(), e.port))
                .collect();
            names.sort();
            for (name, port) in names {
                reply.extend_from_slice(format!("name {name} at port {port}\n").as_bytes());
            }
            stream.write_all(&reply).await?;
            Ok(())
        }
        other => Err(EpmdError::Malformed(format!("unsupported request {other}"))),
    }
}

/// Registers the node, replies, and holds the registration until the socket closes.
async fn alive(mut stream: TcpStream, state: &State, body: &[u8]) -> Result<(), EpmdError> {
    let entry = NodeEntry::decode_fields(body)?;
    let name = entry.name.clone();
    let extended = entry.highest_version >= 6;
    let creation = {
        let mut nodes = state.nodes.lock();
        if nodes.contains_key(&name) || name.is_empty() {
            None
        } else {
            nodes.insert(name.clone(), entry);
            Some(state.creation())
        }
    };
    let mut reply = vec![
        if extended {
            protocol::ALIVE2_X_RESP
        } else {
            protocol::ALIVE2_RESP
        },
        u8::from(creation.is_none()),
    ];
    let c = creation.unwrap_or(0);
    if extended {
        reply.extend_from_slice(&c.to_be_bytes());
    } else {
        reply.extend_from_slice(&(c as u16).to_be_bytes());
    }
    let written = stream.write_all(&reply).await;
    if creation.is_none() {
        return written.map_err(Into::into);
    }
    let _unregister = Unregister { state, name: &name };
    written?;
    tracing::debug!(%name, creation = c, "node registered");
    // The registration lasts until the node closes the socket (or it fails).
    let mut buf = [0u8; 64];
    while let Ok(n) = stream.read(&mut buf).await {
        if n == 0 {
            break;
        }
    }
    Ok(())
}

/// Removes a registration when its connection ends, however it ends.
struct Unregister<'a> {
    state: &'a State,
    name: &'a str,
}

impl Drop for Unregister<'_> {
    fn drop(&mut self) {
        self.state.nodes.lock().remove(self.name);
        tracing::debug!(name = %self.name, "node unregistered");
    }
}
