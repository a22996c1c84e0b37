//! The suite's results as data: what `results.json` holds and every report is drawn from.

use super::compare::Comparison;
use crate::harness::params::Params;
use crate::harness::stats::{ImplStats, VsBaseline};
use crate::impls::Impl;
use crate::workloads::spec::Size;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One scenario: a workload, a variant and the parameter values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// Workload name.
    pub workload: String,
    /// Variant (`-` when none).
    pub variant: String,
    /// Parameter values, in contract order.
    pub params: Params,
    /// True for the workload's own default (or `--quick`) sizes, as opposed to a sweep-only
    /// point; bar charts show these.
    pub base: bool,
    /// Names of the sweeps this scenario is a point of.
    pub sweeps: Vec<String>,
}

impl Scenario {
    /// The base scenario of `workload`'s `variant` at `size` (for the tests).
    #[cfg(test)]
    pub(crate) fn base_at(workload: &str, variant: &str, size: Size) -> Scenario {
        Scenario {
            workload: workload.into(),
            variant: variant.into(),
            params: crate::catalog::find(workload)
                .expect("a workload of the catalog")
                .spec
                .params_at(size),
            base: true,
            sweeps: vec![],
        }
    }

    /// `chain int m=1000 n=1000`: the scenario as people read it.
    pub fn label(&self) -> String {
        format!(
            "{} {} {}",
            self.workload,
            self.variant,
            self.params.to_kv_string()
        )
    }

    /// True when both name the same workload, variant and parameters.
    pub fn same_as(&self, workload: &str, variant: &str, params: &Params) -> bool {
        self.workload == workload && self.variant == variant && &self.params == params
    }
}

/// One child run that produced a RESULT line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// A warm-up run (not in the statistics).
    pub warmup: bool,
    /// The workload's own wall time from the RESULT line.
    pub wall_ms: f64,
    /// Peak RSS of the child from `wait4`, KiB.
    pub peak_rss_kb: u64,
    /// Extra figures from the RESULT line.
    pub extras: Vec<(String, String)>,
    /// Spawn-to-exit time of the child process (startup and teardown included), ms.
    pub process_ms: f64,
    /// The round trip of a cache line between two threads just before the run, ns
    /// ([`crate::harness::core_distance`]): which state of the machine the run had. Absent
    /// in files from before it was taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_round_trip_ns: Option<u64>,
}

/// How an implementation fared on a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Status {
    /// Every run produced a RESULT line.
    Ok,
    /// Not run: the implementation is unavailable or does not have the workload yet.
    Skipped {
        /// Why.
        reason: String,
    },
    /// A run failed (error exit, timeout, no or bad RESULT line); later runs were not made.
    Failed {
        /// What went wrong.
        reason: String,
        /// The last lines of the child's stderr.
        stderr_tail: String,
    },
}

/// One implementation's runs and statistics on one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImplResult {
    /// Which implementation.
    #[serde(rename = "impl")]
    pub imp: Impl,
    /// Outcome.
    #[serde(flatten)]
    pub status: Status,
    /// Every run made, warm-ups included.
    pub runs: Vec<RunRecord>,
    /// Statistics of the measured runs (only when `status` is ok).
    pub stats: Option<ImplStats>,
    /// Ratios to tokio's default program on the same scenario (when both have statistics).
    pub vs_tokio: Option<VsBaseline>,
}

/// Runs an implementation needs before its statistics count: fewer measured runs than this
/// and the reports mark its figures.
pub const MIN_SAMPLES: usize = 3;

impl ImplResult {
    /// A result with no runs yet.
    pub fn new(imp: Impl, status: Status) -> Self {
        ImplResult {
            imp,
            status,
            runs: Vec::new(),
            stats: None,
            vs_tokio: None,
        }
    }

    /// The wall times (ms) of its measured runs, warm-ups left out.
    pub fn measured_ms(&self) -> Vec<f64> {
        self.runs
            .iter()
            .filter(|run| !run.warmup)
            .map(|run| run.wall_ms)
            .collect()
    }
}

/// One scenario with every implementation's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// The scenario.
    pub scenario: Scenario,
    /// One entry per implementation, in interleaving order.
    pub impls: Vec<ImplResult>,
}

/// What a sweep chart plots on its y axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Median wall time, ms.
    TimeMs,
    /// Median peak RSS, MiB (KiB / 1024; the name is kept for the saved runs that use it).
    RssMb,
}

