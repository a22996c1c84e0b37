//! `workers`: the sum of the prime-factor counts of 1..=N, computed serially, by a process
//! per item (`master_slave`: asynchronous spawn, each replying its count), by W pre-spawned
//! workers the master pushes items to round-robin (`push`), or by W workers asking the master
//! for the next item when idle (`steal`). Main is the master.
//!
//! The unbatched pattern (one item per message) is the baseline. The option `batch=k` (Rust
//! implementations only) makes every message carry k consecutive items and every reply the
//! sum of their counts; the run then reports `batch=<k>` as an extra figure. The option
//! `pool=1` (mote only; the others ignore it) runs `push` and `steal` on the OTP layer's
//! `mote::pool::Pool` instead of plain processes, to show what its job handles cost.

mod mote;
mod tokio;

use super::common::factor_count_sum;
use super::spec::{bad_variant, expect, no_constraint, param, shape, Spec};
use super::{Measured, Mote, Tokio, Workload};
use crate::harness::outcome::{check, ms_since};
use crate::harness::params::Params;
use anyhow::Result;
use std::time::Instant;

/// The workload.
pub struct Workers;

static SPEC: Spec = Spec {
    name: "workers",
    summary: "prime-factor counts of 1..=N: serial, process per item, work pushing, work stealing",
    variants: &["serial", "master_slave", "push", "steal"],
    params: &[shape("w", 2, 2, 2), param("n", 5_000, 50_000, 50_000)],
    extras: &["batch"],
    options: &["batch", "pool"],
    styles: &[],
    validate: no_constraint,
    test_sizes: &[("w", 3), ("n", 3_000)],
    expect: &[
        expect("mote", 40.0),
        expect("tokio", 60.0),
        expect("go", 40.0),
        expect("elixir", 200.0),
        expect("elixir_tuned", 180.0),
    ],
};

/// What a runtime supplies: the three distributed versions, each answering the sum.
trait Distribute {
    /// A process per item, spawned without waiting.
    fn master_slave(&self, n: u64) -> Result<Measured<u64>>;
    /// `w` workers spawned before the clock, fed runs of `batch` items round-robin.
    fn push(&self, w: usize, n: u64, batch: u64) -> Result<Measured<u64>>;
    /// `w` workers spawned before the clock, each asking for the next run when idle.
    fn steal(&self, w: usize, n: u64, batch: u64) -> Result<Measured<u64>>;
}

fn run(on: &impl Distribute, variant: &str, p: &Params) -> Result<Measured<u64>> {
    let (w, n) = (p.get_usize("w")?, p.get("n")?);
    // Not in the contract's table: absent means unbatched.
    let batch = p.get("batch").unwrap_or(1).max(1);
    match variant {
        "serial" => Ok(serial(n)),
        "master_slave" => on.master_slave(n),
        "push" => on.push(w, n, batch),
        "steal" => on.steal(w, n, batch),
        other => Err(bad_variant("workers", other)),
    }
}

/// The sum computed in one loop, with no runtime.
///
/// Never inlined, so every implementation runs one copy (see the `workloads` module).
#[inline(never)]
fn serial(n: u64) -> Measured<u64> {
    let start = Instant::now();
    let sum = factor_count_sum(n);
    Measured::new(ms_since(start), sum)
}

impl Workload for Workers {
    const SPEC: &'static Spec = &SPEC;
    type Answer = u64;

    fn on_mote(variant: &str, p: &Params) -> Result<Measured<u64>> {
        if p.get("pool").unwrap_or(0) != 0 && matches!(variant, "push" | "steal") {
            let (w, n) = (p.get_usize("w")?, p.get("n")?);
            return mote::on_pool(variant == "steal", w, n, p.get("batch").unwrap_or(1).max(1));
        }
        run(&Mote, variant, p)
    }

    fn on_tokio(tokio: Tokio, variant: &str, p: &Params) -> Result<Measured<u64>> {
        run(&tokio, variant, p)
    }

    fn check(variant: &str, p: &Params, sum: &u64) -> Result<()> {
        // The reference is computed after the clock stopped, so it costs the variants nothing.
        let expect = factor_count_sum(p.get("n")?);
        check(*sum == expect, || {
            format!("workers {variant}: sum {sum}, expected {expect}")
        })
    }

    fn option_extras(variant: &str, p: &Params) -> Vec<(String, String)> {
        match p.get("batch") {
            Ok(k) if k > 1 && matches!(variant, "push" | "steal") => {
                vec![("batch".into(), k.to_string())]
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;
    use crate::workloads::InProcess;

    #[test]
    fn pools_are_right_batched_or_not() {
        let entry = catalog::find("workers").unwrap();
        for on in [InProcess::Mote, InProcess::Tokio(Tokio::default())] {
            for variant in ["push", "steal"] {
                for (w, batch) in [(1, 1), (3, 1), (2, 7), (5, 1000)] {
                    let p = Params::from_pairs([("w", w), ("n", 500), ("batch", batch)]);
                    let out = entry.run(on, variant, &p).unwrap();
                    let extra = out.extras.iter().find(|(k, _)| k == "batch");
                    assert_eq!(extra.is_some(), batch > 1, "{on:?} {variant} w={w} {batch}");
                }
            }
        }
    }
}
