//! The connected phase: 4-byte length frames, ticks, and control messages with their
//! payloads, in pass-through frames (`112, 131 Control, 131 Payload`).
//!
//! This layer negotiates neither the atom cache nor fragments: once either is
//! negotiated, OTP requires a distribution header on every message and refuses
//! pass-through frames, so both come together or not at all (see
//! `docs/distribution.md`). Without fragments a large message travels as one frame.
//!
//! [`start`] splits a handshaken stream into a [`DistSender`] (cloneable; a writer task
//! batches frames and sends a tick whenever nothing else went out for a quarter of the
//! tick time) and a [`DistReceiver`] (skips ticks, and reports a peer silent for the
//! whole tick time). Every malformed frame
//! or term is a [`ConnectionError`]: the caller logs it and drops the receiver, which
//! closes the connection.
//!
//! ```no_run
//! use mote_dist::connection::{self, ConnectionOptions, ControlMessage, FrameBuilder};
//! use mote_dist::handshake::{accept, Cookie, HandshakeOptions, LocalNode};
//!
//! # async fn demo(stream: tokio::net::TcpStream) -> Result<(), Box<dyn std::error::Error>> {
//! let me = LocalNode::new("mote@127.0.0.1".parse()?, Cookie::new("secret"), 1);
//! let (stream, peer) = accept(stream, &me, &HandshakeOptions::default()).await?;
//! let (sender, mut receiver) = connection::start(stream, peer, ConnectionOptions::default());
//! while let Ok(msg) = receiver.recv().await {
//!     if let ControlMessage::SendSender { from, .. } = &msg.control {
//!         let echo = FrameBuilder::new(&ControlMessage::Send { to: from.clone() })?
//!             .payload_encoded(msg.payload.as_deref().unwrap_or_default())
//!             .finish()?;
//!         sender.send(echo).await?;
//!     }
//! }
//! # Ok(()) }
//! ```

mod backlog;
mod control;
mod direct;
mod frame;
mod gen_call;
mod message;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use bytes::Buf;
use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

pub use control::{ControlMessage, ProcessRef};
pub(crate) use frame::Frame;
pub use gen_call::GenCall;
pub use message::{DistMessage, FrameBuilder};

use crate::etf::{DecodeError, DecodeLimits};
use crate::handshake::PeerNode;
use backlog::Backlog;

/// Options of the connected phase.
///
/// ```
/// use std::time::Duration;
/// use mote_dist::connection::ConnectionOptions;
///
/// let fast = ConnectionOptions { tick_time: Duration::from_secs(4), ..Default::default() };
/// assert_eq!(ConnectionOptions::default().tick_time, Duration::from_secs(60));
/// # let _ = fast;
/// ```
#[derive(Debug, Clone)]
pub struct ConnectionOptions {
    /// Erlang's `net_ticktime` (default 60 s): a tick goes out after a quarter of it
    /// without other traffic, and a peer silent for all of it is declared down.
    pub tick_time: Duration,
    /// Limits on each received term; a frame may be at most `max_size` bytes.
    pub limits: DecodeLimits,
}

impl Default for ConnectionOptions {
    fn default() -> Self {
        ConnectionOptions {
            tick_time: Duration::from_secs(60),
            limits: DecodeLimits::default(),
        }
    }
}

