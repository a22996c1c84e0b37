//! `million` on tokio: K tasks each blocked on its own `oneshot`, tokio's channel for exactly
//! one message, which is all this workload sends a task. The `mpsc` style gives each task an
//! unbounded `mpsc` channel instead, a mailbox that could take any number of messages (what a
//! process has); it took 1.9x the time and 2.5x the memory at k=1,000,000.

use super::WakeAll;
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::closed;
use crate::workloads::{unknown_style, Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// The `mpsc` style's name.
pub const MPSC: &str = "mpsc";

type Done = mpsc::UnboundedSender<()>;

impl WakeAll for Tokio {
    fn wake_all(&self, k: usize) -> Result<Measured<u64>> {
        match self.style {
            None => self.main(wake_all(k, idle_on_oneshot, |tx| {
                tx.take().is_some_and(|tx| tx.send(()).is_ok())
            })),
            Some(MPSC) => self.main(wake_all(k, idle_on_mpsc, |tx| tx.send(()).is_ok())),
            Some(other) => Err(unknown_style("million", other)),
        }
    }
}

/// Spawns a task waiting on an unbounded channel; returns its sender.
fn idle_on_mpsc(done: Done) -> mpsc::UnboundedSender<()> {
    let (tx, mut rx) = mpsc::unbounded_channel::<()>();
    tokio::spawn(async move {
        if rx.recv().await.is_some() {
            // Main outlives every task, so the reply cannot fail in a correct run; a missing
            // reply is caught by main's count.
            let _ = done.send(());
        }
    });
    tx
}

/// Spawns a task waiting on a oneshot; returns its sender.
fn idle_on_oneshot(done: Done) -> Option<oneshot::Sender<()>> {
    let (tx, rx) = oneshot::channel::<()>();
    tokio::spawn(async move {
        if rx.await.is_ok() {
            let _ = done.send(());
        }
    });
    Some(tx)
}

/// Main: spawns `k` idle tasks with `spawn_idle`, wakes each with `wake`, counts the replies.
/// The mailboxes live until the count is done, as the processes' do.
async fn wake_all<B: Send>(
    k: usize,
    spawn_idle: fn(Done) -> B,
    wake: fn(&mut B) -> bool,
) -> Result<Measured<u64>> {
    let start = Instant::now();
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<()>();
    let mut mailboxes: Vec<B> = (0..k).map(|_| spawn_idle(done_tx.clone())).collect();
    let spawn_ms = ms_since(start);
    drop(done_tx);
    for mailbox in &mut mailboxes {
        if !wake(mailbox) {
            return Err(closed("million task"));
        }
    }
    let mut replies = 0u64;
    while replies < k as u64 {
        done_rx.recv().await.ok_or_else(|| closed("million main"))?;
        replies += 1;
    }
    Ok(Measured::new(ms_since(start), replies).with_extra("spawn_ms", format!("{spawn_ms:.3}")))
}
