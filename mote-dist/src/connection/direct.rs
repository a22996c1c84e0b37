//! The TCP writer that writes on the sender's thread: a frame sent while nothing is
//! pending goes to the socket from the sending thread, and only what the socket does not
//! take waits for the writer task. A round trip then costs no hand-off to another thread on
//! the sending side, as the BEAM writes to a distribution port from the scheduler that
//! sends.
//!
//! **Batching.** A frame sent by a mote process (inside its poll) is not written at once:
//! it joins the connection's batch, and the batch is written, in one `writev`, when the
//! sender's poll ends (`mote::dist::flush_at_poll_end`), or at once when it passes
//! [`BATCH_LIMIT`]. A process sending in a loop then makes one system call per 64 KiB
//! instead of one per message, as the BEAM's distribution port buffers what a scheduler
//! sends; a process that sends one message and waits for the answer ends its poll right
//! after the send, so a round trip waits for nothing. A sender outside any process (a
//! tokio task, a plain thread, the ticks) writes the batch and its own frame at once.
//!
//! **Order.** The pending queue, the batch and the writes share one lock. Frames leave in
//! the order they entered: a frame goes into the batch only while nothing waits for the
//! writer task, a frame written at once first writes the batch before it, and what the
//! socket does not take of a batch goes to the front of the writer task's queue.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, IoSlice};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use parking_lot::{Mutex, MutexGuard};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::Notify;

use super::backlog::Backlog;
use super::frame::Frame;

/// A batch is written as soon as it holds this many bytes, without waiting for the end of
/// its senders' polls (Erlang's default distribution buffer busy limit is larger, 1 MiB,
/// but past a few dozen KiB a larger write saves nothing more per byte).
pub(crate) const BATCH_LIMIT: usize = 64 * 1024;

/// A frame at least this long joins a batch as its own slice (an iovec of the `writev`)
/// instead of being copied into the batch's buffer.
const COPY_LIMIT: usize = 4 * 1024;

/// How many slices one `writev` takes at most (Linux allows 1024).
const MAX_SLICES: usize = 64;

/// The write side of a TCP connection, shared by its senders and its writer task.
#[derive(Debug)]
pub(crate) struct DirectWriter {
    half: OwnedWriteHalf,
    pending: Mutex<Pending>,
    /// The writer task has frames to write.
    notify: Notify,
    closed: AtomicBool,
    /// Something was written since the last tick check.
    wrote: AtomicBool,
    /// The bytes in `pending.frames` (what the socket did not take), for the busy state.
    backlog: Arc<Backlog>,
}

#[derive(Debug, Default)]
struct Pending {
    /// Bytes for the writer task (the socket did not take them): frames, pieces of frames
    /// (see `Frame`), or what is left of them. While any is here, every new frame goes
    /// behind them, so `batch` is empty.
    frames: VecDeque<Bytes>,
    /// Bytes of the first entry already written.
    offset: usize,
    /// Frames sent by processes whose polls have not ended yet.
    batch: Batch,
}

/// Frames waiting for the end of their senders' polls, in order: small ones copied into
/// one buffer, large ones kept as their own slices, so that the batch is one `writev`.
#[derive(Debug, Default)]
struct Batch {
    /// Written before `tail`.
    parts: Vec<Bytes>,
    /// Small frames sent after the last of `parts`.
    tail: BytesMut,
    /// Bytes in `parts` and `tail`.
    len: usize,
}

impl Batch {
    /// Appends a frame, or one piece of a frame (its pieces come in order).
    fn push(&mut self, piece: Bytes) {
        self.len += piece.len();
        if piece.len() >= COPY_LIMIT {
            if !self.tail.is_empty() {
                self.parts.push(self.tail.split().freeze());
            }
            self.parts.push(piece);
        } else {
            if self.tail.capacity() == 0 {
                self.tail.reserve(BATCH_LIMIT);
            }
            self.tail.extend_from_slice(&piece);
        }
    }

    /// Fills `out` with the slices to write after the first `skip` bytes; gives how many.
    fn slices<'a>(&'a self, mut skip: usize, out: &mut [IoSlice<'a>; MAX_SLICES]) -> usize {
        let mut n = 0;
        let all = self.parts.iter().map(|b| &b[..]).chain([&self.tail[..]]);
        for part in all {
            if n == MAX_SLICES {
                break;
            }
            if skip >= part.len() {
                skip -= part.len();
            } else {
                out[n] = IoSlice::new(&part[skip..]);
                n += 1;
                skip = 0;
            }
        }
        n
    }

    /// Empties the batch, giving its bytes after the first `skip` as frames for the
    /// writer task.
    fn leftover(&mut self, mut skip: usize, into: &mut VecDeque<Bytes>) {
        let tail = self.tail.split().freeze();
        for part in self.parts.drain(..).chain([tail]) {
            if skip >= part.len() {
                skip -= part.len();
            } else {
                into.push_back(part.slice(skip..));
                skip = 0;
            }
        }
        self.len = 0;
    }

    fn clear(&mut self) {
        self.parts.clear();
        self.tail.clear();
        self.len = 0;
    }
}

thread_local! {
    /// The writers whose batches hold frames sent on this thread during the poll in
    /// progress: written by [`flush_owed`] when it ends.
    static OWED: RefCell<Vec<Arc<DirectWriter>>> = const { RefCell::new(Vec::new()) };
}

