//! `workers` on tokio: one task per item, or W worker tasks fed over unbounded channels
//! (`push`: one mailbox each, round-robin; `steal`: idle workers ask the master, which
//! answers on the `oneshot` each request carries).

use super::Distribute;
use crate::harness::outcome::ms_since;
use crate::workloads::common::{batches, count_items, prime_factor_count, Items};
use crate::workloads::runtimes::closed;
use crate::workloads::{Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::{
    mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender},
    oneshot,
};

impl Distribute for Tokio {
    fn master_slave(&self, n: u64) -> Result<Measured<u64>> {
        master_slave(self, n)
    }

    fn push(&self, w: usize, n: u64, batch: u64) -> Result<Measured<u64>> {
        push(self, w, n, batch)
    }

    fn steal(&self, w: usize, n: u64, batch: u64) -> Result<Measured<u64>> {
        steal(self, w, n, batch)
    }
}

/// Receives `n` counts from `rx` and sums them.
async fn collect(rx: &mut UnboundedReceiver<u64>, n: u64) -> Result<u64> {
    let mut sum = 0;
    for _ in 0..n {
        sum += rx.recv().await.ok_or_else(|| closed("workers master"))?;
    }
    Ok(sum)
}

/// A task per item, spawned without waiting (tokio's spawn is already asynchronous).
fn master_slave(tokio: &Tokio, n: u64) -> Result<Measured<u64>> {
    tokio.main(async move {
        let start = Instant::now();
        let (tx, mut rx) = unbounded_channel::<u64>();
        for i in 1..=n {
            let tx = tx.clone();
            tokio::spawn(async move {
                let _ = tx.send(prime_factor_count(i));
            });
        }
        drop(tx);
        let sum = collect(&mut rx, n).await?;
        Ok(Measured::new(ms_since(start), sum))
    })
}

/// W workers spawned before timing; the master pushes runs of items round-robin into their
/// mailboxes.
fn push(tokio: &Tokio, w: usize, n: u64, batch: u64) -> Result<Measured<u64>> {
    tokio.main(async move {
        let (result_tx, mut results) = unbounded_channel::<u64>();
        let workers: Vec<UnboundedSender<Items>> = (0..w)
            .map(|_| {
                let (tx, mut items) = unbounded_channel::<Items>();
                let result = result_tx.clone();
                tokio::spawn(async move {
                    while let Some(run) = items.recv().await {
                        if result.send(count_items(run)).is_err() {
                            break;
                        }
                    }
                });
                tx
            })
            .collect();
        drop(result_tx);
        let start = Instant::now();
        for (run, slot) in batches(n, batch).zip((0..w).cycle()) {
            workers[slot]
                .send(run)
                .map_err(|_| closed("workers push worker"))?;
        }
        let sum = collect(&mut results, n.div_ceil(batch)).await?;
        Ok(Measured::new(ms_since(start), sum))
    })
}

/// A worker's request to the master: the count of its previous run of items (none on the
/// first request) and where to send the next run (`None`: no work left).
struct Ask {
    done: Option<u64>,
    reply: oneshot::Sender<Option<Items>>,
}

/// W workers spawned before timing; each idle worker asks the master for the next item. The
/// request carries the previous result so every item costs one request and one reply.
fn steal(tokio: &Tokio, w: usize, n: u64, batch: u64) -> Result<Measured<u64>> {
    tokio.main(async move {
        let (master, mut asks) = unbounded_channel::<Ask>();
        for _ in 0..w {
            let master = master.clone();
            tokio::spawn(async move {
                let mut done = None;
                loop {
                    let (reply, item) = oneshot::channel();
                    if master.send(Ask { done, reply }).is_err() {
                        return;
                    }
                    match item.await {
                        Ok(Some(run)) => done = Some(count_items(run)),
                        // No work left, or the master is gone.
                        _ => return,
                    }
                }
            });
        }
        drop(master);
        // The workers' first requests may already wait in the master's mailbox: an idle
        // worker asks at once, and the clock starts when the master begins answering.
        let start = Instant::now();
        let mut runs = batches(n, batch);
        let (replies, mut received, mut sum) = (n.div_ceil(batch), 0u64, 0u64);
        while received < replies {
            let ask = asks.recv().await.ok_or_else(|| closed("workers steal"))?;
            if let Some(c) = ask.done {
                sum += c;
                received += 1;
            }
            let _ = ask.reply.send(runs.next());
        }
        Ok(Measured::new(ms_since(start), sum))
    })
}
