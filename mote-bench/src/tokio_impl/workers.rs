//! `workers`: the sum of prime-factor counts of 1..=N computed serially, by a task per item
//! (`master_slave`), by W pre-spawned workers fed round-robin (`push`), or by W workers asking
//! the master for the next item (`steal`). Main is the master. Unbatched by default: one item
//! per message, the baseline pattern of the contract; `batch=k` (an option, as on mote) makes
//! every message carry k consecutive items and every reply the sum of their counts.

use super::{bad_variant, closed, run_main};
use crate::common::{batches, count_items, factor_count_sum, prime_factor_count, Items};
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use std::time::Instant;
use tokio::sync::{
    mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender},
    oneshot,
};

/// Runs `workers` (`serial`, `master_slave`, `push` or `steal`).
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    let (w, n) = (p.get_usize("w")?, p.get("n")?);
    // Not in the contract's table: absent means unbatched.
    let batch = p.get("batch").unwrap_or(1).max(1);
    let (wall_ms, sum) = match variant {
        "serial" => {
            let start = Instant::now();
            let sum = factor_count_sum(n);
            (ms_since(start), sum)
        }
        "master_slave" => master_slave(n)?,
        "push" => push(w, n, batch)?,
        "steal" => steal(w, n, batch)?,
        other => return Err(bad_variant("workers", other)),
    };
    // The reference is computed after the clock stopped, so it costs the variants nothing.
    let expect = factor_count_sum(n);
    check(sum == expect, || {
        format!("workers {variant}: sum {sum}, expected {expect}")
    })?;
    let outcome = Outcome::new(wall_ms);
    Ok(if batch > 1 && matches!(variant, "push" | "steal") {
        outcome.with_extra("batch", batch)
    } else {
        outcome
    })
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
fn master_slave(n: u64) -> Result<(f64, u64)> {
    run_main(async move {
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
        Ok((ms_since(start), sum))
    })
}

/// W workers spawned before timing; the master pushes runs of items round-robin into their
/// mailboxes.
fn push(w: usize, n: u64, batch: u64) -> Result<(f64, u64)> {
    run_main(async move {
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
        Ok((ms_since(start), sum))
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
fn steal(w: usize, n: u64, batch: u64) -> Result<(f64, u64)> {
    run_main(async move {
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
        Ok((ms_since(start), sum))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_right_batched_or_not() {
        for variant in ["push", "steal"] {
            for (w, batch) in [(1, 1), (3, 1), (2, 7), (5, 1000)] {
                let p = Params::from_pairs([("w", w), ("n", 500), ("batch", batch)]);
                let out = run(variant, &p).unwrap();
                let extra = out.extras.iter().find(|(k, _)| k == "batch");
                assert_eq!(extra.is_some(), batch > 1, "{variant} w={w} batch={batch}");
            }
        }
    }
}
