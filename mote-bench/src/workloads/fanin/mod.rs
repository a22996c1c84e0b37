//! `fanin`: S sender processes each send N/S integers (1 each) to one receiver, which counts
//! to N and then tells main. N is a multiple of S.

mod mote;
mod tokio;

use super::runtimes::CURRENT_THREAD;
use super::spec::{expect, param, shape, Spec, Style};
use super::{Measured, Mote, Tokio, Workload};
use crate::harness::outcome::check;
use crate::harness::params::Params;
use anyhow::Result;

/// The workload.
pub struct Fanin;

static SPEC: Spec = Spec {
    name: "fanin",
    summary: "S senders send N messages in total to one receiver",
    variants: &[],
    params: &[
        shape("s", 10, 100, 100),
        param("n", 100_000, 1_000_000, 10_000_000),
    ],
    extras: &[],
    options: &[],
    styles: &[
        Style {
            imp: "tokio",
            name: tokio::BOUNDED,
            summary: "mpsc::channel(1024) and send().await instead of an unbounded channel",
        },
        CURRENT_THREAD,
    ],
    validate: n_multiple_of_s,
    test_sizes: &[("s", 10), ("n", 20_000)],
    expect: &[
        expect("mote", 2_600.0),
        expect("tokio", 3_000.0),
        expect("go", 1_140.0),
        expect("elixir", 4_000.0),
        expect("elixir_tuned", 2_200.0),
    ],
};

fn n_multiple_of_s(p: &Params) -> Result<()> {
    let (s, n) = (p.get("s")?, p.get("n")?);
    anyhow::ensure!(n % s == 0, "fanin: n={n} is not a multiple of s={s}");
    Ok(())
}

/// What the receiver tells main.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Messages received.
    pub count: u64,
    /// Their sum.
    pub sum: u64,
}

/// What a runtime supplies: `s` senders of `per_sender` ones each, one receiver counting to
/// `n`, its tally to main.
trait FanIn {
    fn fan_in(&self, s: u64, n: u64) -> Result<Measured<Tally>>;
}

fn sizes(p: &Params) -> Result<(u64, u64)> {
    Ok((p.get("s")?, p.get("n")?))
}

impl Workload for Fanin {
    const SPEC: &'static Spec = &SPEC;
    type Answer = Tally;

    fn on_mote(_variant: &str, p: &Params) -> Result<Measured<Tally>> {
        let (s, n) = sizes(p)?;
        Mote.fan_in(s, n)
    }

    fn on_tokio(tokio: Tokio, _variant: &str, p: &Params) -> Result<Measured<Tally>> {
        let (s, n) = sizes(p)?;
        tokio.fan_in(s, n)
    }

    fn check(_variant: &str, p: &Params, got: &Tally) -> Result<()> {
        let n = p.get("n")?;
        check(got.count == n && got.sum == n, || {
            format!("fanin: count {}, sum {}, expected {n}", got.count, got.sum)
        })
    }
}
