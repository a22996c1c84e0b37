//! `parsum` on tokio.

use super::{Parallel, CHUNK};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::closed;
use crate::workloads::{Measured, Tokio};
use anyhow::Result;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

impl Parallel for Tokio {
    /// Per repetition, one task per chunk sums it and sends the partial sum to main.
    fn per_chunk(&self, data: Arc<[i64]>, reps: u64) -> Result<Measured<Vec<i64>>> {
        per_chunk_tasks(self, data, reps)
    }

    /// Before timing, one task per chunk holding its chunk; per repetition main sends each
    /// a `go` and sums the replies.
    fn pool(&self, data: Arc<[i64]>, reps: u64) -> Result<Measured<Vec<i64>>> {
        pool(self, data, reps)
    }
}

fn per_chunk_tasks(tokio: &Tokio, data: Arc<[i64]>, reps: u64) -> Result<Measured<Vec<i64>>> {
    let chunks = data.len().div_ceil(CHUNK);
    tokio.main(async move {
        let start = Instant::now();
        let mut sums = Vec::with_capacity(reps as usize);
        for _ in 0..reps {
            let (tx, mut rx) = unbounded_channel::<i64>();
            for c in 0..chunks {
                let (data, tx) = (Arc::clone(&data), tx.clone());
                tokio::spawn(async move {
                    let end = (c * CHUNK + CHUNK).min(data.len());
                    let _ = tx.send(data[c * CHUNK..end].iter().sum());
                });
            }
            drop(tx);
            let mut sum = 0;
            for _ in 0..chunks {
                sum += rx.recv().await.ok_or_else(|| closed("parsum chunk"))?;
            }
            sums.push(sum);
        }
        Ok(Measured::new(ms_since(start), sums))
    })
}

fn pool(tokio: &Tokio, data: Arc<[i64]>, reps: u64) -> Result<Measured<Vec<i64>>> {
    tokio.main(async move {
        let (reply_tx, mut replies) = unbounded_channel::<i64>();
        let mut workers: Vec<UnboundedSender<()>> = Vec::new();
        for chunk in data.chunks(CHUNK) {
            let chunk = chunk.to_vec();
            let (go_tx, mut go_rx) = unbounded_channel::<()>();
            let reply = reply_tx.clone();
            tokio::spawn(async move {
                while go_rx.recv().await.is_some() {
                    if reply.send(chunk.iter().sum()).is_err() {
                        break;
                    }
                }
            });
            workers.push(go_tx);
        }
        drop(reply_tx);
        let start = Instant::now();
        let mut sums = Vec::with_capacity(reps as usize);
        for _ in 0..reps {
            for w in &workers {
                w.send(()).map_err(|_| closed("parsum pool worker"))?;
            }
            let mut sum = 0;
            for _ in 0..workers.len() {
                sum += replies.recv().await.ok_or_else(|| closed("parsum pool"))?;
            }
            sums.push(sum);
        }
        Ok(Measured::new(ms_since(start), sums))
    })
}