/// Whether a frame sent now to `writer` may wait for the end of the poll in progress on
/// this thread; if so, that end writes `writer`'s batch.
fn defer_flush(writer: &Arc<DirectWriter>) -> bool {
    if !mote::dist::flush_at_poll_end(flush_owed) {
        return false;
    }
    OWED.with(|owed| {
        let mut owed = owed.borrow_mut();
        if !owed.iter().any(|w| Arc::ptr_eq(w, writer)) {
            owed.push(writer.clone());
        }
    });
    true
}

/// The end of a process's poll: writes the batches it added frames to.
fn flush_owed() {
    while let Some(writer) = OWED.with(|owed| owed.borrow_mut().pop()) {
        writer.flush();
    }
}

impl DirectWriter {
    pub(crate) fn new(half: OwnedWriteHalf, backlog: Arc<Backlog>) -> Arc<Self> {
        Arc::new(DirectWriter {
            half,
            pending: Mutex::new(Pending::default()),
            notify: Notify::new(),
            closed: AtomicBool::new(false),
            wrote: AtomicBool::new(false),
            backlog,
        })
    }

    /// Queues `frame`: into the batch if a process sends it (written when its poll ends),
    /// else written at once with the batch before it, if nothing waits for the writer task.
    pub(crate) fn send(self: &Arc<Self>, frame: Frame) -> Result<(), ()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(());
        }
        self.wrote.store(true, Ordering::Relaxed);
        // Before the lock: asking for the flush may run another flush at once.
        let deferred = frame.len() < BATCH_LIMIT && defer_flush(self);
        let mut pending = self.pending.lock();
        if !pending.frames.is_empty() {
            self.backlog.add(frame.len());
            pending.frames.extend(frame.into_pieces());
            return Ok(());
        }
        for piece in frame.into_pieces() {
            pending.batch.push(piece);
        }
        if deferred && pending.batch.len < BATCH_LIMIT {
            return Ok(());
        }
        self.write_batch(pending)
    }

    /// Writes the batch now (the end of a poll that added to it).
    fn flush(&self) {
        let pending = self.pending.lock();
        if pending.batch.len > 0 {
            let _ = self.write_batch(pending);
        }
    }

    /// Writes the batch, leaving what the socket does not take to the writer task.
    fn write_batch(&self, mut pending: MutexGuard<'_, Pending>) -> Result<(), ()> {
        if self.closed.load(Ordering::Acquire) {
            pending.batch.clear();
            return Err(());
        }
        let total = pending.batch.len;
        let mut written = 0;
        while written < total {
            let mut slices = [IoSlice::new(&[]); MAX_SLICES];
            let n = pending.batch.slices(written, &mut slices);
            match self.half.try_write_vectored(&slices[..n]) {
                Ok(0) => {
                    pending.batch.clear();
                    return self.fail();
                }
                Ok(n) => written += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => {
                    pending.batch.clear();
                    return self.fail();
                }
            }
        }
        if written == total {
            pending.batch.clear();
            return Ok(());
        }
        self.backlog.add(total - written);
        let Pending { frames, batch, .. } = &mut *pending;
        batch.leftover(written, frames);
        pending.offset = 0;
        drop(pending);
        self.notify.notify_one();
        Ok(())
    }

    fn fail(&self) -> Result<(), ()> {
        self.close();
        Err(())
    }

    /// Whether the connection is closed for writing.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Closes the socket (both directions), so the peer and the reader see the end.
    pub(crate) fn close(&self) {
        if !self.closed.swap(true, Ordering::AcqRel) {
            self.backlog.close();
            let _ = socket2::SockRef::from(self.half.as_ref()).shutdown(std::net::Shutdown::Both);
            self.notify.notify_one();
        }
    }

    /// Writes what the socket did not take inline, and a tick whenever `tick_every` passed
    /// without anything written.
    pub(crate) async fn run(self: Arc<Self>, tick_every: Duration) {
        let mut ticker = tokio::time::interval(tick_every.max(Duration::from_millis(1)));
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker.tick().await;
        while !self.is_closed() {
            tokio::select! {
                _ = self.notify.notified() => {}
                _ = ticker.tick() => {
                    if !self.wrote.swap(false, Ordering::Relaxed) && self.send(Frame::One(Bytes::from_static(&[0, 0, 0, 0]))).is_err() {
                        return;
                    }
                    continue;
                }
            }
            if self.drain().await.is_err() {
                self.close();
                return;
            }
        }
    }

    /// Writes the pending frames until none is left, many per `writev`.
    async fn drain(&self) -> io::Result<()> {
        loop {
            self.half.as_ref().writable().await?;
            let mut pending = self.pending.lock();
            loop {
                if pending.frames.is_empty() {
                    return Ok(());
                }
                let offset = pending.offset;
                let mut slices = [IoSlice::new(&[]); MAX_SLICES];
                let mut count = 0;
                for (slot, frame) in slices.iter_mut().zip(&pending.frames) {
                    let start = if count == 0 { offset } else { 0 };
                    *slot = IoSlice::new(&frame[start..]);
                    count += 1;
                }
                match self.half.try_write_vectored(&slices[..count]) {
                    Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                    Ok(n) => {
                        self.backlog.sub(n);
                        let mut n = offset + n;
                        while let Some(front) = pending.frames.front() {
                            if n < front.len() {
                                break;
                            }
                            n -= front.len();
                            pending.frames.pop_front();
                        }
                        pending.offset = n;
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                }
            }
        }
    }
}
