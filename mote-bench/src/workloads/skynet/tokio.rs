//! `skynet` on tokio: each node's sum is its task's output, and a parent awaits its ten
//! children's `JoinHandle`s (tokio's reply channel for a task's result). The `channel` style
//! gives every inner node one unbounded channel its children reply on instead, as a process's
//! mailbox would; it took about 1.2x the time.

use super::{SumTree, FAN_OUT};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::closed;
use crate::workloads::{unknown_style, Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

impl SumTree for Tokio {
    fn sum_tree(&self, l: u64) -> Result<Measured<u64>> {
        match self.style {
            None => self.main(async move {
                let start = Instant::now();
                let sum = spawn_joined(0, l).await?;
                Ok(Measured::new(ms_since(start), sum))
            }),
            Some(CHANNEL) => self.main(async move {
                let start = Instant::now();
                let (tx, mut rx) = unbounded_channel::<u64>();
                spawn_node(0, l, tx);
                let sum = rx.recv().await.ok_or_else(|| closed("skynet root"))?;
                Ok(Measured::new(ms_since(start), sum))
            }),
            Some(other) => Err(unknown_style("skynet", other)),
        }
    }
}

/// The `channel` style: spawns the node covering leaves `[off, off + size)`. A plain function that spawns (rather
/// than a recursive `async fn`) keeps the future type finite without boxing.
fn spawn_node(off: u64, size: u64, parent: UnboundedSender<u64>) {
    tokio::spawn(async move {
        if size == 1 {
            let _ = parent.send(off);
            return;
        }
        let (tx, mut rx) = unbounded_channel::<u64>();
        let child = size / FAN_OUT;
        for i in 0..FAN_OUT {
            spawn_node(off + i * child, child, tx.clone());
        }
        drop(tx);
        let mut sum = 0;
        for _ in 0..FAN_OUT {
            match rx.recv().await {
                Some(v) => sum += v,
                // A child vanished: leave the parent without a reply so main reports it.
                None => return,
            }
        }
        let _ = parent.send(sum);
    });
}

/// The `channel` style's name.
pub const CHANNEL: &str = "channel";

/// Spawns the node covering `[off, off + size)` as a task whose output is its sum.
fn spawn_joined(off: u64, size: u64) -> tokio::task::JoinHandle<u64> {
    tokio::spawn(async move {
        if size == 1 {
            return off;
        }
        let child = size / FAN_OUT;
        let children: Vec<_> = (0..FAN_OUT)
            .map(|i| spawn_joined(off + i * child, child))
            .collect();
        let mut sum = 0;
        for c in children {
            // A child that panicked leaves a short sum, which main's check reports.
            sum += c.await.unwrap_or(0);
        }
        sum
    })
}
