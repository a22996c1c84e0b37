//! `parsum`: the sum of R random ints in chunks of 100, REPS times: in one loop (`serial`), with
//! a task per chunk per repetition (`spawn`), or with a pre-spawned task per chunk (`pool`).

use super::{bad_variant, closed, run_main};
use crate::common::{random_ints, DEFAULT_SEED};
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

/// Chunk length fixed by the contract.
pub const CHUNK: usize = 100;

/// Runs `parsum` (`serial`, `spawn` or `pool`).
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    let (r, reps) = (p.get_usize("r")?, p.get("reps")?);
    let data: Arc<[i64]> = random_ints(r, 1, 1000, DEFAULT_SEED).into();
    let expect: i64 = data.iter().sum();
    let (wall_ms, sums) = match variant {
        "serial" => serial(&data, reps),
        "spawn" => per_chunk_tasks(Arc::clone(&data), reps)?,
        "pool" => pool(Arc::clone(&data), reps)?,
        other => return Err(bad_variant("parsum", other)),
    };
    let wrong = sums.iter().filter(|s| **s != expect).count();
    check(sums.len() as u64 == reps && wrong == 0, || {
        format!(
            "parsum {variant}: {} reps, {wrong} sums differ from the serial sum {expect}",
            sums.len()
        )
    })?;
    Ok(Outcome::new(wall_ms))
}

/// One loop in main. `black_box` keeps the compiler from hoisting the loop-invariant sum out of
/// the repetitions, which would measure one sum instead of REPS.
fn serial(data: &[i64], reps: u64) -> (f64, Vec<i64>) {
    let start = Instant::now();
    let sums: Vec<i64> = (0..reps).map(|_| black_box(data).iter().sum()).collect();
    (ms_since(start), sums)
}

/// Per repetition, one task per chunk sums it and sends the partial sum to main.
fn per_chunk_tasks(data: Arc<[i64]>, reps: u64) -> Result<(f64, Vec<i64>)> {
    let chunks = data.len().div_ceil(CHUNK);
    run_main(async move {
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
        Ok((ms_since(start), sums))
    })
}

/// Before timing, one task per chunk holding its chunk; per repetition main sends each a `go`
/// and sums the replies.
fn pool(data: Arc<[i64]>, reps: u64) -> Result<(f64, Vec<i64>)> {
    run_main(async move {
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
        Ok((ms_since(start), sums))
    })
}
