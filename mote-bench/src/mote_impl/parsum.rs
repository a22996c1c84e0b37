//! `parsum`: the sum of R random ints in chunks of 100, REPS times: in one loop (`serial`), with
//! a process per chunk per repetition (`spawn`), or with a pre-spawned process per chunk
//! (`pool`).

use super::{bad_variant, run_main};
use crate::common::{random_ints, DEFAULT_SEED};
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use mote::{Pid, Process};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

/// Chunk length fixed by the contract.
pub const CHUNK: usize = 100;

/// Runs `parsum` (`serial`, `spawn` or `pool`).
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    let (r, reps) = (p.get_usize("r")?, p.get("reps")?);
    let data: Arc<[i64]> = random_ints(r, 1, 1000, DEFAULT_SEED).into();
    let expect: i64 = data.iter().sum();
    let (wall_ms, sums) = match variant {
        "serial" => serial(&data, reps),
        "spawn" => per_chunk_processes(Arc::clone(&data), reps)?,
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

/// One loop in main (no process needed). `black_box` keeps the compiler from hoisting the
/// loop-invariant sum out of the repetitions, which would measure one sum instead of REPS.
fn serial(data: &[i64], reps: u64) -> (f64, Vec<i64>) {
    let start = Instant::now();
    let sums: Vec<i64> = (0..reps).map(|_| black_box(data).iter().sum()).collect();
    (ms_since(start), sums)
}

/// Per repetition, one process per chunk sums it (reading the shared input through the `Arc`)
/// and sends the partial sum to main.
fn per_chunk_processes(data: Arc<[i64]>, reps: u64) -> Result<(f64, Vec<i64>)> {
    let chunks = data.len().div_ceil(CHUNK);
    run_main(move |mut main: Process<i64>| async move {
        let start = Instant::now();
        let to_main = main.pid();
        let mut sums = Vec::with_capacity(reps as usize);
        for _ in 0..reps {
            for c in 0..chunks {
                let data = Arc::clone(&data);
                mote::spawn(move |_chunk: Process<()>| async move {
                    let end = (c * CHUNK + CHUNK).min(data.len());
                    to_main.send(data[c * CHUNK..end].iter().sum());
                });
            }
            let mut sum = 0;
            for _ in 0..chunks {
                sum += main.recv().await;
            }
            sums.push(sum);
        }
        Ok((ms_since(start), sums))
    })
}

/// What a pool process receives.
enum Cmd {
    /// Sum your chunk and send the sum to main.
    Go,
    /// The run is over: end.
    Stop,
}

/// Before timing, one process per chunk holding its chunk; per repetition main sends each a
/// `Go` and sums the replies.
fn pool(data: Arc<[i64]>, reps: u64) -> Result<(f64, Vec<i64>)> {
    run_main(move |mut main: Process<i64>| async move {
        let to_main = main.pid();
        let workers: Vec<Pid<Cmd>> = data
            .chunks(CHUNK)
            .map(|chunk| {
                let chunk = chunk.to_vec();
                mote::spawn(move |mut w: Process<Cmd>| async move {
                    while let Cmd::Go = w.recv().await {
                        to_main.send(chunk.iter().sum());
                    }
                })
            })
            .collect();
        let start = Instant::now();
        let mut sums = Vec::with_capacity(reps as usize);
        for _ in 0..reps {
            for w in &workers {
                w.send(Cmd::Go);
            }
            let mut sum = 0;
            for _ in 0..workers.len() {
                sum += main.recv().await;
            }
            sums.push(sum);
        }
        let wall_ms = ms_since(start);
        for w in &workers {
            w.send(Cmd::Stop);
        }
        Ok((wall_ms, sums))
    })
}
