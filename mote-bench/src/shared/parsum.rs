//! `parsum`: the sum of R random ints in chunks of 100, REPS times: in one loop (`serial`),
//! or with a process per chunk per repetition (`spawn`) or a pre-spawned process per chunk
//! (`pool`), both supplied by each runtime.

use crate::common::{random_ints, DEFAULT_SEED};
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

/// Chunk length fixed by the contract.
pub const CHUNK: usize = 100;

/// A runtime's parallel version: REPS sums of the shared input, with the time taken.
pub type Parallel = fn(Arc<[i64]>, u64) -> Result<(f64, Vec<i64>)>;

/// Runs `parsum`, checking every repetition's sum against the input's.
pub fn run(variant: &str, p: &Params, spawn: Parallel, pool: Parallel) -> Result<Outcome> {
    let (r, reps) = (p.get_usize("r")?, p.get("reps")?);
    let data: Arc<[i64]> = random_ints(r, 1, 1000, DEFAULT_SEED).into();
    let expect: i64 = data.iter().sum();
    let (wall_ms, sums) = match variant {
        "serial" => serial(&data, reps),
        "spawn" => spawn(Arc::clone(&data), reps)?,
        "pool" => pool(Arc::clone(&data), reps)?,
        other => return Err(crate::catalog::bad_variant("parsum", other)),
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

/// One loop in main. `black_box` keeps the compiler from hoisting the loop-invariant sum out
/// of the repetitions, which would measure one sum instead of REPS.
fn serial(data: &[i64], reps: u64) -> (f64, Vec<i64>) {
    let start = Instant::now();
    let sums: Vec<i64> = (0..reps).map(|_| black_box(data).iter().sum()).collect();
    (ms_since(start), sums)
}
