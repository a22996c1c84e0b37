//! `ring` on tokio: the mailboxes are made first, so every task gets its successor's sender
//! when it is spawned.

use super::PassToken;
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::closed;
use crate::workloads::{Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

impl PassToken for Tokio {
    fn pass_token(&self, t: u64, procs: usize) -> Result<Measured<usize>> {
        self.main(async move {
            let start = Instant::now();
            let (main_tx, mut main_rx) = unbounded_channel::<usize>();
            // Mailboxes first: task j needs the sender of task j+1 before any task exists.
            let (txs, rxs): (Vec<UnboundedSender<u64>>, Vec<UnboundedReceiver<u64>>) =
                (0..procs).map(|_| unbounded_channel::<u64>()).unzip();
            let first = txs[0].clone();
            for (j, mut rx) in rxs.into_iter().enumerate() {
                let next = txs[(j + 1) % procs].clone();
                let report = main_tx.clone();
                tokio::spawn(async move {
                    while let Some(v) = rx.recv().await {
                        if v == 0 {
                            let _ = report.send(j);
                            break;
                        }
                        if next.send(v - 1).is_err() {
                            break;
                        }
                    }
                });
            }
            // Only the tasks hold ring senders now, so the ring shuts itself down after the report.
            drop(txs);
            first.send(t).map_err(|_| closed("ring head"))?;
            drop(first);
            let index = main_rx.recv().await.ok_or_else(|| closed("ring report"))?;
            Ok(Measured::new(ms_since(start), index))
        })
    }
}
