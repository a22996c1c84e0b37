//! A run against a saved one (`--compare OLD`): for every scenario and implementation both
//! measured, the ratio of the median times with its bootstrap interval
//! ([`crate::harness::bootstrap`]), the same ratio relative to tokio's default program in
//! each run (which cancels a machine that was busier in one run than in the other), and
//! whether each interval shows a change.

use super::model::{ImplResult, SuiteResults};
use crate::harness::bootstrap::{ratio_of_medians, ratio_of_relatives, RatioCi, Verdict};
use crate::impls::Impl;
use serde::{Deserialize, Serialize};

/// One scenario and implementation in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareRow {
    /// The scenario as people read it (`chain int m=3000 n=3000`).
    pub scenario: String,
    /// The implementation.
    #[serde(rename = "impl")]
    pub imp: Impl,
    /// Measured runs in this run.
    pub new_runs: usize,
    /// Measured runs in the saved run.
    pub old_runs: usize,
    /// This run's median time over the saved run's, with its interval.
    pub time: RatioCi,
    /// What the interval says.
    pub verdict: Verdict,
    /// This run's median over tokio's in the same scenario, divided by the same in the saved
    /// run, with its interval (not for tokio itself, nor where a run lacks tokio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_tokio: Option<RatioCi>,
}

impl CompareRow {
    /// What the relative interval says, when there is one.
    pub fn vs_tokio_verdict(&self) -> Option<Verdict> {
        self.vs_tokio.map(|r| r.verdict())
    }
}

/// This run against a saved one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The saved run's file, as given.
    pub against: String,
    /// When the saved run started.
    pub against_timestamp: String,
    /// One row per scenario and implementation measured in both, in this run's order.
    pub rows: Vec<CompareRow>,
    /// Scenario and implementation pairs measured in only one of the two.
    pub unmatched: usize,
}

impl Comparison {
    /// The rows whose time interval lies wholly above 1.
    pub fn slower(&self) -> impl Iterator<Item = &CompareRow> {
        self.rows.iter().filter(|r| r.verdict == Verdict::Slower)
    }

    /// The rows whose interval relative to tokio lies wholly above 1.
    pub fn slower_vs_tokio(&self) -> impl Iterator<Item = &CompareRow> {
        self.rows
            .iter()
            .filter(|r| r.vs_tokio_verdict() == Some(Verdict::Slower))
    }
}

/// Compares `new` with `old` (read from `against`).
pub fn compare(new: &SuiteResults, old: &SuiteResults, against: &str) -> Comparison {
    let mut rows = Vec::new();
    let mut matched = 0;
    let pairs = |r: &SuiteResults| {
        r.scenarios
            .iter()
            .map(|s| {
                s.impls
                    .iter()
                    .filter(|i| !i.measured_ms().is_empty())
                    .count()
            })
            .sum::<usize>()
    };
    for s in &new.scenarios {
        let sc = &s.scenario;
        let Some(o) = old
            .scenarios
            .iter()
            .find(|o| o.scenario.same_as(&sc.workload, &sc.variant, &sc.params))
        else {
            continue;
        };
        let tokio = |impls: &[ImplResult]| {
            impls
                .iter()
                .find(|r| r.imp == Impl::tokio())
                .map(ImplResult::measured_ms)
                .unwrap_or_default()
        };
        let (new_base, old_base) = (tokio(&s.impls), tokio(&o.impls));
        for r in &s.impls {
            let Some(or) = o.impls.iter().find(|or| or.imp == r.imp) else {
                continue;
            };
            let (nt, ot) = (r.measured_ms(), or.measured_ms());
            let Some(time) = ratio_of_medians(&nt, &ot) else {
                continue;
            };
            matched += 1;
            let vs_tokio = (r.imp != Impl::tokio())
                .then(|| ratio_of_relatives(&nt, &new_base, &ot, &old_base))
                .flatten();
            rows.push(CompareRow {
                scenario: sc.label(),
                imp: r.imp.clone(),
                new_runs: nt.len(),
                old_runs: ot.len(),
                verdict: time.verdict(),
                time,
                vs_tokio,
            });
        }
    }
    Comparison {
        against: against.to_string(),
        against_timestamp: old.timestamp.clone(),
        rows,
        unmatched: (pairs(new) + pairs(old)).saturating_sub(2 * matched),
    }
}
