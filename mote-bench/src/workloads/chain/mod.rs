//! `chain`: N messages relayed through a chain of M relay processes back to main.
//!
//! Main sends N messages to the head; each relay forwards every message to the next; the
//! last relay sends to main, which receives N. `int`: the message is the integer `i`
//! (0..N-1). `list20`: the message is a list of the 20 integers 1..20, built once; the Rust
//! implementations send a shared `Arc<[i64]>` (a cloned pointer, never the list).

mod mote;
mod tokio;

use super::spec::{bad_variant, expect, no_constraint, param, Spec, Style};
use super::{Measured, Mote, Tokio, Workload};
use crate::harness::outcome::check;
use crate::harness::params::Params;
use anyhow::Result;
use std::sync::Arc;

/// The workload.
pub struct Chain;

static SPEC: Spec = Spec {
    name: "chain",
    summary: "N messages relayed through a chain of M processes",
    variants: &["int", "list20"],
    params: &[
        param("m", 1_000, 3_000, 10_000),
        param("n", 1_000, 3_000, 10_000),
    ],
    extras: &[],
    options: &[],
    styles: &[Style {
        imp: "tokio",
        name: "tail_first",
        summary: "the chain built from main backwards: each relay spawned before the one \
                  that feeds it, the head last",
    }],
    validate: no_constraint,
    test_sizes: &[("m", 50), ("n", 200)],
    expect: &[
        expect("mote", 1_900.0),
        expect("tokio", 2_000.0),
        expect("go", 3_400.0),
        expect("elixir", 12_600.0),
        expect("elixir/list20", 49_500.0),
    ],
};

/// What main saw at the tail of the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Received {
    /// Messages received.
    pub count: u64,
    /// The sum of the variant's fold over them: the ints themselves (`int`), or the lists
    /// that do not sum to 210 (`list20`).
    pub folded: u64,
}

/// What a runtime supplies: a chain of `m` relays carrying `make(i)` for i in 0..n from
/// main back to main, which sums `fold` over what arrives (on arrival, so the clock stops
/// when the answer is known).
trait Relay {
    fn relay<T: Send + 'static>(
        &self,
        m: usize,
        n: u64,
        make: impl FnMut(u64) -> T + Send + 'static,
        fold: impl Fn(&T) -> u64 + Send + 'static,
    ) -> Result<Measured<Received>>;
}

fn run(on: &impl Relay, variant: &str, p: &Params) -> Result<Measured<Received>> {
    let (m, n) = (p.get_usize("m")?, p.get("n")?);
    match variant {
        "int" => on.relay(m, n, |i| i, |i| *i),
        "list20" => {
            let list: Arc<[i64]> = (1..=20).collect();
            on.relay(
                m,
                n,
                move |_| Arc::clone(&list),
                |l: &Arc<[i64]>| u64::from(l.iter().sum::<i64>() != 210),
            )
        }
        other => Err(bad_variant("chain", other)),
    }
}

impl Workload for Chain {
    const SPEC: &'static Spec = &SPEC;
    type Answer = Received;

    fn on_mote(variant: &str, p: &Params) -> Result<Measured<Received>> {
        run(&Mote, variant, p)
    }

    fn on_tokio(tokio: Tokio, variant: &str, p: &Params) -> Result<Measured<Received>> {
        run(&tokio, variant, p)
    }

    fn check(variant: &str, p: &Params, got: &Received) -> Result<()> {
        let n = p.get("n")?;
        // `int` sums the ints; `list20` counts the lists that do not sum to 210.
        let want = if variant == "int" { n * (n - 1) / 2 } else { 0 };
        check(got.count == n && got.folded == want, || {
            format!(
                "chain {variant}: received {} messages folding to {} (expected {n} and {want})",
                got.count, got.folded
            )
        })
    }
}
