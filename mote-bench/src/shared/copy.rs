//! `copy`: uniq, frequencies and a shuffle of N random ints, R times: one after another in
//! main (`seq`) or as three parallel computations (`par`, supplied by each runtime).

use crate::common::{frequencies, random_ints, shuffle, uniq, DEFAULT_SEED};
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// What one repetition produces.
pub struct CopyResults {
    /// Order-preserving dedup of the input.
    pub uniq: Vec<i64>,
    /// Value -> count.
    pub freqs: HashMap<i64, u64>,
    /// A Fisher–Yates shuffle of the input.
    pub shuffled: Vec<i64>,
}

/// A runtime's `par` version: R repetitions of the three computations run in parallel on a
/// shared input, returning the time and the results.
pub type Parallel = fn(Arc<[i64]>, u64) -> Result<(f64, Vec<CopyResults>)>;

/// Runs `copy` (`seq` or `par`), checking every repetition's results.
pub fn run(variant: &str, p: &Params, parallel: Parallel) -> Result<Outcome> {
    let (n, r) = (p.get_usize("n")?, p.get("r")?);
    let data: Arc<[i64]> = random_ints(n, 1, 1000, DEFAULT_SEED).into();
    let (wall_ms, results) = match variant {
        "seq" => {
            let start = Instant::now();
            let results: Vec<CopyResults> = (0..r)
                .map(|_| CopyResults {
                    uniq: uniq(&data),
                    freqs: frequencies(&data),
                    shuffled: shuffle(&data),
                })
                .collect();
            (ms_since(start), results)
        }
        "par" => parallel(Arc::clone(&data), r)?,
        other => return Err(crate::catalog::bad_variant("copy", other)),
    };
    let sum: i64 = data.iter().sum();
    for (i, res) in results.iter().enumerate() {
        check_one(i, res, n, sum)?;
    }
    check(results.len() as u64 == r, || {
        format!("copy: {} repetitions of {r}", results.len())
    })?;
    Ok(Outcome::new(wall_ms))
}

fn check_one(rep: usize, res: &CopyResults, n: usize, sum: i64) -> Result<()> {
    let freq_total: u64 = res.freqs.values().sum();
    let uniq_ok = n < 100_000 || res.uniq.len() == 1000;
    let shuffle_ok = res.shuffled.len() == n && res.shuffled.iter().sum::<i64>() == sum;
    check(uniq_ok && freq_total == n as u64 && shuffle_ok, || {
        format!(
            "copy rep {rep}: uniq {} values, frequencies total {freq_total}, shuffle of {} \
             ints (expected 1000, {n}, {n} with the input's sum)",
            res.uniq.len(),
            res.shuffled.len()
        )
    })
}
