//! `copy` on tokio: the three computations as tasks sharing the input through an `Arc`
//! (the rest of the workload is in `crate::shared::copy`).

use super::run_main;
use crate::common::{frequencies, shuffle, uniq};
use crate::outcome::{ms_since, Outcome};
use crate::params::Params;
use crate::shared::copy::CopyResults;
use anyhow::Result;
use std::sync::Arc;
use std::time::Instant;

/// Runs `copy` (`seq` or `par`).
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    crate::shared::copy::run(variant, p, parallel)
}

/// Each repetition runs the three computations as tasks and awaits all three, like
/// `Task.async` + `Task.await_many`; the `JoinHandle` is tokio's reply channel for a task.
fn parallel(data: Arc<[i64]>, r: u64) -> Result<(f64, Vec<CopyResults>)> {
    run_main(async move {
        let start = Instant::now();
        let mut results = Vec::with_capacity(r as usize);
        for _ in 0..r {
            let d = Arc::clone(&data);
            let u = tokio::spawn(async move { uniq(&d) });
            let d = Arc::clone(&data);
            let f = tokio::spawn(async move { frequencies(&d) });
            let d = Arc::clone(&data);
            let s = tokio::spawn(async move { shuffle(&d) });
            let (uniq, freqs, shuffled) = tokio::try_join!(u, f, s)?;
            results.push(CopyResults {
                uniq,
                freqs,
                shuffled,
            });
        }
        Ok((ms_since(start), results))
    })
}
