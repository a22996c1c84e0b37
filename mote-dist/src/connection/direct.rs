//! The TCP writer that writes on the sender's thread: a frame sent while nothing is
//! pending goes to the socket at once (`try_write`), and only what the socket does not take
//! waits for the writer task. A round trip then costs no hand-off to another thread on the
//! sending side, as the BEAM writes to a distribution port from the scheduler that sends.
//!
//! Order: the pending queue and the inline write share one lock, and a frame is written
//! inline only while the queue is empty, so frames leave in the order they were queued.

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use parking_lot::Mutex;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::Notify;

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
}

#[derive(Debug, Default)]
struct Pending {
    frames: VecDeque<Bytes>,
    /// Bytes of the first frame already written.
    offset: usize,
}

impl DirectWriter {
    pub(crate) fn new(half: OwnedWriteHalf) -> Arc<Self> {
        Arc::new(DirectWriter {
            half,
            pending: Mutex::new(Pending::default()),
            notify: Notify::new(),
            closed: AtomicBool::new(false),
            wrote: AtomicBool::new(false),
        })
    }

    /// Queues `frame`, writing it at once if nothing waits before it.
    pub(crate) fn send(&self, frame: Bytes) -> Result<(), ()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(());
        }
        self.wrote.store(true, Ordering::Relaxed);
        let mut pending = self.pending.lock();
        if !pending.frames.is_empty() {
            pending.frames.push_back(frame);
            return Ok(());
        }
        let mut offset = 0;
        while offset < frame.len() {
            match self.half.try_write(&frame[offset..]) {
                Ok(0) => return self.fail(),
                Ok(n) => offset += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => return self.fail(),
            }
        }
        if offset < frame.len() {
            pending.frames.push_back(frame);
            pending.offset = offset;
            drop(pending);
            self.notify.notify_one();
        }
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
                    if !self.wrote.swap(false, Ordering::Relaxed) && self.send(Bytes::from_static(&[0, 0, 0, 0])).is_err() {
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

    /// Writes the pending frames until none is left.
    async fn drain(&self) -> io::Result<()> {
        loop {
            self.half.as_ref().writable().await?;
            let mut pending = self.pending.lock();
            loop {
                let Some(front) = pending.frames.front() else {
                    return Ok(());
                };
                let offset = pending.offset;
                match self.half.try_write(&front[offset..]) {
                    Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                    Ok(n) if offset + n == front.len() => {
                        pending.frames.pop_front();
                        pending.offset = 0;
                    }
                    Ok(n) => pending.offset += n,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                }
            }
        }
    }
}
