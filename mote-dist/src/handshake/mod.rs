//! The distribution handshake, protocol version 6, in both roles: [`connect`] (the
//! initiator) and [`accept`] (the acceptor).
//!
//! Both authenticate with the cookie digest (`md5(Cookie ++ decimal challenge)`) and
//! negotiate [`DistFlags`]; a peer with a different cookie gets no challenge ack, and a
//! peer lacking the flags OTP 26 makes mandatory is refused. The whole handshake is
//! bounded by [`HandshakeOptions::timeout`], so a peer that stalls blocks nothing.
//!
//! The stream is anything `AsyncRead + AsyncWrite` (a `TcpStream`, or a TLS stream);
//! [`dial`] does the EPMD lookup and TCP connection before [`connect`].
//!
//! ```no_run
//! use mote_dist::handshake::{connect, Cookie, DistFlags, HandshakeOptions, LocalNode};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let me = LocalNode::new("mote@127.0.0.1".parse()?, Cookie::new("secret"), 1);
//! let stream = tokio::net::TcpStream::connect("127.0.0.1:45000").await?;
//! let (stream, peer) = connect(stream, &me, &"erl@127.0.0.1".parse()?, &HandshakeOptions::default()).await?;
//! println!("connected to {} with flags {:?}", peer.name, peer.flags);
//! # Ok(()) }
//! ```

mod cookie;
mod dial;
mod flags;
mod messages;
mod node_name;

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};

pub use cookie::{Cookie, CookieError};
pub use dial::{dial, dial_tcp, DialError};
pub use flags::DistFlags;
pub use node_name::{BadNodeName, NodeName};

use messages::{Challenge, ChallengeReply, SendName};

/// This node, as the handshake presents it.
///
/// ```
/// use mote_dist::handshake::{Cookie, DistFlags, LocalNode};
///
/// let me = LocalNode::new("mote@vm".parse().unwrap(), Cookie::new("c"), 5).published();
/// assert!(me.flags.contains(DistFlags::PUBLISHED | DistFlags::MANDATORY));
/// ```
#[derive(Debug, Clone)]
pub struct LocalNode {
    /// The node's name.
    pub name: NodeName,
    /// The shared secret.
    pub cookie: Cookie,
    /// The creation (from EPMD's registration), put into every pid the node makes.
    pub creation: u32,
    /// The capabilities advertised ([`DistFlags::IMPLEMENTED`] by default: hidden).
    pub flags: DistFlags,
}

impl LocalNode {
    /// A hidden node advertising [`DistFlags::IMPLEMENTED`].
    pub fn new(name: NodeName, cookie: Cookie, creation: u32) -> Self {
        LocalNode {
            name,
            cookie,
            creation,
            flags: DistFlags::IMPLEMENTED,
        }
    }

    /// The same node, published (visible in other nodes' `nodes()`). A published node
    /// receives `global`'s synchronisation traffic as soon as it connects.
    pub fn published(mut self) -> Self {
        self.flags |= DistFlags::PUBLISHED;
        self
    }
}

/// The node at the other end of a completed handshake (see [`connect`] for an example).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerNode {
    /// Its name.
    pub name: NodeName,
    /// Its creation.
    pub creation: u32,
    /// The flags both sides set: what the connection may use.
    pub flags: DistFlags,
    /// The flags the peer advertised.
    pub advertised: DistFlags,
}

impl PeerNode {
    /// Whether the peer is hidden (it did not set `PUBLISHED`).
    pub fn is_hidden(&self) -> bool {
        !self.advertised.contains(DistFlags::PUBLISHED)
    }
}

/// What the acceptor answers a node that wants to connect (its `send_status`).
///
/// The connection manager decides it from what it knows about the peer: see
/// [`resolve_simultaneous`] for two nodes connecting to each other at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Go ahead (`ok`).
    Ok,
    /// Go ahead; this node was connecting too and gives its own attempt up
    /// (`ok_simultaneous`).
    OkSimultaneous,
    /// Refused: this node's own attempt wins (`nok`).
    Nok,
    /// Refused (`not_allowed`).
    NotAllowed,
    /// This node believes it is already connected to the peer (`alive`): the peer
    /// answers whether to go on, replacing that connection, or stop.
    Alive,
}

