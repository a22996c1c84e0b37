//! The EPMD client: register (keeping the socket), look a node up, list names.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::protocol::{self, framed, NodeEntry, Reader};
use super::{EpmdError, DEFAULT_PORT};

/// Talks to the EPMD on one host.
///
/// ```no_run
/// use mote_dist::epmd::EpmdClient;
///
/// # async fn demo() -> Result<(), mote_dist::epmd::EpmdError> {
/// // The local EPMD, on the port `ERL_EPMD_PORT` names (4369 by default), as erl does.
/// let epmd = EpmdClient::local();
/// for (name, port) in epmd.names().await? {
///     println!("{name} at {port}");
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct EpmdClient {
    host: String,
    port: u16,
    timeout: Duration,
}

impl EpmdClient {
    /// The EPMD at this address.
    pub fn new(addr: SocketAddr) -> Self {
        EpmdClient {
            host: addr.ip().to_string(),
            port: addr.port(),
            timeout: Duration::from_secs(5),
        }
    }

    /// The EPMD of `host` (a name or an address), on the port `ERL_EPMD_PORT` names or
    /// 4369.
    pub fn for_host(host: &str) -> Self {
        EpmdClient {
            host: host.to_owned(),
            port: port_from_env(),
            timeout: Duration::from_secs(5),
        }
    }

    /// The same EPMD host on another port.
    ///
    /// ```
    /// let c = mote_dist::epmd::EpmdClient::for_host("h").with_port(4400);
    /// # let _ = c;
    /// ```
    pub fn with_port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// The EPMD of this machine (`localhost`), on the port `ERL_EPMD_PORT` names or 4369.
    pub fn local() -> Self {
        Self::for_host("localhost")
    }

    /// Another limit on how long each request may take (default 5 s).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn connect(&self) -> Result<TcpStream, EpmdError> {
        let stream = TcpStream::connect((self.host.as_str(), self.port)).await?;
        stream.set_nodelay(true)?;
        Ok(stream)
    }

    async fn timed<T>(
        &self,
        f: impl std::future::Future<Output = Result<T, EpmdError>>,
    ) -> Result<T, EpmdError> {
        tokio::time::timeout(self.timeout, f)
            .await
            .map_err(|_| EpmdError::Timeout(self.timeout))?
    }

    /// Registers a node (ALIVE2_REQ). The registration lasts as long as the returned
    /// [`Registration`] (its socket) lives, as with `epmd`.
    pub async fn register(&self, entry: &NodeEntry) -> Result<Registration, EpmdError> {
        self.timed(async {
            let mut req = vec![protocol::ALIVE2_REQ];
            entry.encode_fields(&mut req)?;
            let mut stream = self.connect().await?;
            stream.write_all(&framed(&req)?).await?;
            let tag = stream.read_u8().await?;
            let result = stream.read_u8().await?;
            let creation = match tag {
                protocol::ALIVE2_X_RESP => stream.read_u32().await?,
                protocol::ALIVE2_RESP => u32::from(stream.read_u16().await?),
                other => return Err(EpmdError::Malformed(format!("ALIVE2 reply tag {other}"))),
            };
            if result != 0 {
                return Err(EpmdError::Refused {
                    name: entry.name.clone(),
                    result,
                });
            }
            tracing::debug!(name = %entry.name, creation, "registered with EPMD");
            Ok(Registration { stream, creation })
        })
        .await
    }

    /// Looks a node up by its name without `@host` (PORT_PLEASE2_REQ); `None` if it is not
    /// registered.
    pub async fn port_please(&self, name: &str) -> Result<Option<NodeEntry>, EpmdError> {
        self.timed(async {
            let mut req = vec![protocol::PORT_PLEASE2_REQ];
            req.extend_from_slice(name.as_bytes());
            let mut stream = self.connect().await?;
            stream.write_all(&framed(&req)?).await?;
            let mut reply = Vec::new();
            stream.read_to_end(&mut reply).await?;
            let mut r = Reader(&reply);
            if r.u8()? != protocol::PORT2_RESP {
                return Err(EpmdError::Malformed("PORT_PLEASE2 reply tag".into()));
            }
            match r.u8()? {
                0 => NodeEntry::decode_fields(r.0).map(Some),
                _ => Ok(None),
            }
        })
        .await
    }

    /// The registered nodes and their ports (NAMES_REQ).
    pub async fn names(&self) -> Result<Vec<(String, u16)>, EpmdError> {
        self.timed(async {
            let mut stream = self.connect().await?;
            stream.write_all(&framed(&[protocol::NAMES_REQ])?).await?;
            let mut reply = Vec::new();
            stream.read_to_end(&mut reply).await?;
            let mut r = Reader(&reply);
            let _epmd_port = r.u32()?;
            Ok(protocol::parse_names(&String::from_utf8_lossy(r.0)))
        })
        .await
    }
}

/// The EPMD port: `ERL_EPMD_PORT` if set and valid, else 4369.
pub(crate) fn port_from_env() -> u16 {
    std::env::var("ERL_EPMD_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(DEFAULT_PORT)
}

/// A node's registration with EPMD: dropping it (or [`close`](Self::close)) closes the
/// socket, and EPMD forgets the node.
///
/// ```
/// use mote_dist::epmd::{EpmdClient, EpmdServer, NodeEntry, NodeType};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mote_dist::epmd::EpmdError> {
/// let server = EpmdServer::bind("127.0.0.1:0".parse().unwrap()).await?;
/// let client = EpmdClient::new(server.local_addr());
/// let reg = client.register(&NodeEntry::new("n", 4000, NodeType::Hidden)).await?;
/// assert_eq!(client.port_please("n").await?.map(|e| e.port), Some(4000));
/// reg.close().await;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Registration {
    stream: TcpStream,
    creation: u32,
}

impl Registration {
    /// The creation EPMD assigned: the node must put it in every pid, reference and
    /// port it makes, so they differ from those of its previous incarnations.
    pub fn creation(&self) -> u32 {
        self.creation
    }

    /// Ends the registration.
    pub async fn close(mut self) {
        let _ = self.stream.shutdown().await;
    }

    /// Waits until EPMD closes the registration's socket (EPMD stopped).
    pub async fn closed(&mut self) {
        let mut buf = [0u8; 64];
        while let Ok(n) = self.stream.read(&mut buf).await {
            if n == 0 {
                return;
            }
        }
    }
}
