//! `chain` on tokio: relay tasks joined by unbounded `mpsc` channels.
//!
//! The default builds the chain head first: every relay's channel exists before the relay
//! that feeds it is spawned, and the head relay is spawned first, so the run queue holds the
//! relays in the order messages reach them. The `tail_first` style builds it the way the
//! mote program must (from main backwards, the head last).

use super::{Received, Relay};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::closed;
use crate::workloads::{unknown_style, Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

impl Relay for Tokio {
    fn relay<T: Send + 'static>(
        &self,
        m: usize,
        n: u64,
        make: impl FnMut(u64) -> T + Send + 'static,
        fold: impl Fn(&T) -> u64 + Send + 'static,
    ) -> Result<Measured<Received>> {
        let head_first = match self.style {
            None => true,
            Some("tail_first") => false,
            Some(other) => return Err(unknown_style("chain", other)),
        };
        self.main(async move {
            let start = Instant::now();
            let (main_tx, main_rx) = unbounded_channel::<T>();
            let head = if head_first {
                build_head_first(m, main_tx)
            } else {
                build_tail_first(m, main_tx)
            };
            let received = pump(head, main_rx, n, make, fold).await?;
            Ok(Measured::new(ms_since(start), received))
        })
    }
}

/// A relay: forwards every message to the next until its inbox closes.
async fn forward<T>(mut inbox: UnboundedReceiver<T>, next: UnboundedSender<T>) {
    while let Some(msg) = inbox.recv().await {
        // The next relay only goes away after this one, so a failed send means main stopped
        // listening; nothing is left to do then.
        if next.send(msg).is_err() {
            break;
        }
    }
}

/// Spawns the relays head first, each with the sender of the channel it feeds (created just
/// before it; the last relay feeds main), and returns the head's sender. `m` is at least 1.
fn build_head_first<T: Send + 'static>(m: usize, tail: UnboundedSender<T>) -> UnboundedSender<T> {
    let (head, mut inbox) = unbounded_channel::<T>();
    for _ in 1..m {
        let (next, next_inbox) = unbounded_channel::<T>();
        tokio::spawn(forward(inbox, next));
        inbox = next_inbox;
    }
    tokio::spawn(forward(inbox, tail));
    head
}

/// Spawns the relays from main backwards and returns the head's sender.
fn build_tail_first<T: Send + 'static>(m: usize, tail: UnboundedSender<T>) -> UnboundedSender<T> {
    let mut next = tail;
    for _ in 0..m {
        let (tx, rx) = unbounded_channel::<T>();
        tokio::spawn(forward(rx, next));
        next = tx;
    }
    next
}

/// Main's part: sends `make(i)` for i in 0..n to the head, then folds what arrives.
async fn pump<T>(
    head: UnboundedSender<T>,
    mut tail: UnboundedReceiver<T>,
    n: u64,
    mut make: impl FnMut(u64) -> T,
    fold: impl Fn(&T) -> u64,
) -> Result<Received> {
    for i in 0..n {
        head.send(make(i)).map_err(|_| closed("chain head"))?;
    }
    let (mut count, mut folded) = (0u64, 0u64);
    while count < n {
        let msg = tail.recv().await.ok_or_else(|| closed("chain tail"))?;
        folded += fold(&msg);
        count += 1;
    }
    Ok(Received { count, folded })
}