impl Admission {
    fn status(self) -> &'static str {
        match self {
            Admission::Ok => "ok",
            Admission::OkSimultaneous => "ok_simultaneous",
            Admission::Nok => "nok",
            Admission::NotAllowed => "not_allowed",
            Admission::Alive => "alive",
        }
    }
}

/// Erlang's rule for two nodes connecting to each other at the same time: the attempt of
/// the node with the greater name wins. Called by the acceptor of `peer`'s attempt while
/// its own attempt to `peer` is pending.
///
/// ```
/// use mote_dist::handshake::{resolve_simultaneous, Admission};
///
/// let a = "a@h".parse().unwrap();
/// let b = "b@h".parse().unwrap();
/// assert_eq!(resolve_simultaneous(&a, &b), Admission::OkSimultaneous); // b's attempt wins
/// assert_eq!(resolve_simultaneous(&b, &a), Admission::Nok); // our (b's) attempt wins
/// ```
pub fn resolve_simultaneous(local: &NodeName, peer: &NodeName) -> Admission {
    if peer.as_str() > local.as_str() {
        Admission::OkSimultaneous
    } else {
        Admission::Nok
    }
}

/// Decisions the connection manager makes during handshakes.
///
/// The defaults admit everyone and answer `alive` with "go on" (the old connection is
/// stale): right for a node that keeps no connection table.
///
/// ```
/// use std::sync::Arc;
/// use mote_dist::handshake::{resolve_simultaneous, Admission, DistFlags, HandshakeHooks, HandshakeOptions, NodeName};
///
/// /// A node that is itself dialling `b@h` right now.
/// struct Dialling { me: NodeName }
///
/// impl HandshakeHooks for Dialling {
///     fn admit(&self, peer: &NodeName, _flags: DistFlags) -> Admission {
///         if peer.as_str() == "b@h" { resolve_simultaneous(&self.me, peer) } else { Admission::Ok }
///     }
/// }
///
/// let hooks = Dialling { me: "a@h".parse().unwrap() };
/// assert_eq!(hooks.admit(&"b@h".parse().unwrap(), DistFlags::MANDATORY), Admission::OkSimultaneous);
/// let opts = HandshakeOptions { hooks: Arc::new(hooks), ..Default::default() };
/// # let _ = opts;
/// ```
pub trait HandshakeHooks: Send + Sync {
    /// The acceptor's answer to a node asking to connect.
    fn admit(&self, _peer: &NodeName, _flags: DistFlags) -> Admission {
        Admission::Ok
    }

    /// The initiator's answer when the acceptor believes a connection to us is alive:
    /// `true` to replace it, `false` to stop this attempt.
    fn replace_alive(&self, _peer: &NodeName) -> bool {
        true
    }
}

/// Hooks with the default decisions (see [`HandshakeHooks`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultHooks;

impl HandshakeHooks for DefaultHooks {}

/// Options for one handshake.
///
/// ```
/// use std::time::Duration;
/// use mote_dist::handshake::HandshakeOptions;
///
/// let o = HandshakeOptions { timeout: Duration::from_secs(2), ..HandshakeOptions::default() };
/// assert_eq!(HandshakeOptions::default().timeout, Duration::from_secs(7));
/// # let _ = o;
/// ```
#[derive(Clone)]
pub struct HandshakeOptions {
    /// The most the whole handshake may take (default 7 s, Erlang's `net_setuptime`).
    pub timeout: Duration,
    /// The connection manager's decisions.
    pub hooks: Arc<dyn HandshakeHooks>,
    /// Handshake messages with 4-byte lengths instead of 2-byte ones, as Erlang's TLS
    /// distribution (`inet_tls`, a `{packet, 4}` socket throughout) frames them. Default
    /// `false` (plain TCP).
    pub tls_framing: bool,
}

impl Default for HandshakeOptions {
    fn default() -> Self {
        HandshakeOptions {
            timeout: Duration::from_secs(7),
            hooks: Arc::new(DefaultHooks),
            tls_framing: false,
        }
    }
}

