//! The suite: plan every scenario and its lineup, say how long it will take, run each as
//! interleaved child processes while keeping `results.json` up to date, summarise.

pub mod compare;
pub mod estimate;
pub mod exec;
pub mod model;
pub mod plan;
pub mod progress;
pub mod runs;
pub mod standing;

use crate::catalog;
use crate::harness::interrupt;
use crate::harness::machine;
use crate::harness::stats::{impl_stats, vs_baseline};
use crate::impls::Impl;
use crate::peers::{self, Peers, PEERS};
use crate::report;
use crate::workloads::spec::Size;
use crate::workloads::Entry;
use anyhow::{Context, Result};
use exec::ExecOptions;
use model::{Config, ScenarioResult, Status, SuiteResults, SCHEMA};
use progress::Progress;
use runs::RunCount;
use std::path::PathBuf;
use std::time::Duration;

/// What the user asked the suite to do.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    /// The sizes to run.
    pub size: Size,
    /// Measured runs per scenario and implementation: at least this many, more for short
    /// runs (see [`runs`]).
    pub runs: u32,
    /// The time each implementation's measured runs of a scenario should add up to (zero:
    /// exactly `runs`).
    pub min_time: Duration,
    /// The most measured runs `min_time` may ask for.
    pub max_runs: u32,
    /// Warm-up runs per scenario and implementation.
    pub warmup: u32,
    /// Implementations, in interleaving order.
    pub impls: Vec<Impl>,
    /// Workloads by name (empty: all).
    pub workloads: Vec<String>,
    /// Per-run timeout.
    pub timeout: Duration,
    /// Which sweeps to run (the scaling study runs its sweeps alone).
    pub sweeps: plan::Sweeps,
    /// Where `results.json` is kept up to date while the suite runs.
    pub out: PathBuf,
}

/// The suite's plan: the scenarios with their lineups, the sweeps, and the implementations
/// that cannot run here (with why).
#[derive(Debug, Clone)]
pub struct Plan {
    /// Every scenario with who runs it, in run order.
    pub scenarios: Vec<(model::Scenario, plan::Lineup)>,
    /// The sweeps kept.
    pub sweeps: Vec<model::Sweep>,
    /// Implementations asked for that cannot run here, with why.
    pub unavailable: Vec<(Impl, String)>,
}

impl SuiteOptions {
    /// How many measured runs each implementation makes of a scenario.
    pub fn run_count(&self) -> RunCount {
        RunCount {
            runs: self.runs,
            min_time_ms: self.min_time.as_secs_f64() * 1e3,
            max_runs: self.max_runs,
        }
    }
}

impl Plan {
    /// Every planned (scenario, implementation) pair with its measured runs, in run order.
    fn pairs<'a>(
        &'a self,
        opts: &'a SuiteOptions,
    ) -> impl Iterator<Item = (&'a model::Scenario, &'a Impl, u32)> + 'a {
        let count = opts.run_count();
        self.scenarios.iter().flat_map(move |(s, l)| {
            l.run
                .iter()
                .map(move |imp| (s, imp, count.measured(s, imp)))
        })
    }

    /// Runs the plan makes, warm-ups included.
    pub fn runs(&self, opts: &SuiteOptions) -> u64 {
        self.pairs(opts)
            .map(|(_, _, measured)| u64::from(opts.warmup + measured))
            .sum()
    }

    /// The peer runtimes with an implementation in the run that can run here.
    pub fn peer_runtimes(&self, opts: &SuiteOptions) -> Vec<&'static peers::Peer> {
        let runs_here = |name: &str| {
            opts.impls.iter().any(|i| i.base() == name)
                && !self.unavailable.iter().any(|(u, _)| u.base() == name)
        };
        PEERS
            .iter()
            .filter(|p| p.impls.iter().any(|pi| runs_here(pi.name)))
            .collect()
    }

    /// The expected time of the whole plan, ms.
    pub fn expected_ms(&self, opts: &SuiteOptions) -> f64 {
        self.pairs(opts)
            .map(|(s, imp, measured)| pair_ms(s, imp, measured, opts))
            .sum()
    }
}

