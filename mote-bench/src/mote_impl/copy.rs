//! `copy` on mote: the three computations as `mote::task`s sharing the input through an `Arc`
//! (the rest of the workload is in `crate::shared::copy`).

use super::run_main;
use crate::common::{frequencies, shuffle, uniq};
use crate::outcome::{ms_since, Outcome};
use crate::params::Params;
use crate::shared::copy::CopyResults;
use anyhow::Result;
use mote::{task, Process};
use std::sync::Arc;
use std::time::Instant;

/// Runs `copy` (`seq` or `par`).
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    crate::shared::copy::run(variant, p, parallel)
}

/// Each repetition starts one `mote::task` per computation, each moving in a clone of the
/// `Arc` (nothing is copied), and awaits the three handles.
fn parallel(data: Arc<[i64]>, r: u64) -> Result<(f64, Vec<CopyResults>)> {
    run_main(move |_main: Process<()>| async move {
        let start = Instant::now();
        let mut results = Vec::with_capacity(r as usize);
        for _ in 0..r {
            let d = Arc::clone(&data);
            let u = task::spawn(async move { uniq(&d) });
            let d = Arc::clone(&data);
            let f = task::spawn(async move { frequencies(&d) });
            let d = Arc::clone(&data);
            let s = task::spawn(async move { shuffle(&d) });
            results.push(CopyResults {
                uniq: u.await?,
                freqs: f.await?,
                shuffled: s.await?,
            });
        }
        Ok((ms_since(start), results))
    })
}
