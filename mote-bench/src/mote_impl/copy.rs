//! `copy` on mote: the three computations as processes sharing the input through an `Arc`
//! (the rest of the workload is in `crate::shared::copy`).

use super::run_main;
use crate::common::{frequencies, shuffle, uniq};
use crate::outcome::{ms_since, Outcome};
use crate::params::Params;
use crate::shared::copy::CopyResults;
use anyhow::Result;
use mote::Process;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// Runs `copy` (`seq` or `par`).
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    crate::shared::copy::run(variant, p, parallel)
}

/// One result sent back to main by a `par` process.
enum Part {
    Uniq(Vec<i64>),
    Freqs(HashMap<i64, u64>),
    Shuffled(Vec<i64>),
}

/// Each repetition spawns one process per computation, each holding a clone of the `Arc`,
/// and main receives the three results in whatever order they finish.
fn parallel(data: Arc<[i64]>, r: u64) -> Result<(f64, Vec<CopyResults>)> {
    run_main(move |mut main: Process<Part>| async move {
        let start = Instant::now();
        let to_main = main.pid();
        let mut results = Vec::with_capacity(r as usize);
        for _ in 0..r {
            let d = Arc::clone(&data);
            mote::spawn(move |_p: Process<()>| async move { to_main.send(Part::Uniq(uniq(&d))) });
            let d = Arc::clone(&data);
            mote::spawn(move |_p: Process<()>| async move {
                to_main.send(Part::Freqs(frequencies(&d)))
            });
            let d = Arc::clone(&data);
            mote::spawn(
                move |_p: Process<()>| async move { to_main.send(Part::Shuffled(shuffle(&d))) },
            );
            let (mut u, mut f, mut s) = (None, None, None);
            for _ in 0..3 {
                match main.recv().await {
                    Part::Uniq(v) => u = Some(v),
                    Part::Freqs(v) => f = Some(v),
                    Part::Shuffled(v) => s = Some(v),
                }
            }
            let (Some(uniq), Some(freqs), Some(shuffled)) = (u, f, s) else {
                anyhow::bail!("copy par: a computation replied twice, another not at all");
            };
            results.push(CopyResults {
                uniq,
                freqs,
                shuffled,
            });
        }
        Ok((ms_since(start), results))
    })
}
