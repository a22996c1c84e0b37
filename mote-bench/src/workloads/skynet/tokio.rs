//! `skynet` on tokio: every inner node owns one unbounded channel its ten children reply on.

use super::{SumTree, FAN_OUT};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::{closed, tokio_main};
use crate::workloads::{Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

impl SumTree for Tokio {
    fn sum_tree(&self, l: u64) -> Result<Measured<u64>> {
        tokio_main(async move {
            let start = Instant::now();
            let (tx, mut rx) = unbounded_channel::<u64>();
            spawn_node(0, l, tx);
            let sum = rx.recv().await.ok_or_else(|| closed("skynet root"))?;
            Ok(Measured::new(ms_since(start), sum))
        })
    }
}

/// Spawns the node covering leaves `[off, off + size)`. A plain function that spawns (rather
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
