//! Reaching a node by name: EPMD lookup, TCP connection, initiator handshake.

use tokio::net::TcpStream;

use super::{connect, HandshakeError, HandshakeOptions, LocalNode, NodeName, PeerNode};
use crate::epmd::{EpmdClient, EpmdError};

/// Why [`dial`] failed.
///
/// ```
/// use mote_dist::handshake::DialError;
///
/// assert!(DialError::NotRegistered("x@h".into()).to_string().contains("not registered"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DialError {
    /// EPMD could not be asked.
    #[error("asking EPMD for {node}: {source}")]
    Epmd {
        /// The node looked up.
        node: String,
        /// The EPMD error.
        source: EpmdError,
    },
    /// EPMD does not know the node.
    #[error("node {0} is not registered with EPMD")]
    NotRegistered(String),
    /// The TCP connection failed or took longer than the handshake timeout.
    #[error("connecting to {node}: {source}")]
    Connect {
        /// The node.
        node: String,
        /// The error.
        source: std::io::Error,
    },
    /// The handshake failed.
    #[error(transparent)]
    Handshake(#[from] HandshakeError),
}

/// Connects to the node `peer`: asks `epmd` (normally `EpmdClient::for_host(peer.host())`)
/// for its port, opens a TCP connection to its host, and runs the initiator handshake.
///
/// ```no_run
/// use mote_dist::epmd::EpmdClient;
/// use mote_dist::handshake::{dial, Cookie, HandshakeOptions, LocalNode, NodeName};
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let me = LocalNode::new("mote@127.0.0.1".parse()?, Cookie::new("secret"), 1);
/// let peer: NodeName = "erl@127.0.0.1".parse()?;
/// let (stream, info) = dial(&me, &peer, &EpmdClient::for_host(peer.host()), &HandshakeOptions::default()).await?;
/// # let _ = (stream, info);
/// # Ok(()) }
/// ```
pub async fn dial(
    local: &LocalNode,
    peer: &NodeName,
    epmd: &EpmdClient,
    opts: &HandshakeOptions,
) -> Result<(TcpStream, PeerNode), DialError> {
    let stream = dial_tcp(peer, epmd, opts).await?;
    Ok(connect(stream, local, peer, opts).await?)
}

/// The first half of [`dial`]: the EPMD lookup and the TCP connection (no handshake), for
/// a caller that puts something between the socket and the handshake (TLS).
///
/// ```no_run
/// use mote_dist::epmd::EpmdClient;
/// use mote_dist::handshake::{dial_tcp, HandshakeOptions};
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let socket = dial_tcp(&"erl@127.0.0.1".parse()?, &EpmdClient::local(), &HandshakeOptions::default()).await?;
/// # let _ = socket; Ok(()) }
/// ```
pub async fn dial_tcp(
    peer: &NodeName,
    epmd: &EpmdClient,
    opts: &HandshakeOptions,
) -> Result<TcpStream, DialError> {
    let entry = epmd
        .port_please(peer.alive())
        .await
        .map_err(|source| DialError::Epmd {
            node: peer.to_string(),
            source,
        })?
        .ok_or_else(|| DialError::NotRegistered(peer.to_string()))?;
    let connect_err = |source| DialError::Connect {
        node: peer.to_string(),
        source,
    };
    let stream = tokio::time::timeout(opts.timeout, TcpStream::connect((peer.host(), entry.port)))
        .await
        .map_err(|_| connect_err(std::io::ErrorKind::TimedOut.into()))?
        .map_err(connect_err)?;
    stream.set_nodelay(true).map_err(connect_err)?;
    Ok(stream)
}
