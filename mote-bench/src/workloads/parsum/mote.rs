//! `parsum` on mote.
//!
//! `pool` stays raw pre-spawned processes, each holding its chunk: a `mote::pool::Pool`
//! running `map_reduce` in chunks of 100 (a job per chunk) was measured slower here (about
//! 88 ms against 50 ms for the default 100 x 1,000 chunks on the 2-core machine), because a
//! job of 100 additions is dwarfed by the cost of queueing it and returning its result;
//! `cargo run --release -p examples --example parallel_sum` shows both.

use super::{Parallel, CHUNK};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::{Pid, Process};
use std::sync::Arc;
use std::time::Instant;

impl Parallel for Mote {
    /// Per repetition, one process per chunk sums it (reading the shared input through the
    /// `Arc`) and sends the partial sum to main.
    fn per_chunk(&self, data: Arc<[i64]>, reps: u64) -> Result<Measured<Vec<i64>>> {
        per_chunk_processes(data, reps)
    }

    /// Before timing, one process per chunk holding its chunk; per repetition main sends
    /// each a `Go` and sums the replies.
    fn pool(&self, data: Arc<[i64]>, reps: u64) -> Result<Measured<Vec<i64>>> {
        pool(data, reps)
    }
}

fn per_chunk_processes(data: Arc<[i64]>, reps: u64) -> Result<Measured<Vec<i64>>> {
    let chunks = data.len().div_ceil(CHUNK);
    mote_main(move |mut main: Process<i64>| async move {
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
        Ok(Measured::new(ms_since(start), sums))
    })
}

/// What a pool process receives.
enum Cmd {
    /// Sum your chunk and send the sum to main.
    Go,
    /// The run is over: end.
    Stop,
}

fn pool(data: Arc<[i64]>, reps: u64) -> Result<Measured<Vec<i64>>> {
    mote_main(move |mut main: Process<i64>| async move {
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
        Ok(Measured::new(wall_ms, sums))
    })
}
