//! The suite: plan every scenario, run each as interleaved child processes, summarise.

pub mod exec;
pub mod model;
pub mod plan;

use crate::catalog::{self, WorkloadSpec};
use crate::impls::Impl;
use crate::machine;
use crate::peers::{self, Peers};
use crate::stats::{impl_stats, vs_baseline};
use anyhow::{Context, Result};
use exec::ExecOptions;
use indicatif::{ProgressBar, ProgressStyle};
use model::{Config, ScenarioResult, Status, SuiteResults, SCHEMA};
use std::time::Duration;

/// What the user asked the suite to do.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    /// The contract's `--quick` sizes.
    pub quick: bool,
    /// Measured runs per scenario and implementation.
    pub runs: u32,
    /// Warm-up runs per scenario and implementation.
    pub warmup: u32,
    /// Implementations, in interleaving order.
    pub impls: Vec<Impl>,
    /// Workloads by name (empty: all).
    pub workloads: Vec<String>,
    /// Per-run timeout.
    pub timeout: Duration,
    /// Whether to run the sweeps.
    pub sweeps: bool,
}

/// Runs the suite and returns its results (reports are written by the caller).
pub fn run(opts: &SuiteOptions, command_line: Vec<String>) -> Result<SuiteResults> {
    let specs: Vec<&'static WorkloadSpec> = if opts.workloads.is_empty() {
        catalog::WORKLOADS.iter().collect()
    } else {
        opts.workloads
            .iter()
            .map(|w| catalog::lookup(w))
            .collect::<Result<_>>()?
    };
    // Building the Go peer is only worth it when Go is in the run.
    let peers = Peers::discover(peers::locate_dir(), opts.impls.contains(&Impl::Go));
    let mut available = Vec::new();
    let mut unavailable = Vec::new();
    let mut notes = Vec::new();
    for &imp in &opts.impls {
        let missing = match imp {
            Impl::Go => peers.go_missing.clone(),
            Impl::Elixir | Impl::ElixirTuned => peers.elixir_missing.clone(),
            Impl::Mote | Impl::Tokio => None,
        };
        match missing {
            Some(why) => {
                notes.push(format!("{imp} skipped: {why}"));
                eprintln!("note: {imp} skipped: {why}");
                unavailable.push((imp, why));
            }
            None => available.push(imp),
        }
    }
    let cores = machine::cores();
    let (scenarios, sweeps) = plan::plan(&specs, opts.quick, opts.sweeps, cores);
    let exec_opts = ExecOptions {
        runs: opts.runs,
        warmup: opts.warmup,
        timeout: opts.timeout,
        exe: std::env::current_exe().context("locating the harness's own executable")?,
        peers,
    };
    let machine = machine::probe(
        available.contains(&Impl::Go),
        available.contains(&Impl::Elixir),
    );
    let timestamp = machine::timestamp_now();
    let total = (scenarios.len() * available.len()) as u64 * u64::from(opts.runs + opts.warmup);
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:32}] {pos}/{len} runs  {msg}")
            .expect("static progress template")
            .progress_chars("=> "),
    );
    let mut scenario_results =
        exec::run_all(&scenarios, &available, &unavailable, &exec_opts, &bar);
    bar.finish_and_clear();
    fill_stats(&mut scenario_results);
    notes.extend(skip_notes(&scenario_results, &available));
    Ok(SuiteResults {
        schema: SCHEMA,
        timestamp,
        command_line,
        machine,
        config: Config {
            quick: opts.quick,
            runs: opts.runs,
            warmup: opts.warmup,
            timeout_s: opts.timeout.as_secs(),
            impls: opts.impls.clone(),
            workloads: specs.iter().map(|s| s.name.to_string()).collect(),
        },
        notes,
        sweeps,
        scenarios: scenario_results,
    })
}

/// Computes every implementation's statistics from its measured runs, then the ratios to tokio
/// on the same scenario.
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
            .find(|r| r.imp == Impl::Tokio)
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
        .filter_map(|&imp| {
            let statuses: Vec<&Status> = results
                .iter()
                .flat_map(|s| &s.impls)
                .filter(|r| r.imp == imp)
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
    use crate::params::Params;
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
                (Impl::Mote, skip("not wired")),
                (Impl::Tokio, Status::Ok),
            ]),
            scenario(vec![(Impl::Mote, skip("later")), (Impl::Tokio, skip("x"))]),
        ];
        assert_eq!(
            skip_notes(&results, &[Impl::Mote, Impl::Tokio]),
            vec!["mote skipped on every scenario (first: not wired)".to_string()]
        );
    }
}
