//! `pingpong`: two processes A and B (not main); A sends `i` to B, B replies `i` to A, R round
//! trips, then A reports to main.

mod mote;
mod tokio;

use super::runtimes::CURRENT_THREAD;
use super::spec::{expect, no_constraint, param, Spec, Style};
use super::{Measured, Mote, Tokio, Workload};
use crate::harness::outcome::check;
use crate::harness::params::Params;
use anyhow::Result;

/// The workload.
pub struct Pingpong;

static SPEC: Spec = Spec {
    name: "pingpong",
    summary: "R round trips between two processes",
    variants: &[],
    params: &[param("r", 20_000, 200_000, 1_000_000)],
    extras: &[],
    options: &[],
    styles: &[
        Style {
            imp: "tokio",
            name: tokio::BOUNDED,
            summary: "mpsc::channel(1) both ways instead of unbounded channels",
        },
        CURRENT_THREAD,
    ],
    validate: no_constraint,
    test_sizes: &[("r", 2_000)],
    expect: &[
        expect("mote", 230.0),
        expect("tokio", 600.0),
        expect("go", 640.0),
        expect("elixir", 930.0),
    ],
};

/// What A tells main: trips made and replies that differed from their request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    /// Round trips made.
    pub trips: u64,
    /// Replies that differed from their request.
    pub mismatches: u64,
}

/// What a runtime supplies: A and B making `r` round trips, A's report to main.
trait Volley {
    fn volley(&self, r: u64) -> Result<Measured<Report>>;
}

impl Workload for Pingpong {
    const SPEC: &'static Spec = &SPEC;
    type Answer = Report;

    fn on_mote(_variant: &str, p: &Params) -> Result<Measured<Report>> {
        Mote.volley(p.get("r")?)
    }

    fn on_tokio(tokio: Tokio, _variant: &str, p: &Params) -> Result<Measured<Report>> {
        tokio.volley(p.get("r")?)
    }

    fn check(_variant: &str, p: &Params, report: &Report) -> Result<()> {
        let r = p.get("r")?;
        check(report.trips == r && report.mismatches == 0, || {
            format!(
                "pingpong: {} trips of {r}, {} replies differ from their request",
                report.trips, report.mismatches
            )
        })
    }
}