fn entries(opts: &SuiteOptions) -> Result<Vec<&'static Entry>> {
    if opts.workloads.is_empty() {
        Ok(catalog::WORKLOADS.iter().collect())
    } else {
        opts.workloads.iter().map(|w| catalog::lookup(w)).collect()
    }
}

/// Plans the suite for `peers` (as discovered).
pub fn make_plan(opts: &SuiteOptions, peers: &Peers) -> Result<Plan> {
    let entries = entries(opts)?;
    let unavailable: Vec<(Impl, String)> = opts
        .impls
        .iter()
        .filter_map(|imp| Some((imp.clone(), peers.missing(imp.base())?)))
        .collect();
    let (scenarios, sweeps) = plan::plan(&entries, opts.size, opts.sweeps, machine::cores());
    let scenarios = scenarios
        .into_iter()
        .map(|s| {
            let l = plan::lineup(&s, &opts.impls, &unavailable);
            (s, l)
        })
        .collect();
    Ok(Plan {
        scenarios,
        sweeps,
        unavailable,
    })
}

/// Discovers the peers (without building any) and plans the suite.
pub fn dry_plan(opts: &SuiteOptions) -> Result<Plan> {
    make_plan(opts, &Peers::discover(peers::locate_dir(), false))
}

/// The expected time of `imp`'s runs of `s`, warm-ups included, ms.
fn pair_ms(s: &model::Scenario, imp: &Impl, measured: u32, opts: &SuiteOptions) -> f64 {
    estimate::run_ms(s, imp) * f64::from(opts.warmup + measured)
}

/// Says on stderr what the plan runs and how long it should take; with `each`, one line per
/// scenario too.
pub fn announce(plan: &Plan, opts: &SuiteOptions, each: bool) {
    if each {
        let pairs: Vec<_> = plan.pairs(opts).collect();
        for scenario in pairs.chunk_by(|a, b| std::ptr::eq(a.0, b.0)) {
            let imps: Vec<String> = scenario
                .iter()
                .map(|(_, imp, measured)| format!("{}x{measured}", imp.name()))
                .collect();
            let ms: f64 = scenario
                .iter()
                .map(|&(s, imp, measured)| pair_ms(s, imp, measured, opts))
                .sum();
            eprintln!(
                "{:<44} {:>7}  {}",
                scenario[0].0.label(),
                estimate::human(ms),
                imps.join(" ")
            );
        }
    }
    eprintln!(
        "mote-bench: {} scenarios, {} runs ({} warm-up + {} per scenario and \
         implementation), {} sizes: expected to take about {} (from times measured on the \
         2-core reference machine)",
        plan.scenarios.len(),
        plan.runs(opts),
        opts.warmup,
        opts.run_count().describe(),
        opts.size.name(),
        estimate::human(plan.expected_ms(opts))
    );
}

