//! `million`: K processes each blocked in a receive, then woken once and replying `done` to
//! main, which counts K replies. Extra figure: `spawn_ms`, the time until all K are spawned.

mod mote;
mod tokio;

use super::spec::{expect, no_constraint, param, Spec, Style};
use super::{Measured, Mote, Tokio, Workload};
use crate::harness::outcome::check;
use crate::harness::params::Params;
use anyhow::Result;

/// The workload.
pub struct Million;

static SPEC: Spec = Spec {
    name: "million",
    summary: "K idle processes blocked in receive, then woken once each",
    variants: &[],
    params: &[param("k", 20_000, 200_000, 1_000_000)],
    extras: &["spawn_ms"],
    options: &[],
    styles: &[Style {
        imp: "tokio",
        name: tokio::MPSC,
        summary: "each task waits on an unbounded mpsc mailbox instead of a oneshot channel",
    }],
    validate: no_constraint,
    test_sizes: &[("k", 2_000)],
    expect: &[
        expect("mote", 1_400.0),
        expect("tokio", 2_800.0),
        expect("go", 3_400.0),
        expect("elixir", 5_600.0),
        expect("elixir_tuned", 5_500.0),
    ],
};

/// What a runtime supplies: spawn `k` idle processes, wake each once, count the replies
/// (the answer), reporting `spawn_ms`.
trait WakeAll {
    fn wake_all(&self, k: usize) -> Result<Measured<u64>>;
}

impl Workload for Million {
    const SPEC: &'static Spec = &SPEC;
    type Answer = u64;

    fn on_mote(_variant: &str, p: &Params) -> Result<Measured<u64>> {
        Mote.wake_all(p.get_usize("k")?)
    }

    fn on_tokio(tokio: Tokio, _variant: &str, p: &Params) -> Result<Measured<u64>> {
        tokio.wake_all(p.get_usize("k")?)
    }

    fn check(_variant: &str, p: &Params, replies: &u64) -> Result<()> {
        let k = p.get("k")?;
        check(*replies == k, || {
            format!("million: {replies} replies, expected {k}")
        })
    }
}
