//! `copy`: uniq (order-preserving dedup), frequencies (value -> count) and a shuffle
//! (Fisher-Yates driven by xorshift64*, seed 7, fresh per repetition) of N random ints
//! (uniform 1..=1000, seed 42, built before the clock), R times: one after another in main
//! (`seq`) or as three parallel computations (`par`, supplied by each runtime). The Rust
//! implementations share the input through an `Arc`, never copying it.
//!
//! `par` takes an option outside the contract's table, `chunks=k` (the Rust implementations
//! only): uniq and frequencies each run as k tasks over consecutive chunks of the shared
//! input, merged in order; the shuffle, sequential by definition, stays one task. Three
//! tasks on two cores cannot finish before the two longest share a core (about 0.62 of
//! the sequential time here), so the contract's split bounds the speedup, not the runtime;
//! chunks let tasks fill the cores.

mod mote;
mod tokio;

use super::common::{frequencies, random_ints, shares, shuffle, uniq, DEFAULT_SEED};
use super::spec::{bad_variant, expect, no_constraint, param, Spec};
use super::{Measured, Mote, Tokio, Workload};
use crate::harness::outcome::{check, ms_since};
use crate::harness::params::Params;
use anyhow::Result;
use rustc_hash::{FxHashMap, FxHashSet};
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

/// The workload.
pub struct Copy;

static SPEC: Spec = Spec {
    name: "copy",
    summary: "uniq, frequencies and shuffle of N ints, one after another or in parallel",
    variants: &["seq", "par"],
    params: &[
        param("n", 100_000, 1_000_000, 1_000_000),
        param("r", 2, 2, 5),
    ],
    extras: &["chunks"],
    options: &["chunks"],
    styles: &[],
    validate: no_constraint,
    test_sizes: &[("n", 3_000), ("r", 2)],
    expect: &[
        expect("mote", 260.0),
        expect("tokio", 260.0),
        expect("go", 340.0),
        expect("elixir", 10_500.0),
    ],
};

/// What one repetition produces.
pub struct CopyResults {
    /// Order-preserving dedup of the input.
    pub uniq: Vec<i64>,
    /// Value -> count.
    pub freqs: FxHashMap<i64, u64>,
    /// A Fisher–Yates shuffle of the input.
    pub shuffled: Vec<i64>,
}

/// What a runtime supplies: `par`, R repetitions of the three computations run in parallel
/// on the shared input, uniq and frequencies each cut into `chunks` tasks.
trait Parallel {
    fn parallel(
        &self,
        data: Arc<[i64]>,
        r: u64,
        chunks: usize,
    ) -> Result<Measured<Vec<CopyResults>>>;
}

/// `chunks` consecutive ranges covering `0..n` (as equal as can be: [`shares`] of the
/// indices), at most one per item.
pub fn chunk_ranges(n: usize, chunks: usize) -> Vec<Range<usize>> {
    let chunks = chunks.clamp(1, n.max(1));
    shares(n as u64, chunks as u64)
        .map(|r| r.start as usize..r.end as usize)
        .collect()
}

/// The order-preserving dedup of the whole input from those of its consecutive chunks, in
/// order: a value's first occurrence is in the first chunk that has it.
pub fn merge_uniq(mut parts: Vec<Vec<i64>>) -> Vec<i64> {
    if parts.len() == 1 {
        return parts.pop().expect("one part");
    }
    let mut seen = FxHashSet::default();
    parts
        .into_iter()
        .flatten()
        .filter(|v| seen.insert(*v))
        .collect()
}

/// The frequencies of the whole input from those of its chunks.
pub fn merge_frequencies(parts: Vec<FxHashMap<i64, u64>>) -> FxHashMap<i64, u64> {
    let mut parts = parts.into_iter();
    let mut total = parts.next().unwrap_or_default();
    for part in parts {
        for (v, c) in part {
            *total.entry(v).or_insert(0) += c;
        }
    }
    total
}

/// The input: N ints, built before the clock starts.
fn input(p: &Params) -> Result<Arc<[i64]>> {
    Ok(random_ints(p.get_usize("n")?, 1, 1000, DEFAULT_SEED).into())
}

fn run(on: &impl Parallel, variant: &str, p: &Params) -> Result<Measured<Vec<CopyResults>>> {
    let (data, r) = (input(p)?, p.get("r")?);
    // Not in the contract's table: absent means the contract's three tasks.
    let chunks = p.get_usize("chunks").unwrap_or(1);
    match variant {
        "seq" => Ok(sequential(&data, r)),
        "par" => on.parallel(data, r, chunks),
        other => Err(bad_variant("copy", other)),
    }
}

/// The three computations one after another, `r` times, with no runtime.
///
/// Never inlined, so every implementation runs one copy (see the `workloads` module).
#[inline(never)]
fn sequential(data: &[i64], r: u64) -> Measured<Vec<CopyResults>> {
    let start = Instant::now();
    let results: Vec<CopyResults> = (0..r)
        .map(|_| CopyResults {
            uniq: uniq(data),
            freqs: frequencies(data),
            shuffled: shuffle(data),
        })
        .collect();
    Measured::new(ms_since(start), results)
}

impl Workload for Copy {
    const SPEC: &'static Spec = &SPEC;
    type Answer = Vec<CopyResults>;

    fn on_mote(variant: &str, p: &Params) -> Result<Measured<Vec<CopyResults>>> {
        run(&Mote, variant, p)
    }

    fn on_tokio(tokio: Tokio, variant: &str, p: &Params) -> Result<Measured<Vec<CopyResults>>> {
        run(&tokio, variant, p)
    }

    fn check(_variant: &str, p: &Params, results: &Vec<CopyResults>) -> Result<()> {
        let (data, r) = (input(p)?, p.get("r")?);
        let sum: i64 = data.iter().sum();
        for (i, res) in results.iter().enumerate() {
            check_one(i, res, data.len(), sum)?;
        }
        check(results.len() as u64 == r, || {
            format!("copy: {} repetitions of {r}", results.len())
        })
    }

    fn option_extras(variant: &str, p: &Params) -> Vec<(String, String)> {
        match p.get("chunks") {
            Ok(k) if k > 1 && variant == "par" => vec![("chunks".into(), k.to_string())],
            _ => Vec::new(),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_uniq_and_frequencies_equal_the_whole() {
        let data = random_ints(10_007, 1, 300, 3);
        for chunks in [1, 2, 3, 8, 20_000] {
            let ranges = chunk_ranges(data.len(), chunks);
            assert_eq!(ranges.first().unwrap().start, 0);
            assert_eq!(ranges.last().unwrap().end, data.len());
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            let u = merge_uniq(ranges.iter().map(|r| uniq(&data[r.clone()])).collect());
            assert_eq!(u, uniq(&data), "chunks={chunks}");
            let f = merge_frequencies(
                ranges
                    .iter()
                    .map(|r| frequencies(&data[r.clone()]))
                    .collect(),
            );
            assert_eq!(f, frequencies(&data), "chunks={chunks}");
        }
    }
}