/// Why a connection failed. Each one ends that connection only.
///
/// ```
/// use mote_dist::connection::{ConnectionError, DistMessage};
/// use mote_dist::etf::DecodeLimits;
///
/// // A frame that is neither pass-through nor a negotiated header.
/// let err = DistMessage::parse(bytes::Bytes::from_static(&[1, 2, 3]), &DecodeLimits::default()).unwrap_err();
/// assert!(matches!(err, ConnectionError::Protocol(_)));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectionError {
    /// The socket failed or the peer closed it.
    #[error("connection I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// A malformed, truncated or oversized term.
    #[error("bad term from peer: {0}")]
    Decode(#[from] DecodeError),
    /// A frame longer than the limit.
    #[error("frame of {len} bytes exceeds the limit of {limit}")]
    FrameTooLarge {
        /// The announced length.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// Nothing, not even a tick, arrived for the whole tick time.
    #[error("peer silent for {0:?}: connection considered down")]
    PeerSilent(Duration),
    /// A frame that breaks the protocol (a header that was not negotiated).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The connection is closed (its writer stopped).
    #[error("connection closed")]
    Closed,
}

/// Starts the connected phase on a handshaken stream: returns the sending and receiving
/// halves. Must be called within a tokio runtime (the writer is a task).
///
/// Two nodes over an in-memory stream:
///
/// ```
/// use mote_dist::connection::{self, ControlMessage, FrameBuilder};
/// use mote_dist::handshake::{accept, connect, Cookie, HandshakeOptions, LocalNode};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let a = LocalNode::new("a@h".parse().unwrap(), Cookie::new("c"), 1);
/// let b = LocalNode::new("b@h".parse().unwrap(), Cookie::new("c"), 2);
/// let (sa, sb) = tokio::io::duplex(1 << 16);
/// let opts = HandshakeOptions::default();
/// let (ra, rb) = tokio::join!(connect(sa, &a, &b.name, &opts), accept(sb, &b, &opts));
/// let ((sa, b_info), (sb, a_info)) = (ra.unwrap(), rb.unwrap());
/// let (to_b, _from_b) = connection::start(sa, b_info, Default::default());
/// let (_to_a, mut from_a) = connection::start(sb, a_info, Default::default());
///
/// let pid = mote_dist::etf::ErlPid { node: b.name.atom().clone(), id: 7, serial: 0, creation: 2 };
/// let frame = FrameBuilder::new(&ControlMessage::Send { to: pid.clone() }).unwrap()
///     .payload(&("hello", 42u32), &Default::default()).unwrap()
///     .finish().unwrap();
/// to_b.send(frame).await.unwrap();
/// let msg = from_a.recv().await.unwrap();
/// assert_eq!(msg.control, ControlMessage::Send { to: pid });
/// assert_eq!(msg.decode_payload::<(String, u32)>(&Default::default()).unwrap(), ("hello".into(), 42));
/// # }
/// ```
pub fn start<S>(
    stream: S,
    peer: PeerNode,
    opts: ConnectionOptions,
) -> (DistSender, DistReceiver<tokio::io::ReadHalf<S>>)
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let (read, write) = tokio::io::split(stream);
    // Unbounded, as Erlang's distribution buffer is: a process's send never blocks, and
    // a message queued here keeps its place behind the sender's earlier ones.
    let (tx, rx) = mpsc::unbounded_channel();
    let backlog = Arc::new(Backlog::default());
    let writer = tokio::spawn(write_loop(write, rx, opts.tick_time / 4, backlog.clone()));
    let peer = Arc::new(peer);
    let sender = DistSender {
        out: Outbox::Task(tx),
        peer: peer.clone(),
        backlog: backlog.clone(),
    };
    let receiver = DistReceiver {
        reader: read,
        buf: BytesMut::new(),
        spare: VecDeque::new(),
        peer,
        opts,
        writer: AbortOnDrop(writer),
        direct: None,
        backlog,
    };
    (sender, receiver)
}

/// [`start`] for a TCP connection, writing on the sender's thread: a frame sent while
/// none is pending goes to the socket without waking the writer task (which only writes
/// what the socket did not take, and the ticks). Frames sent by a mote process wait in the
/// connection's batch until the process's poll ends (or the batch holds 64 KiB), and go
/// out in one `writev` (see `mote::dist::flush_at_poll_end`); a sender outside any process
/// writes at once, the batch first. Dropping the receiver closes the socket.
///
/// ```no_run
/// # async fn demo(stream: tokio::net::TcpStream, peer: mote_dist::handshake::PeerNode) {
/// let (sender, mut receiver) = mote_dist::connection::start_tcp(stream, peer, Default::default());
/// # }
/// ```
pub fn start_tcp(
    stream: tokio::net::TcpStream,
    peer: PeerNode,
    opts: ConnectionOptions,
) -> (DistSender, DistReceiver<tokio::net::tcp::OwnedReadHalf>) {
    let (read, write) = stream.into_split();
    let backlog = Arc::new(Backlog::default());
    let direct = direct::DirectWriter::new(write, backlog.clone());
    let writer = tokio::spawn(direct.clone().run(opts.tick_time / 4));
    let peer = Arc::new(peer);
    let sender = DistSender {
        out: Outbox::Direct(direct.clone()),
        peer: peer.clone(),
        backlog: backlog.clone(),
    };
    let receiver = DistReceiver {
        reader: read,
        buf: BytesMut::new(),
        spare: VecDeque::new(),
        peer,
        opts,
        writer: AbortOnDrop(writer),
        direct: Some(direct),
        backlog,
    };
    (sender, receiver)
}

/// Where a sender's frames go.
#[derive(Debug, Clone)]
enum Outbox {
    /// To the writer task (any stream).
    Task(mpsc::UnboundedSender<Frame>),
    /// To the socket at once when possible ([`start_tcp`]).
    Direct(Arc<direct::DirectWriter>),
}