/// A sweep: one parameter varied over values with everything else fixed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// Identifier, also the chart's file stem (`sweep-<name>.svg`).
    pub name: String,
    /// Chart title.
    pub title: String,
    /// Workload swept.
    pub workload: String,
    /// Variants drawn (one line per implementation and variant).
    pub variants: Vec<String>,
    /// Options every point sets besides the swept one (the scaling study's pingpong runs
    /// many pairs).
    #[serde(default)]
    pub fixed: Params,
    /// The parameter on the x axis.
    pub param: String,
    /// The values it takes.
    pub values: Vec<u64>,
    /// The y axis.
    pub metric: Metric,
    /// Whether the x axis is logarithmic (values spanning decades).
    pub log_x: bool,
}

/// The machine the suite ran on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Available cores (`available_parallelism`).
    pub cores: usize,
    /// Total memory, MiB.
    pub memory_mb: u64,
    /// Operating system and kernel.
    pub os: String,
    /// CPU model.
    pub cpu: String,
    /// `rustc --version` of the compiler that built the harness.
    pub rustc: String,
    /// tokio version the harness links.
    pub tokio: String,
    /// `go version`, when Go is in the run (also in `versions`; kept for older readers).
    pub go: Option<String>,
    /// `elixir --version`, when Elixir is in the run (also in `versions`).
    pub elixir: Option<String>,
    /// Every peer runtime in the run: its toolchain's version.
    #[serde(default)]
    pub versions: BTreeMap<String, String>,
}

impl Machine {
    /// The peer runtimes' versions, from `versions` or, in files written before it existed,
    /// from `go` and `elixir`.
    pub fn peer_versions(&self) -> BTreeMap<String, String> {
        let mut all = self.versions.clone();
        for (k, v) in [("go", &self.go), ("elixir", &self.elixir)] {
            if let Some(v) = v {
                all.entry(k.to_string()).or_insert_with(|| v.clone());
            }
        }
        all
    }
}

/// How the suite was run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// `--quick` sizes (also said by `size`; kept for older readers).
    pub quick: bool,
    /// The sizes run (files written before sizes existed: `quick` or the full ones).
    #[serde(default)]
    pub size: Option<Size>,
    /// Measured runs per scenario and implementation: the fewest, when `min_time_s` is set.
    pub runs: u32,
    /// The time each implementation's measured runs of a scenario were to add up to,
    /// seconds: short runs were made more often, up to `max_runs` (0, and in files written
    /// before it existed: exactly `runs`).
    #[serde(default)]
    pub min_time_s: f64,
    /// The most measured runs `min_time_s` could ask for.
    #[serde(default)]
    pub max_runs: u32,
    /// Warm-up runs per scenario and implementation.
    pub warmup: u32,
    /// Per-run timeout, seconds.
    pub timeout_s: u64,
    /// Implementations asked for.
    pub impls: Vec<Impl>,
    /// Workloads asked for.
    pub workloads: Vec<String>,
}

/// Everything one suite run produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteResults {
    /// Format version of this file.
    pub schema: u32,
    /// When the suite started (UTC, RFC 3339).
    pub timestamp: String,
    /// The harness's command line.
    pub command_line: Vec<String>,
    /// Where it ran.
    pub machine: Machine,
    /// How it ran.
    pub config: Config,
    /// Notes for the reader (implementations skipped and why).
    pub notes: Vec<String>,
    /// The sweeps, for the line charts.
    pub sweeps: Vec<Sweep>,
    /// Every scenario's results, in run order.
    pub scenarios: Vec<ScenarioResult>,
    /// Set while the suite runs, and when it was stopped: how far it got. `None` in a
    /// finished run's file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
    /// This run against a saved one (`--compare`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
}

impl Config {
    /// How many measured runs each implementation made of a scenario.
    pub fn run_count(&self) -> super::runs::RunCount {
        super::runs::RunCount {
            runs: self.runs,
            min_time_ms: self.min_time_s * 1e3,
            max_runs: self.max_runs,
        }
    }

    /// The sizes run, for files that predate `size`.
    pub fn size(&self) -> Size {
        self.size
            .unwrap_or(if self.quick { Size::Quick } else { Size::Full })
    }
}

impl SuiteResults {
    /// The workloads that have scenarios, in run order, each once.
    pub fn workloads(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for s in &self.scenarios {
            if !names.contains(&s.scenario.workload.as_str()) {
                names.push(&s.scenario.workload);
            }
        }
        names
    }
}

/// The current schema version of [`SuiteResults`].
pub const SCHEMA: u32 = 1;