/// Runs the suite and returns its results (the other reports are written by the caller).
/// `results.json` in `opts.out` is rewritten after every run, so a stopped suite keeps what
/// it measured; the returned results say whether it was stopped (`incomplete`).
pub fn run(opts: &SuiteOptions, command_line: Vec<String>) -> Result<SuiteResults> {
    // Building a peer is only worth it when one of its implementations is in the run.
    let build = opts.impls.iter().any(|i| !i.in_process());
    let peers = Peers::discover(peers::locate_dir(), build);
    let plan = make_plan(opts, &peers)?;
    let mut notes = Vec::new();
    for (imp, why) in &plan.unavailable {
        notes.push(format!("{imp} skipped: {why}"));
        eprintln!("note: {imp} skipped: {why}");
    }
    let runs = plan.runs(opts);
    let expected = plan.expected_ms(opts);
    announce(&plan, opts, false);
    let mut results = SuiteResults {
        schema: SCHEMA,
        timestamp: machine::timestamp_now(),
        command_line,
        machine: machine::probe(&plan.peer_runtimes(opts)),
        config: Config {
            quick: opts.size == Size::Quick,
            size: Some(opts.size),
            runs: opts.runs,
            min_time_s: opts.min_time.as_secs_f64(),
            max_runs: opts.max_runs,
            warmup: opts.warmup,
            timeout_s: opts.timeout.as_secs(),
            impls: opts.impls.clone(),
            workloads: entries(opts)?
                .iter()
                .map(|e| e.spec.name.to_string())
                .collect(),
        },
        notes,
        sweeps: plan.sweeps.clone(),
        scenarios: Vec::new(),
        incomplete: Some(format!("in progress: 0 of {runs} runs")),
        comparison: None,
    };
    std::fs::create_dir_all(&opts.out)
        .with_context(|| format!("creating {}", opts.out.display()))?;
    let json = opts.out.join("results.json");
    let exec_opts = ExecOptions {
        runs: opts.run_count(),
        warmup: opts.warmup,
        timeout: opts.timeout,
        exe: std::env::current_exe().context("locating the harness's own executable")?,
        peers,
    };
    let mut progress = Progress::new(runs, expected);
    let mut write_failed = false;
    let mut record = |scenarios: &mut Vec<ScenarioResult>| {
        fill_stats(scenarios);
        let made = runs_made(scenarios);
        results.incomplete = Some(format!("in progress: {made} of {runs} runs"));
        results.scenarios = std::mem::take(scenarios);
        if let Err(e) = report::json::write_atomic(&results, &json) {
            if !write_failed {
                eprintln!(
                    "warning: could not keep {} up to date: {e:#}",
                    json.display()
                );
                write_failed = true;
            }
        }
        *scenarios = std::mem::take(&mut results.scenarios);
    };
    let (mut scenarios, stopped) =
        exec::run_all(&plan.scenarios, &exec_opts, &mut progress, &mut record);
    progress.finish();
    fill_stats(&mut scenarios);
    let made = runs_made(&scenarios);
    results.incomplete = (stopped || interrupt::requested())
        .then(|| format!("stopped by the user after {made} of {runs} runs"));
    let available: Vec<Impl> = opts
        .impls
        .iter()
        .filter(|i| !plan.unavailable.iter().any(|(u, _)| u == *i))
        .cloned()
        .collect();
    results.notes.extend(skip_notes(&scenarios, &available));
    results.scenarios = scenarios;
    Ok(results)
}

/// Runs made so far, warm-ups included.
fn runs_made(scenarios: &[ScenarioResult]) -> usize {
    scenarios
        .iter()
        .flat_map(|s| &s.impls)
        .map(|r| r.runs.len())
        .sum()
}

/// Computes every implementation's statistics from its measured runs, then the ratios to
/// tokio's default program on the same scenario.
pub fn fill_stats(results: &mut [ScenarioResult]) {
    for s in results {
        for r in &mut s.impls {
            let measured: Vec<(f64, u64)> = r
                .runs
                .iter()
                .filter(|run| !run.warmup)
                .map(|run| (run.wall_ms, run.peak_rss_kb))
                .collect();
            r.stats = match r.status {
                // An empty sample (every run a warm-up) leaves no statistics, not an error.
                Status::Ok => impl_stats(&measured).ok(),
                _ => None,
            };
        }
        let baseline = s
            .impls
            .iter()
            .find(|r| r.imp == Impl::tokio())
            .and_then(|r| r.stats);
        for r in &mut s.impls {
            r.vs_tokio = match (r.stats, baseline) {
                (Some(st), Some(b)) => vs_baseline(&st, &b),
                _ => None,
            };
        }
    }
}