/// The sending half of a connection: frames go to the connection's writer task in order.
/// Cloning gives another handle to the same connection. See [`start`] for an example.
#[derive(Debug, Clone)]
pub struct DistSender {
    out: Outbox,
    peer: Arc<PeerNode>,
    /// What waits for the socket, shared with the writer.
    backlog: Arc<Backlog>,
}

impl DistSender {
    /// Queues a frame built with [`FrameBuilder`] (the same as [`send_now`](Self::send_now),
    /// for async callers).
    pub async fn send(&self, frame: Bytes) -> Result<(), ConnectionError> {
        self.send_now(frame)
    }

    /// Queues a frame without waiting: the queue is unbounded, as Erlang's distribution
    /// buffer is, and frames go out in the order they were queued.
    pub fn send_now(&self, frame: Bytes) -> Result<(), ConnectionError> {
        self.send_frame(Frame::One(frame))
    }

    /// Queues a frame, whole or in pieces, without waiting.
    pub(crate) fn send_frame(&self, frame: Frame) -> Result<(), ConnectionError> {
        match &self.out {
            Outbox::Task(tx) => {
                // Counted before the writer can take it off.
                let len = frame.len();
                self.backlog.add(len);
                tx.send(frame).map_err(|_| {
                    self.backlog.sub(len);
                    ConnectionError::Closed
                })
            }
            Outbox::Direct(d) => d.send(frame).map_err(|()| ConnectionError::Closed),
        }
    }

    /// The peer.
    pub fn peer(&self) -> &PeerNode {
        &self.peer
    }

    /// Whether more than 1 MiB (Erlang's default distribution buffer busy limit) waits
    /// for the socket: the peer, or the network, is slower than the senders.
    ///
    /// ```no_run
    /// # async fn demo(sender: mote_dist::connection::DistSender) {
    /// if sender.is_busy() {
    ///     sender.writable().await;
    /// }
    /// # }
    /// ```
    pub fn is_busy(&self) -> bool {
        self.backlog.is_busy()
    }

    /// Ends when the connection is not busy ([`is_busy`](Self::is_busy)) or is closed:
    /// at once if it is not busy now.
    pub async fn writable(&self) {
        self.backlog.writable().await
    }

    /// Whether the connection's writer has stopped.
    pub fn is_closed(&self) -> bool {
        match &self.out {
            Outbox::Task(tx) => tx.is_closed(),
            Outbox::Direct(d) => d.is_closed(),
        }
    }
}

/// The receiving half of a connection. Dropping it closes the connection. See [`start`]
/// for an example.
#[derive(Debug)]
pub struct DistReceiver<R> {
    reader: R,
    /// What was read and not yet parsed. Each frame is split off it and frozen, so a
    /// received frame (and a large binary in it) shares this buffer's memory instead of
    /// being copied out, as the BEAM's received binaries refer to its read buffer.
    buf: BytesMut,
    /// Buffers read before, whose frames may still be alive: one is taken back once its
    /// frames are all dropped, so reads go to memory already mapped and in cache (a new
    /// allocation per buffer cost a page fault per 4 KiB read).
    spare: VecDeque<BytesMut>,
    peer: Arc<PeerNode>,
    opts: ConnectionOptions,
    writer: AbortOnDrop,
    /// The direct writer of a [`start_tcp`] connection, closed with the receiver.
    direct: Option<Arc<direct::DirectWriter>>,
    /// Closed with the receiver, so that no sender waits for a connection that is gone.
    backlog: Arc<Backlog>,
}

impl<R> Drop for DistReceiver<R> {
    fn drop(&mut self) {
        self.backlog.close();
        if let Some(d) = &self.direct {
            d.close();
        }
    }
}

impl<R: AsyncRead + Unpin> DistReceiver<R> {
    /// The next message. Ticks are consumed here; an error means the connection is
    /// unusable and should be dropped.
    pub async fn recv(&mut self) -> Result<DistMessage, ConnectionError> {
        loop {
            // A frame already read needs no timer: with many frames per read, arming
            // one per message would cost more than parsing it.
            let frame = match self.buffered_frame()? {
                Some(frame) => frame,
                None => tokio::time::timeout(self.opts.tick_time, self.read_frame())
                    .await
                    .map_err(|_| ConnectionError::PeerSilent(self.opts.tick_time))??,
            };
            let Some(frame) = frame else { continue };
            return DistMessage::parse(frame, &self.opts.limits);
        }
    }