impl std::fmt::Debug for HandshakeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandshakeOptions")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// Why a handshake failed. The connection should be closed.
///
/// ```
/// use mote_dist::handshake::{DistFlags, HandshakeError};
///
/// let e = HandshakeError::MissingFlags { peer: "old@h".into(), missing: DistFlags::V4_NC };
/// assert!(e.to_string().contains("old@h"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HandshakeError {
    /// The socket failed or closed (a peer that rejects our cookie closes it instead of
    /// acknowledging).
    #[error("handshake I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The handshake took longer than the timeout.
    #[error("handshake did not complete within {0:?}")]
    Timeout(Duration),
    /// The peer's digest does not match our cookie: it has another cookie.
    #[error("node {peer} presented a wrong digest: different cookie")]
    BadCookie {
        /// The peer's claimed name.
        peer: String,
    },
    /// The peer lacks capabilities OTP 26+ requires.
    #[error("node {peer} lacks mandatory capabilities {missing:?}")]
    MissingFlags {
        /// The peer.
        peer: String,
        /// The flags it lacks.
        missing: DistFlags,
    },
    /// The acceptor refused the connection (`nok`, `not_allowed`, or `alive` answered
    /// with `false`), or we refused it.
    #[error("connection refused with status {status:?}")]
    Refused {
        /// The status.
        status: String,
    },
    /// The acceptor turned out to be another node than the one we meant to reach.
    #[error("expected node {expected}, reached {found}")]
    WrongNode {
        /// The node we dialled.
        expected: String,
        /// The node that answered.
        found: String,
    },
    /// A message that does not follow the protocol.
    #[error("handshake protocol error: {0}")]
    Protocol(String),
}

/// Runs the initiator's side of the handshake on `stream`, connecting to the node
/// `expected`. Returns the stream, ready for the connected phase, and the peer.
///
/// Both roles over an in-memory stream:
///
/// ```
/// use mote_dist::handshake::{accept, connect, Cookie, HandshakeError, HandshakeOptions, LocalNode};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let a = LocalNode::new("a@h".parse().unwrap(), Cookie::new("secret"), 1);
/// let b = LocalNode::new("b@h".parse().unwrap(), Cookie::new("secret"), 2).published();
/// let (sa, sb) = tokio::io::duplex(1024);
/// let opts = HandshakeOptions::default();
/// let (initiated, accepted) = tokio::join!(connect(sa, &a, &b.name, &opts), accept(sb, &b, &opts));
/// let (_, b_seen_by_a) = initiated.unwrap();
/// let (_, a_seen_by_b) = accepted.unwrap();
/// assert_eq!((b_seen_by_a.creation, b_seen_by_a.is_hidden()), (2, false));
/// assert_eq!((a_seen_by_b.name.as_str(), a_seen_by_b.is_hidden()), ("a@h", true));
///
/// // Another cookie: the acceptor sends no challenge ack, both sides fail.
/// let intruder = LocalNode::new("c@h".parse().unwrap(), Cookie::new("guess"), 3);
/// let (sc, sb) = tokio::io::duplex(1024);
/// let (initiated, accepted) = tokio::join!(connect(sc, &intruder, &b.name, &opts), accept(sb, &b, &opts));
/// assert!(matches!(initiated, Err(HandshakeError::BadCookie { .. })));
/// assert!(matches!(accepted, Err(HandshakeError::BadCookie { .. })));
/// # }
/// ```
pub async fn connect<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    local: &LocalNode,
    expected: &NodeName,
    opts: &HandshakeOptions,
) -> Result<(S, PeerNode), HandshakeError> {
    let peer = tokio::time::timeout(opts.timeout, initiate(&mut stream, local, expected, opts))
        .await
        .map_err(|_| HandshakeError::Timeout(opts.timeout))??;
    tracing::debug!(peer = %peer.name, flags = ?peer.flags, "connected (initiator)");
    Ok((stream, peer))
}

