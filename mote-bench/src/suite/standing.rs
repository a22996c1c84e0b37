//! Where mote stands in one run: for every scenario, mote's median time over the fastest
//! peer's (whichever implementation other than mote had the lowest median, any style of
//! it), with a bootstrap interval of that ratio and what the interval shows.
//!
//! This is the question a reader of the suite asks first ("is mote ahead on this row?"),
//! answered with the runs' spread: a row where mote and its fastest peer run the same code
//! (the sequential baselines run one loop in main for mote and raw tokio) reads "no
//! difference shown", not a win or a loss decided by noise.

use super::model::{ImplResult, ScenarioResult, Status, SuiteResults, MIN_SAMPLES};
use crate::harness::bootstrap::{ratio_of_medians, RatioCi, Verdict};
use crate::impls::Impl;

/// mote against the fastest peer in one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// The scenario as people read it.
    pub scenario: String,
    /// The peer with the lowest median time.
    pub peer: Impl,
    /// mote's median time over that peer's, with its 95% interval.
    pub time: RatioCi,
    /// What the interval says about mote; `None` when either side has fewer than
    /// [`MIN_SAMPLES`] measured runs (two runs a side give an interval that does not cover
    /// what a third would show: the same code has read as a 10% lead).
    pub verdict: Option<Verdict>,
    /// mote's median peak RSS over raw tokio's, where tokio ran.
    pub rss_vs_tokio: Option<f64>,
    /// mote's and the peer's measured runs.
    pub runs: (usize, usize),
}

/// The measured times of an implementation that succeeded, if it has any.
fn measured(r: &ImplResult) -> Option<Vec<f64>> {
    let times = r.measured_ms();
    (r.status == Status::Ok && !times.is_empty()).then_some(times)
}

/// mote's standing in `s`, or `None` when mote or every peer has no measured runs.
pub fn standing(s: &ScenarioResult) -> Option<Standing> {
    let mote_result = s.impls.iter().find(|r| r.imp == Impl::mote())?;
    let mote = measured(mote_result)?;
    let (peer, peer_times) = s
        .impls
        .iter()
        .filter(|r| r.imp.base() != "mote")
        .filter_map(|r| Some((r, measured(r)?)))
        .filter_map(|(r, t)| Some((r, r.stats?.time.median, t)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(r, _, t)| (r.imp.clone(), t))?;
    let time = ratio_of_medians(&mote, &peer_times)?;
    Some(Standing {
        scenario: s.scenario.label(),
        peer,
        verdict: (mote.len().min(peer_times.len()) >= MIN_SAMPLES).then(|| time.verdict()),
        time,
        rss_vs_tokio: mote_result.vs_tokio.map(|v| v.rss),
        runs: (mote.len(), peer_times.len()),
    })
}

/// mote's standing in every scenario of `results` where it and a peer were measured, in
/// run order.
pub fn standings(results: &SuiteResults) -> Vec<Standing> {
    results.scenarios.iter().filter_map(standing).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::params::Params;
    use crate::harness::stats::{impl_stats, vs_baseline};
    use crate::suite::model::{RunRecord, Scenario};

    fn run(wall_ms: f64, warmup: bool) -> RunRecord {
        RunRecord {
            warmup,
            wall_ms,
            peak_rss_kb: 1000,
            extras: Vec::new(),
            process_ms: wall_ms,
            core_round_trip_ns: None,
        }
    }

    /// An implementation's result with a slow warm-up and `times` measured.
    fn result(name: &str, times: &[f64]) -> ImplResult {
        let mut r = ImplResult::new(Impl::named(name), Status::Ok);
        r.runs.push(run(10_000.0, true));
        r.runs.extend(times.iter().map(|&t| run(t, false)));
        let measured: Vec<(f64, u64)> = times.iter().map(|&t| (t, 1000)).collect();
        r.stats = Some(impl_stats(&measured).unwrap());
        r
    }

    fn scenario(mut impls: Vec<ImplResult>) -> ScenarioResult {
        let tokio = impls
            .iter()
            .find(|r| r.imp == Impl::tokio())
            .and_then(|r| r.stats);
        for r in &mut impls {
            r.vs_tokio = tokio.and_then(|t| vs_baseline(&r.stats.unwrap(), &t));
        }
        ScenarioResult {
            scenario: Scenario {
                workload: "call".into(),
                variant: "-".into(),
                params: Params::default(),
                base: true,
                sweeps: Vec::new(),
            },
            impls,
        }
    }

    #[test]
    fn the_fastest_peer_of_any_style_is_the_one_compared() {
        let s = scenario(vec![
            result("mote", &[100.0, 101.0, 99.0]),
            result("tokio", &[300.0, 310.0, 290.0]),
            result("tokio:current_thread", &[150.0, 151.0, 149.0]),
            result("go", &[200.0, 201.0, 199.0]),
        ]);
        let st = standing(&s).unwrap();
        assert_eq!(st.peer, Impl::named("tokio:current_thread"));
        assert!((st.time.ratio - 100.0 / 150.0).abs() < 1e-12, "{st:?}");
        assert_eq!(st.verdict, Some(Verdict::Faster));
        assert_eq!(st.runs, (3, 3), "warm-ups are not measured runs");
        assert_eq!(st.rss_vs_tokio, Some(1.0));
    }

    #[test]
    fn a_slower_mote_and_a_tie_read_as_such() {
        let slower = scenario(vec![
            result("mote", &[150.0, 152.0, 148.0]),
            result("tokio", &[100.0, 101.0, 99.0]),
        ]);
        assert_eq!(standing(&slower).unwrap().verdict, Some(Verdict::Slower));
        // The same code in both: runs that overlap show no difference either way.
        let tie = scenario(vec![
            result("mote", &[104.0, 110.0, 95.0]),
            result("tokio", &[98.0, 108.0, 101.0]),
        ]);
        let st = standing(&tie).unwrap();
        assert!(st.time.ratio > 1.0, "{st:?}");
        assert_eq!(st.verdict, Some(Verdict::Same));
    }

    #[test]
    fn failed_and_unmeasured_peers_are_passed_over() {
        let mut failed = result("go", &[1.0, 1.0, 1.0]);
        failed.status = Status::Failed {
            reason: "exit 1".into(),
            stderr_tail: String::new(),
        };
        let s = scenario(vec![
            result("mote", &[100.0, 101.0, 99.0]),
            result("tokio", &[120.0, 121.0, 119.0]),
            failed,
        ]);
        assert_eq!(standing(&s).unwrap().peer, Impl::tokio());
        // Two runs a side: a ratio, but no verdict.
        let few = scenario(vec![
            result("mote", &[50.0, 51.0]),
            result("tokio", &[100.0, 101.0]),
        ]);
        let st = standing(&few).unwrap();
        assert_eq!((st.runs, st.verdict), ((2, 2), None));
        let alone = scenario(vec![result("mote", &[100.0])]);
        assert_eq!(standing(&alone), None, "no peer: no standing");
        let no_mote = scenario(vec![result("tokio", &[100.0])]);
        assert_eq!(standing(&no_mote), None);
    }
}