/// One note per implementation that was skipped on every scenario, with the first reason.
fn skip_notes(results: &[ScenarioResult], available: &[Impl]) -> Vec<String> {
    let skipped = |s: &Status| matches!(s, Status::Skipped { .. });
    available
        .iter()
        .filter_map(|imp| {
            let statuses: Vec<&Status> = results
                .iter()
                .flat_map(|s| &s.impls)
                .filter(|r| r.imp == *imp)
                .map(|r| &r.status)
                .collect();
            match statuses.first() {
                Some(Status::Skipped { reason }) if statuses.iter().all(|s| skipped(s)) => {
                    Some(format!("{imp} skipped on every scenario (first: {reason})"))
                }
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::params::Params;
    use model::{ImplResult, Scenario};

    fn scenario(statuses: Vec<(Impl, Status)>) -> ScenarioResult {
        ScenarioResult {
            scenario: Scenario {
                workload: "ring".into(),
                variant: "-".into(),
                params: Params::from_pairs([("t", 1), ("p", 2)]),
                base: true,
                sweeps: vec![],
            },
            impls: statuses
                .into_iter()
                .map(|(i, s)| ImplResult::new(i, s))
                .collect(),
        }
    }

    #[test]
    fn notes_name_implementations_skipped_everywhere() {
        let skip = |r: &str| Status::Skipped { reason: r.into() };
        let results = vec![
            scenario(vec![
                (Impl::mote(), skip("not here")),
                (Impl::tokio(), Status::Ok),
            ]),
            scenario(vec![
                (Impl::mote(), skip("later")),
                (Impl::tokio(), skip("x")),
            ]),
        ];
        assert_eq!(
            skip_notes(&results, &[Impl::mote(), Impl::tokio()]),
            vec!["mote skipped on every scenario (first: not here)".to_string()]
        );
    }

    fn options(size: Size) -> SuiteOptions {
        SuiteOptions {
            size,
            runs: 3,
            min_time: Duration::ZERO,
            max_runs: 3,
            warmup: 1,
            impls: vec![Impl::mote(), Impl::tokio()],
            workloads: vec!["chain".into(), "ring".into()],
            timeout: Duration::from_secs(60),
            sweeps: plan::Sweeps::Off,
            out: PathBuf::from("unused"),
        }
    }

    #[test]
    fn the_plan_counts_its_runs_and_adds_up_their_expected_times() {
        let peers = Peers::fixed(vec![]);
        let opts = options(Size::Standard);
        let plan = make_plan(&opts, &peers).unwrap();
        // chain int and list20 on mote, tokio and tokio:tail_first; ring on mote and tokio.
        let lineups: Vec<usize> = plan.scenarios.iter().map(|(_, l)| l.run.len()).collect();
        assert_eq!(lineups, [3, 3, 2]);
        assert_eq!(plan.runs(&opts), 8 * 4);
        let by_hand: f64 = plan
            .scenarios
            .iter()
            .flat_map(|(s, l)| l.run.iter().map(move |i| estimate::run_ms(s, i)))
            .sum::<f64>()
            * 4.0;
        assert!((plan.expected_ms(&opts) - by_hand).abs() < 1e-6);
        let full = make_plan(&options(Size::Full), &peers).unwrap();
        assert!(full.expected_ms(&opts) > 5.0 * plan.expected_ms(&opts));
    }

    #[test]
    fn a_min_time_adds_runs_to_short_scenarios_only() {
        let peers = Peers::fixed(vec![]);
        let fixed = options(Size::Standard);
        let mut timed = fixed.clone();
        timed.min_time = Duration::from_secs(2);
        timed.max_runs = 15;
        let plan = make_plan(&timed, &peers).unwrap();
        // The standard ring takes well over 2 s / 3 on every implementation; the chain's
        // runs do not.
        let count = timed.run_count();
        for (s, l) in &plan.scenarios {
            for imp in &l.run {
                let n = count.measured(s, imp);
                let each = estimate::run_ms(s, imp);
                assert!((3..=15).contains(&n), "{} {imp}: {n}", s.label());
                assert_eq!(
                    n > 3,
                    each * 3.0 < 2_000.0,
                    "{} {imp}: {each} ms",
                    s.label()
                );
            }
        }
        assert!(plan.runs(&timed) > plan.runs(&fixed));
        // The extra runs cost at most the min time per scenario and implementation.
        let pairs: f64 = plan.scenarios.iter().map(|(_, l)| l.run.len() as f64).sum();
        assert!(plan.expected_ms(&timed) <= plan.expected_ms(&fixed) + pairs * 2_000.0);
    }

    #[test]
    fn peers_that_cannot_run_are_planned_as_skipped() {
        let peers = Peers::fixed(vec![]);
        let mut opts = options(Size::Quick);
        opts.impls.push(Impl::named("go"));
        let plan = make_plan(&opts, &peers).unwrap();
        assert_eq!(plan.unavailable.len(), 1);
        let (_, ring) = &plan.scenarios[2];
        assert_eq!(ring.skipped[0].0, Impl::named("go"));
        assert_eq!(plan.runs(&opts), 8 * 4);
    }
}
