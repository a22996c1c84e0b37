//! `pingpong`: two processes A and B (not main); A sends `i` to B, B replies `i` to A, R round
//! trips, then A reports to main.
//!
//! The option `pairs` (mote, tokio, Go and Elixir) runs that many independent pairs at once, the R
//! round trips shared among them, and main adds their reports up: one pair is a sequential
//! exchange, many pairs give the scaling study parallel work.

mod mote;
mod tokio;

use super::runtimes::CURRENT_THREAD;
use super::spec::{expect, param, Spec, Style};
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
    options: &[PAIRS],
    styles: &[
        Style {
            imp: "tokio",
            name: tokio::BOUNDED,
            summary: "mpsc::channel(1) both ways instead of unbounded channels",
        },
        CURRENT_THREAD,
    ],
    validate: at_most_one_pair_per_trip,
    test_sizes: &[("r", 2_000)],
    expect: &[
        expect("mote", 230.0),
        expect("tokio", 600.0),
        expect("go", 640.0),
        expect("elixir", 930.0),
    ],
};

/// The option: how many pairs exchange at once (1 when absent).
pub const PAIRS: &str = "pairs";

fn at_most_one_pair_per_trip(p: &Params) -> Result<()> {
    let pairs = pairs(p);
    anyhow::ensure!(
        pairs <= p.get("r")?,
        "pingpong: pairs={pairs} is more than the round trips, r={}",
        p.get("r")?
    );
    Ok(())
}

/// The round trips pair `k` of `pairs` makes, of `r` in all: an even share, the remainder
/// going to the first pairs.
pub fn share(r: u64, pairs: u64, k: u64) -> u64 {
    r / pairs + u64::from(k < r % pairs)
}

/// What A tells main: trips made and replies that differed from their request. Main adds
/// the pairs' reports up.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    /// Round trips made.
    pub trips: u64,
    /// Replies that differed from their request.
    pub mismatches: u64,
}

impl std::ops::AddAssign for Report {
    fn add_assign(&mut self, other: Report) {
        self.trips += other.trips;
        self.mismatches += other.mismatches;
    }
}

/// What a runtime supplies: `pairs` pairs A and B making `r` round trips in all (pair `k`
/// its [`share`]), and the sum of the As' reports to main.
trait Volley {
    fn volley(&self, r: u64, pairs: u64) -> Result<Measured<Report>>;
}

fn pairs(p: &Params) -> u64 {
    p.get(PAIRS).unwrap_or(1)
}

impl Workload for Pingpong {
    const SPEC: &'static Spec = &SPEC;
    type Answer = Report;

    fn on_mote(_variant: &str, p: &Params) -> Result<Measured<Report>> {
        Mote.volley(p.get("r")?, pairs(p))
    }

    fn on_tokio(tokio: Tokio, _variant: &str, p: &Params) -> Result<Measured<Report>> {
        tokio.volley(p.get("r")?, pairs(p))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_the_round_trips() {
        for (r, pairs) in [(10, 3), (7, 7), (1_000_000, 100), (5, 1)] {
            let shares: Vec<u64> = (0..pairs).map(|k| share(r, pairs, k)).collect();
            assert_eq!(shares.iter().sum::<u64>(), r, "r={r} pairs={pairs}");
            assert!(shares.iter().max().unwrap() - shares.iter().min().unwrap() <= 1);
        }
    }

    #[test]
    fn more_pairs_than_round_trips_is_a_usage_error() {
        let e = SPEC
            .resolve_params(
                crate::workloads::spec::Size::Quick,
                &[("r".into(), 3), (PAIRS.into(), 4)],
            )
            .unwrap_err();
        assert!(e.to_string().contains("pairs=4 is more than"), "{e}");
        let p = SPEC
            .resolve_params(crate::workloads::spec::Size::Quick, &[(PAIRS.into(), 4)])
            .unwrap();
        assert_eq!(pairs(&p), 4);
    }
}