    /// The next frame if the buffer holds all of it (`Some(None)` for a tick).
    fn buffered_frame(&mut self) -> Result<Option<Option<Bytes>>, ConnectionError> {
        let Some(len) = self.frame_len()? else {
            return Ok(None);
        };
        if len == 0 {
            self.buf.advance(4);
            return Ok(Some(None));
        }
        if self.buf.len() < 4 + len {
            return Ok(None);
        }
        self.buf.advance(4);
        Ok(Some(Some(self.buf.split_to(len).freeze())))
    }

    /// The length of the frame at the start of the buffer, once its header is read.
    fn frame_len(&self) -> Result<Option<usize>, ConnectionError> {
        let Some(header) = self.buf.get(..4) else {
            return Ok(None);
        };
        let len = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
        // Room for the header bytes around a term of the largest size allowed.
        let limit = self.opts.limits.max_size + 64;
        if len > limit {
            return Err(ConnectionError::FrameTooLarge { len, limit });
        }
        Ok(Some(len))
    }

    /// Reads until a whole frame is buffered: `None` for a tick.
    async fn read_frame(&mut self) -> Result<Option<Bytes>, ConnectionError> {
        loop {
            if let Some(frame) = self.buffered_frame()? {
                return Ok(frame);
            }
            // The whole frame must fit, so that it is read in place (its start is copied
            // into a new buffer if this one is too short); a header worth of room would
            // make many small reads.
            match self.frame_len()? {
                Some(len) if self.buf.capacity() < 4 + len => self.regrow(4 + len),
                None if self.buf.capacity() - self.buf.len() < 4096 => self.regrow(4),
                _ => {}
            }
            if self.reader.read_buf(&mut self.buf).await? == 0 {
                return Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof).into());
            }
        }
    }

    /// Moves what is buffered to a buffer of at least `need` bytes: a spare one whose
    /// frames are all gone, or a new one. The old one becomes a spare.
    fn regrow(&mut self, need: usize) {
        let want = need.max(READ_CHUNK);
        let reclaimed = (0..self.spare.len()).find(|&i| self.spare[i].try_reclaim(want));
        let mut next = match reclaimed.and_then(|i| self.spare.remove(i)) {
            Some(spare) => spare,
            None => BytesMut::with_capacity(want),
        };
        next.extend_from_slice(&self.buf);
        let mut old = std::mem::replace(&mut self.buf, next);
        old.clear();
        if self.spare.len() == SPARES {
            self.spare.pop_front();
        }
        self.spare.push_back(old);
    }

    /// The peer.
    pub fn peer(&self) -> &PeerNode {
        &self.peer
    }

    /// Whether the writer task has stopped (the peer's socket failed for writing).
    pub fn writer_stopped(&self) -> bool {
        self.writer.0.is_finished()
    }
}

/// The size of a receiver's buffers (a larger frame gets one of its own size): frames
/// are read many at a time, and a frame that does not fit in what is left of one is
/// copied (its start) to the next.
const READ_CHUNK: usize = 256 * 1024;

/// How many buffers a receiver keeps for reuse.
const SPARES: usize = 4;

/// Stops the writer (and so closes the socket) when the receiver goes.
#[derive(Debug)]
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The writer task: writes queued frames, batching what is queued into one flush, and a
/// tick whenever a tick interval passed with nothing written.
async fn write_loop<W: AsyncWrite + Unpin>(
    write: W,
    mut rx: mpsc::UnboundedReceiver<Frame>,
    tick_every: Duration,
    backlog: Arc<Backlog>,
) {
    let mut w = BufWriter::with_capacity(64 * 1024, write);
    let mut ticker = tokio::time::interval(tick_every.max(Duration::from_millis(1)));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticker.tick().await;
    let mut wrote = false;
    let result: Result<(), std::io::Error> = async {
        loop {
            tokio::select! {
                frame = rx.recv() => {
                    let Some(frame) = frame else { break };
                    let mut written = write_frame(&mut w, frame).await?;
                    while let Ok(frame) = rx.try_recv() {
                        written += write_frame(&mut w, frame).await?;
                    }
                    w.flush().await?;
                    backlog.sub(written);
                    wrote = true;
                }
                _ = ticker.tick() => {
                    if !wrote {
                        w.write_all(&[0, 0, 0, 0]).await?;
                        w.flush().await?;
                    }
                    wrote = false;
                }
            }
        }
        w.shutdown().await
    }
    .await;
    backlog.close();
    if let Err(e) = result {
        tracing::debug!("connection writer stopped: {e}");
    }
}

/// Writes a frame's pieces; gives its length.
async fn write_frame<W: AsyncWrite + Unpin>(w: &mut W, frame: Frame) -> std::io::Result<usize> {
    let len = frame.len();
    for piece in frame.into_pieces() {
        w.write_all(&piece).await?;
    }
    Ok(len)
}
