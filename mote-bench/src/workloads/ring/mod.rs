//! `ring`: P processes in a ring (process j forwards to j+1 mod P); main gives process 0 a
//! token with value T; each process that gets v > 0 passes v-1 on; the one that gets 0
//! reports its index (0-based) to main.

mod mote;
mod tokio;

use super::spec::{expect, no_constraint, param, shape, Spec};
use super::{Measured, Mote, Tokio, Workload};
use crate::harness::outcome::check;
use crate::harness::params::Params;
use anyhow::Result;

/// The workload.
pub struct Ring;

static SPEC: Spec = Spec {
    name: "ring",
    summary: "a token passed T times around a ring of P processes",
    variants: &[],
    params: &[
        param("t", 100_000, 1_000_000, 10_000_000),
        shape("p", 503, 503, 503),
    ],
    extras: &[],
    options: &[],
    styles: &[],
    validate: no_constraint,
    test_sizes: &[("t", 5_000), ("p", 13)],
    expect: &[
        expect("mote", 1_250.0),
        expect("tokio", 3_000.0),
        expect("go", 3_400.0),
        expect("elixir", 4_700.0),
    ],
};

/// What a runtime supplies: the ring of `procs` passing the token from `t` down to 0; the
/// answer is the index of the process that saw 0.
trait PassToken {
    fn pass_token(&self, t: u64, procs: usize) -> Result<Measured<usize>>;
}

impl Workload for Ring {
    const SPEC: &'static Spec = &SPEC;
    type Answer = usize;

    fn on_mote(_variant: &str, p: &Params) -> Result<Measured<usize>> {
        Mote.pass_token(p.get("t")?, p.get_usize("p")?)
    }

    fn on_tokio(tokio: Tokio, _variant: &str, p: &Params) -> Result<Measured<usize>> {
        tokio.pass_token(p.get("t")?, p.get_usize("p")?)
    }

    fn check(_variant: &str, p: &Params, index: &usize) -> Result<()> {
        let expect = p.get("t")? % p.get("p")?;
        check(*index as u64 == expect, || {
            format!("ring: token stopped at {index}, expected {expect}")
        })
    }
}