async fn initiate<S: AsyncRead + AsyncWrite + Unpin>(
    s: &mut S,
    local: &LocalNode,
    expected: &NodeName,
    opts: &HandshakeOptions,
) -> Result<PeerNode, HandshakeError> {
    let send_name = SendName {
        flags: local.flags,
        creation: local.creation,
        name: local.name.clone(),
    };
    messages::write_msg(s, opts.tls_framing, &send_name.encode()).await?;

    let status = messages::decode_status(&messages::read_msg(s, opts.tls_framing).await?)?;
    match status.as_str() {
        "ok" | "ok_simultaneous" => {}
        "alive" => {
            let go_on = opts.hooks.replace_alive(expected);
            let answer = if go_on { "true" } else { "false" };
            messages::write_msg(s, opts.tls_framing, &messages::encode_status(answer)).await?;
            if !go_on {
                return Err(HandshakeError::Refused { status });
            }
        }
        _ => return Err(HandshakeError::Refused { status }),
    }

    let challenge = Challenge::decode(&messages::read_msg(s, opts.tls_framing).await?)?;
    if challenge.name != *expected {
        return Err(HandshakeError::WrongNode {
            expected: expected.to_string(),
            found: challenge.name.to_string(),
        });
    }
    check_flags(&challenge.name, challenge.flags)?;

    let my_challenge: u32 = rand::random();
    let reply = ChallengeReply {
        challenge: my_challenge,
        digest: local.cookie.digest(challenge.challenge),
    };
    messages::write_msg(s, opts.tls_framing, &reply.encode()).await?;

    let ack = match messages::read_msg(s, opts.tls_framing).await {
        Ok(ack) => messages::decode_ack(&ack)?,
        // The acceptor closes without an ack when our digest is wrong.
        Err(HandshakeError::Io(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            return Err(HandshakeError::BadCookie {
                peer: challenge.name.to_string(),
            })
        }
        Err(e) => return Err(e),
    };
    if ack != local.cookie.digest(my_challenge) {
        return Err(HandshakeError::BadCookie {
            peer: challenge.name.to_string(),
        });
    }
    Ok(PeerNode {
        name: challenge.name,
        creation: challenge.creation,
        flags: local.flags & challenge.flags.expand_digest(),
        advertised: challenge.flags,
    })
}

/// Runs the acceptor's side of the handshake on a stream a node connected with. See
/// [`connect`] for an example of both roles.
pub async fn accept<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    local: &LocalNode,
    opts: &HandshakeOptions,
) -> Result<(S, PeerNode), HandshakeError> {
    let peer = tokio::time::timeout(opts.timeout, respond(&mut stream, local, opts))
        .await
        .map_err(|_| HandshakeError::Timeout(opts.timeout))??;
    tracing::debug!(peer = %peer.name, flags = ?peer.flags, "connected (acceptor)");
    Ok((stream, peer))
}

async fn respond<S: AsyncRead + AsyncWrite + Unpin>(
    s: &mut S,
    local: &LocalNode,
    opts: &HandshakeOptions,
) -> Result<PeerNode, HandshakeError> {
    let send_name = SendName::decode(&messages::read_msg(s, opts.tls_framing).await?)?;
    if let Err(e) = check_flags(&send_name.name, send_name.flags) {
        messages::write_msg(s, opts.tls_framing, &messages::encode_status("not_allowed")).await?;
        return Err(e);
    }

    let admission = opts.hooks.admit(&send_name.name, send_name.flags);
    messages::write_msg(
        s,
        opts.tls_framing,
        &messages::encode_status(admission.status()),
    )
    .await?;
    match admission {
        Admission::Ok | Admission::OkSimultaneous => {}
        Admission::Nok | Admission::NotAllowed => {
            return Err(HandshakeError::Refused {
                status: admission.status().into(),
            })
        }
        Admission::Alive => {
            let answer = messages::decode_status(&messages::read_msg(s, opts.tls_framing).await?)?;
            if answer != "true" {
                return Err(HandshakeError::Refused {
                    status: format!("alive, answered {answer}"),
                });
            }
        }
    }

    let my_challenge: u32 = rand::random();
    let challenge = Challenge {
        flags: local.flags,
        challenge: my_challenge,
        creation: local.creation,
        name: local.name.clone(),
    };
    messages::write_msg(s, opts.tls_framing, &challenge.encode()).await?;

    let reply = ChallengeReply::decode(&messages::read_msg(s, opts.tls_framing).await?)?;
    if reply.digest != local.cookie.digest(my_challenge) {
        tracing::warn!(peer = %send_name.name, "connection attempt with a wrong cookie refused");
        return Err(HandshakeError::BadCookie {
            peer: send_name.name.to_string(),
        });
    }
    messages::write_msg(
        s,
        opts.tls_framing,
        &messages::encode_ack(&local.cookie.digest(reply.challenge)),
    )
    .await?;
    Ok(PeerNode {
        name: send_name.name,
        creation: send_name.creation,
        flags: local.flags & send_name.flags.expand_digest(),
        advertised: send_name.flags,
    })
}

fn check_flags(peer: &NodeName, flags: DistFlags) -> Result<(), HandshakeError> {
    let missing = flags.missing_mandatory();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(HandshakeError::MissingFlags {
            peer: peer.to_string(),
            missing,
        })
    }
}
