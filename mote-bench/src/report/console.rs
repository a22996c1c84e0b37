//! The benchee-like console table: one block per scenario, one row per implementation.

use super::format::{duration_ms, ratio, rss_mib};
use crate::suite::model::{ImplResult, ScenarioResult, Status, SuiteResults, MIN_SAMPLES};
use std::fmt::Write;

const HEADER: [&str; 8] = [
    "median",
    "mean",
    "deviation",
    "min",
    "p99",
    "peak RSS",
    "time vs tokio",
    "RSS vs tokio",
];

/// The mark on a median from fewer than [`MIN_SAMPLES`] runs.
pub const FEW_RUNS: &str = "†";

/// What [`FEW_RUNS`] means.
pub fn few_runs_note() -> String {
    format!("{FEW_RUNS} fewer than {MIN_SAMPLES} measured runs: a figure not to be trusted")
}

/// True when `r` has statistics from fewer than [`MIN_SAMPLES`] runs.
pub fn few_runs(r: &ImplResult) -> bool {
    r.stats.is_some_and(|s| s.time.n < MIN_SAMPLES)
}

/// The table's cells for one implementation, or the one-line reason it has none.
pub fn row_cells(r: &ImplResult) -> Result<[String; 8], String> {
    match (&r.status, r.stats) {
        (Status::Skipped { reason }, _) => Err(format!("skipped ({reason})")),
        (Status::Failed { reason, .. }, _) => Err(format!("FAILED ({reason})")),
        (Status::Ok, None) => Err("no measured runs".into()),
        (Status::Ok, Some(s)) => Ok([
            if few_runs(r) {
                format!("{} {FEW_RUNS}", duration_ms(s.time.median))
            } else {
                duration_ms(s.time.median)
            },
            duration_ms(s.time.mean),
            format!("±{:.2}%", s.time.stddev_pct()),
            duration_ms(s.time.min),
            duration_ms(s.time.p99),
            rss_mib(s.rss_max_kb as f64),
            r.vs_tokio.map_or("-".into(), |v| ratio(v.time)),
            r.vs_tokio.map_or("-".into(), |v| ratio(v.rss)),
        ]),
    }
}

/// The heading of a scenario's block.
pub fn heading(s: &ScenarioResult) -> String {
    let sc = &s.scenario;
    let mut h = sc.label();
    if !sc.base {
        let _ = write!(h, "   [sweep {}]", sc.sweeps.join(", "));
    }
    h
}

/// Renders the whole table.
pub fn render(results: &SuiteResults) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{} runs per scenario after {} warm-up, interleaved across each workload's scenarios and implementations; peak RSS is the largest of the runs",
        results.config.run_count().describe(),
        results.config.warmup
    );
    if let Some(why) = &results.incomplete {
        let _ = writeln!(out, "INCOMPLETE: {why}");
    }
    let mut few = false;
    for s in &results.scenarios {
        few |= s.impls.iter().any(few_runs);
        let _ = writeln!(out, "\n## {}", heading(s));
        // The name column fits the longest name (`clojure_async_buffered`, `tokio:tail_first`).
        let width = s
            .impls
            .iter()
            .map(|r| r.imp.name().len() + 1)
            .max()
            .unwrap_or(0)
            .max(12);
        let _ = write!(out, "{:<width$}", "Name");
        for h in HEADER {
            let _ = write!(out, "{h:>14}");
        }
        out.push('\n');
        for r in &s.impls {
            let _ = write!(out, "{:<width$}", r.imp.name());
            match row_cells(r) {
                Ok(cells) => {
                    for c in cells {
                        let _ = write!(out, "{c:>14}");
                    }
                }
                Err(why) => {
                    let _ = write!(out, "  {why}");
                }
            }
            out.push('\n');
        }
    }
    if few {
        let _ = writeln!(out, "\n{}", few_runs_note());
    }
    out
}
