//! EPMD, the Erlang Port Mapper Daemon: a [`client`](EpmdClient) to register a node and
//! find others, and an embedded [`server`](EpmdServer) compatible with `epmd`, so a
//! cluster of mote nodes needs no Erlang installation.
//!
//! ```no_run
//! use mote_dist::epmd::{EpmdClient, EpmdServer, NodeEntry, NodeType};
//!
//! # async fn demo() -> Result<(), mote_dist::epmd::EpmdError> {
//! let server = EpmdServer::bind("127.0.0.1:0".parse().unwrap()).await?;
//! let client = EpmdClient::new(server.local_addr());
//! let registration = client.register(&NodeEntry::new("mote", 45000, NodeType::Hidden)).await?;
//! assert_eq!(client.port_please("mote").await?.unwrap().port, 45000);
//! drop(registration); // closes the socket: EPMD forgets the node
//! # Ok(()) }
//! ```

pub(crate) mod client;
pub(crate) mod protocol;
mod server;

pub use client::{EpmdClient, Registration};
pub use protocol::{NodeEntry, NodeType};
pub use server::EpmdServer;

/// The port EPMD listens on unless `ERL_EPMD_PORT` says otherwise.
///
/// ```
/// assert_eq!(mote_dist::epmd::DEFAULT_PORT, 4369);
/// ```
pub const DEFAULT_PORT: u16 = 4369;

/// Why an EPMD request failed.
///
/// ```
/// use mote_dist::epmd::EpmdError;
///
/// let e = EpmdError::Refused { name: "mote".into(), result: 1 };
/// assert!(e.to_string().contains("mote"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EpmdError {
    /// The socket failed (EPMD not running: connection refused).
    #[error("EPMD I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// EPMD did not answer in time.
    #[error("EPMD did not answer within {0:?}")]
    Timeout(std::time::Duration),
    /// EPMD refused the registration (the name is taken).
    #[error("EPMD refused to register {name:?} (result {result}); is the name taken?")]
    Refused {
        /// The name.
        name: String,
        /// EPMD's result code.
        result: u8,
    },
    /// A message that does not follow the protocol.
    #[error("malformed EPMD message: {0}")]
    Malformed(String),
}
