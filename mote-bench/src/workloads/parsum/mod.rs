//! `parsum`: the sum of R random ints (uniform 1..=1000, seed 42) in chunks of 100, REPS
//! times: in one loop in main (`serial`), with a process per chunk per repetition (`spawn`),
//! or with a pre-spawned process per chunk holding its chunk (`pool`), which main sends a
//! `go` per repetition.

mod mote;
mod tokio;

use super::common::{random_ints, DEFAULT_SEED};
use super::spec::{bad_variant, expect, no_constraint, param, Spec};
use super::{Measured, Mote, Tokio, Workload};
use crate::harness::outcome::{check, ms_since};
use crate::harness::params::Params;
use anyhow::Result;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

/// The workload.
pub struct Parsum;

/// Chunk length fixed by the contract.
pub const CHUNK: usize = 100;

static SPEC: Spec = Spec {
    name: "parsum",
    summary: "sum of R ints in chunks of 100: serial, a process per chunk, a pre-spawned pool",
    variants: &["serial", "spawn", "pool"],
    params: &[
        param("r", 100_000, 100_000, 100_000),
        param("reps", 10, 100, 100),
    ],
    extras: &[],
    options: &[],
    styles: &[],
    validate: no_constraint,
    test_sizes: &[("r", 10_050), ("reps", 3)],
    expect: &[
        expect("mote", 40.0),
        expect("tokio", 80.0),
        expect("go", 60.0),
        expect("elixir", 430.0),
    ],
};

/// What a runtime supplies: the two parallel versions, each returning one sum per
/// repetition of the shared input.
trait Parallel {
    /// A process per chunk per repetition, each sending its partial sum to main.
    fn per_chunk(&self, data: Arc<[i64]>, reps: u64) -> Result<Measured<Vec<i64>>>;
    /// One pre-spawned process per chunk (outside the clock), woken per repetition.
    fn pool(&self, data: Arc<[i64]>, reps: u64) -> Result<Measured<Vec<i64>>>;
}

/// The input: R ints, built before the clock starts.
fn input(p: &Params) -> Result<Arc<[i64]>> {
    Ok(random_ints(p.get_usize("r")?, 1, 1000, DEFAULT_SEED).into())
}

fn run(on: &impl Parallel, variant: &str, p: &Params) -> Result<Measured<Vec<i64>>> {
    let (data, reps) = (input(p)?, p.get("reps")?);
    match variant {
        "serial" => Ok(serial(&data, reps)),
        "spawn" => on.per_chunk(data, reps),
        "pool" => on.pool(data, reps),
        other => Err(bad_variant("parsum", other)),
    }
}

/// One loop in main. `black_box` keeps the compiler from hoisting the loop-invariant sum out
/// of the repetitions, which would measure one sum instead of REPS.
///
/// Never inlined, so every implementation runs one copy (see the `workloads` module).
#[inline(never)]
fn serial(data: &[i64], reps: u64) -> Measured<Vec<i64>> {
    let start = Instant::now();
    let sums: Vec<i64> = (0..reps).map(|_| black_box(data).iter().sum()).collect();
    Measured::new(ms_since(start), sums)
}

impl Workload for Parsum {
    const SPEC: &'static Spec = &SPEC;
    type Answer = Vec<i64>;

    fn on_mote(variant: &str, p: &Params) -> Result<Measured<Vec<i64>>> {
        run(&Mote, variant, p)
    }

    fn on_tokio(tokio: Tokio, variant: &str, p: &Params) -> Result<Measured<Vec<i64>>> {
        run(&tokio, variant, p)
    }

    fn check(variant: &str, p: &Params, sums: &Vec<i64>) -> Result<()> {
        let reps = p.get("reps")?;
        let expect: i64 = input(p)?.iter().sum();
        let wrong = sums.iter().filter(|s| **s != expect).count();
        check(sums.len() as u64 == reps && wrong == 0, || {
            format!(
                "parsum {variant}: {} reps of {reps}, {wrong} sums differ from the serial sum \
                 {expect}",
                sums.len()
            )
        })
    }
}
