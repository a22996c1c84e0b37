//! `spawn`: main spawns K short-lived processes one after another; each sends `done` to main
//! and ends; main then receives K replies.

mod mote;
mod tokio;

use super::spec::{expect, no_constraint, param, Spec, Style};
use super::{Measured, Mote, Tokio, Workload};
use crate::harness::outcome::check;
use crate::harness::params::Params;
use anyhow::Result;

/// The workload.
pub struct Spawn;

static SPEC: Spec = Spec {
    name: "spawn",
    summary: "K short-lived processes spawned one after another",
    variants: &[],
    params: &[param("k", 20_000, 200_000, 1_000_000)],
    extras: &[],
    options: &[],
    styles: &[Style {
        imp: "tokio",
        name: tokio::JOIN_HANDLES,
        summary: "main keeps every task's JoinHandle and awaits them instead of a reply channel",
    }],
    validate: no_constraint,
    test_sizes: &[("k", 2_000)],
    expect: &[
        expect("mote", 570.0),
        expect("tokio", 1_500.0),
        expect("go", 700.0),
        expect("elixir", 73_000.0),
        expect("elixir_tuned", 3_100.0),
    ],
};

/// What a runtime supplies: spawn `k` processes that each reply once, count the replies.
trait SpawnAll {
    fn spawn_all(&self, k: u64) -> Result<Measured<u64>>;
}

impl Workload for Spawn {
    const SPEC: &'static Spec = &SPEC;
    type Answer = u64;

    fn on_mote(_variant: &str, p: &Params) -> Result<Measured<u64>> {
        Mote.spawn_all(p.get("k")?)
    }

    fn on_tokio(tokio: Tokio, _variant: &str, p: &Params) -> Result<Measured<u64>> {
        tokio.spawn_all(p.get("k")?)
    }

    fn check(_variant: &str, p: &Params, replies: &u64) -> Result<()> {
        let k = p.get("k")?;
        check(*replies == k, || {
            format!("spawn: {replies} replies, expected {k}")
        })
    }
}
