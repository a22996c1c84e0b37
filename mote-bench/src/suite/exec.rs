//! Executing the plan: every measured run is a fresh child process, implementations are
//! interleaved within each scenario (warm-ups first), and a run that fails stops that
//! implementation on that scenario without stopping the suite.

use super::model::{ImplResult, RunRecord, Scenario, ScenarioResult, Status};
use crate::child::{self, ChildRun};
use crate::impls::Impl;
use crate::outcome::{EXIT_SKIPPED, SKIP_PREFIX};
use crate::peers::Peers;
use crate::result_line::ResultLine;
use crate::rusage::Exit;
use indicatif::ProgressBar;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// How runs are made.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    /// Measured runs per scenario and implementation.
    pub runs: u32,
    /// Warm-up runs per scenario and implementation.
    pub warmup: u32,
    /// Per-run timeout.
    pub timeout: Duration,
    /// This harness's own executable (re-run as `run ...` for mote and tokio).
    pub exe: PathBuf,
    /// The peers.
    pub peers: Peers,
}

/// What one child run amounted to.
#[derive(Debug, Clone, PartialEq)]
pub enum Attempt {
    /// A RESULT line that matches the scenario.
    Ran(RunRecord),
    /// The implementation does not have the workload.
    Skipped(String),
    /// Anything else.
    Failed {
        /// What went wrong.
        reason: String,
        /// The last lines of stderr.
        stderr_tail: String,
    },
}

/// The command that runs `scenario` on `imp`, or `None` when `imp` is not available.
pub fn command_for(imp: Impl, s: &Scenario, opts: &ExecOptions) -> Option<Command> {
    match imp {
        Impl::Mote | Impl::Tokio => {
            let mut cmd = Command::new(&opts.exe);
            cmd.args(["run", "--workload", &s.workload, "--impl", imp.name()])
                .args(["--variant", &s.variant]);
            for kv in s.params.to_kv_args() {
                cmd.args(["--param", &kv]);
            }
            Some(cmd)
        }
        Impl::Go => opts.peers.go_command(&s.workload, &s.variant, &s.params),
        Impl::Elixir => opts
            .peers
            .elixir_command(&s.workload, &s.variant, &s.params),
        Impl::ElixirTuned => {
            let mut params = s.params.clone();
            params.push("tuned", 1);
            opts.peers.elixir_command(&s.workload, &s.variant, &params)
        }
    }
}

/// Judges a finished child: its exit, its RESULT line and whether the line is for `scenario`.
pub fn interpret(run: &ChildRun, imp: Impl, s: &Scenario, warmup: bool) -> Attempt {
    let failed = |reason: String| Attempt::Failed {
        reason,
        stderr_tail: run.stderr_tail(40),
    };
    if run.timed_out {
        return failed(format!(
            "timed out after {:.0} s",
            run.elapsed.as_secs_f64()
        ));
    }
    match run.exit {
        Exit::Code(0) => {}
        Exit::Code(EXIT_SKIPPED) => {
            let reason = run
                .stdout
                .lines()
                .find_map(|l| l.strip_prefix(SKIP_PREFIX))
                .unwrap_or("the implementation does not have this workload");
            return Attempt::Skipped(reason.trim().to_string());
        }
        Exit::Code(c) => return failed(with_headline(format!("exit status {c}"), &run.stderr)),
        Exit::Signal(sig) => {
            return failed(with_headline(
                format!("killed by signal {sig}"),
                &run.stderr,
            ))
        }
    }
    let line = match ResultLine::find_in(&run.stdout) {
        Ok(l) => l,
        Err(e) => return failed(e.to_string()),
    };
    if line.bench != s.workload || line.imp != imp.result_name() || line.variant != s.variant {
        return failed(format!(
            "RESULT line is for bench={} impl={} variant={}",
            line.bench, line.imp, line.variant
        ));
    }
    // A peer may print parameters of its own after the contract's (Elixir's `tuned`); they
    // are kept with the extras so reports show which version ran.
    let Some(own_params) = line.params.strip_prefix(&s.params) else {
        return failed(format!(
            "RESULT line parameters '{}' differ from '{}'",
            line.params.to_kv_string(),
            s.params.to_kv_string()
        ));
    };
    let mut extras = line.extras;
    extras.extend(
        own_params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    Attempt::Ran(RunRecord {
        warmup,
        wall_ms: line.wall_ms,
        // wait4 is the harness's own measure; the child's figure is the fallback should the
        // kernel report nothing.
        peak_rss_kb: if run.peak_rss_kb > 0 {
            run.peak_rss_kb
        } else {
            line.peak_rss_kb.unwrap_or(0)
        },
        extras,
        process_ms: run.elapsed.as_secs_f64() * 1e3,
    })
}

/// `what` followed by the line of `stderr` that best says what went wrong: the contract's
/// `ERROR` line, a Rust panic's message, or else the last line.
fn with_headline(what: String, stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let headline = lines
        .iter()
        .position(|l| l.starts_with("ERROR") || l.contains("panicked at"))
        .map(|i| {
            if lines[i].contains("panicked at") {
                // The panic message is on the line after the location.
                lines[i + 1..].first().copied().unwrap_or(lines[i])
            } else {
                lines[i]
            }
        })
        .or(lines.last().copied());
    match headline {
        Some(h) => format!("{what}: {h}"),
        None => what,
    }
}

/// An option outside the contract's table (`chunks`, `batch`, `callers`) that `scenario`
/// sets and `imp` does not implement: the peers take none.
fn untaken_option(imp: Impl, s: &Scenario) -> Option<&'static str> {
    if matches!(imp, Impl::Mote | Impl::Tokio) {
        return None;
    }
    let spec = crate::catalog::find(&s.workload)?;
    spec.options
        .iter()
        .copied()
        .find(|o| s.params.get(o).is_ok())
}

/// Makes one run of `scenario` on `imp`.
pub fn attempt(imp: Impl, s: &Scenario, opts: &ExecOptions, warmup: bool) -> Attempt {
    if imp == Impl::ElixirTuned && !crate::impls::TUNED_WORKLOADS.contains(&s.workload.as_str()) {
        return Attempt::Skipped("no tuned version: this workload has no known BEAM trap".into());
    }
    if let Some(option) = untaken_option(imp, s) {
        return Attempt::Skipped(format!(
            "{imp} does not take the option {option} (only the Rust implementations do)"
        ));
    }
    let Some(cmd) = command_for(imp, s, opts) else {
        return Attempt::Skipped(format!("{imp} is not available"));
    };
    match child::run(cmd, opts.timeout) {
        Ok(run) => interpret(&run, imp, s, warmup),
        Err(e) => Attempt::Failed {
            reason: format!("{e:#}"),
            stderr_tail: String::new(),
        },
    }
}

/// Runs every scenario on `impls`; `unavailable` implementations are recorded as skipped with
/// their reason. Statistics are filled in later.
///
/// Runs are interleaved across each workload's scenarios and implementations: one run of
/// every (variant or sweep point, implementation) pair, then the next round. A shared
/// machine's speed drifts over minutes, so ratios between variants (spawn against pool,
/// parallel against sequential) are only fair if their runs are spread over the same time.
pub fn run_all(
    scenarios: &[Scenario],
    impls: &[Impl],
    unavailable: &[(Impl, String)],
    opts: &ExecOptions,
    bar: &ProgressBar,
) -> Vec<ScenarioResult> {
    let mut all = Vec::with_capacity(scenarios.len());
    for group in scenarios.chunk_by(|a, b| a.workload == b.workload) {
        let mut results: Vec<Vec<ImplResult>> = group
            .iter()
            .map(|_| {
                impls
                    .iter()
                    .map(|&imp| ImplResult::new(imp, Status::Ok))
                    .collect()
            })
            .collect();
        let phases = (0..opts.warmup)
            .map(|i| (true, i, opts.warmup))
            .chain((0..opts.runs).map(|i| (false, i, opts.runs)));
        for (warmup, i, of) in phases {
            for (s, results) in group.iter().zip(results.iter_mut()) {
                run_round(s, results, (warmup, i, of), opts, bar);
            }
        }
        for (s, mut results) in group.iter().zip(results) {
            for (imp, reason) in unavailable {
                let reason = reason.clone();
                results.push(ImplResult::new(*imp, Status::Skipped { reason }));
            }
            results.sort_by_key(|r| r.imp);
            all.push(ScenarioResult {
                scenario: s.clone(),
                impls: results,
            });
        }
    }
    all
}

/// One run of `s` on each implementation still in the running (`round`: whether it is a
/// warm-up, its index, and how many there are).
fn run_round(
    s: &Scenario,
    results: &mut [ImplResult],
    (warmup, i, of): (bool, u32, u32),
    opts: &ExecOptions,
    bar: &ProgressBar,
) {
    let per_impl = u64::from(opts.warmup + opts.runs);
    for r in results.iter_mut().filter(|r| r.status == Status::Ok) {
        let kind = if warmup { "warm-up" } else { "run" };
        bar.set_message(format!("{} [{}] {kind} {}/{of}", s.label(), r.imp, i + 1));
        match attempt(r.imp, s, opts, warmup) {
            Attempt::Ran(rec) => {
                r.runs.push(rec);
                bar.inc(1);
            }
            Attempt::Skipped(reason) => {
                bar.inc(per_impl - r.runs.len() as u64);
                r.status = Status::Skipped { reason };
            }
            Attempt::Failed {
                reason,
                stderr_tail,
            } => {
                bar.inc(per_impl - r.runs.len() as u64);
                bar.suspend(|| eprintln!("FAILED {} [{}]: {reason}", s.label(), r.imp));
                r.status = Status::Failed {
                    reason,
                    stderr_tail,
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;

    fn scenario() -> Scenario {
        Scenario {
            workload: "chain".into(),
            variant: "int".into(),
            params: Params::from_pairs([("m", 10), ("n", 20)]),
            base: true,
            sweeps: vec![],
        }
    }

    #[test]
    fn peers_skip_scenarios_that_set_an_option() {
        let mut s = scenario();
        s.workload = "copy".into();
        s.variant = "par".into();
        s.params = crate::catalog::find("copy").unwrap().base_params(true);
        assert_eq!(untaken_option(Impl::Go, &s), None);
        s.params.push("chunks", 4);
        assert_eq!(untaken_option(Impl::Go, &s), Some("chunks"));
        assert_eq!(untaken_option(Impl::ElixirTuned, &s), Some("chunks"));
        assert_eq!(untaken_option(Impl::Tokio, &s), None);
        assert_eq!(untaken_option(Impl::Mote, &s), None);
        s.workload = "call".into();
        s.variant = "-".into();
        s.params = crate::catalog::find("call").unwrap().base_params(true);
        s.params.push("callers", 100);
        assert_eq!(untaken_option(Impl::Elixir, &s), Some("callers"));
        assert_eq!(untaken_option(Impl::Tokio, &s), None);
    }

    fn finished(code: i32, stdout: &str) -> ChildRun {
        ChildRun {
            exit: Exit::Code(code),
            timed_out: false,
            peak_rss_kb: 4242,
            stdout: stdout.into(),
            stderr: "line1\nline2\n".into(),
            elapsed: Duration::from_millis(30),
        }
    }

    #[test]
    fn a_matching_result_line_is_a_run_with_wait4_rss() {
        let out = "RESULT bench=chain impl=tokio variant=int m=10 n=20 wall_ms=1.5 peak_rss_kb=1\n";
        match interpret(&finished(0, out), Impl::Tokio, &scenario(), false) {
            Attempt::Ran(r) => {
                assert_eq!((r.wall_ms, r.peak_rss_kb, r.warmup), (1.5, 4242, false));
                assert_eq!(r.process_ms, 30.0);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn failure_reasons_quote_the_telling_stderr_line() {
        let panic =
            "thread 'main' panicked at src/x.rs:1:2:\nno reactor running\nstack backtrace:\n";
        assert_eq!(
            with_headline("exit status 101".into(), panic),
            "exit status 101: no reactor running"
        );
        let wrong = "warming up\nERROR sum 3 != 4\n";
        assert_eq!(
            with_headline("exit status 1".into(), wrong),
            "exit status 1: ERROR sum 3 != 4"
        );
        assert_eq!(with_headline("exit status 1".into(), ""), "exit status 1");
    }

    #[test]
    fn skips_failures_and_mismatches() {
        let s = scenario();
        assert_eq!(
            interpret(
                &finished(3, "SKIP not wired in yet\n"),
                Impl::Mote,
                &s,
                true
            ),
            Attempt::Skipped("not wired in yet".into())
        );
        let Attempt::Failed {
            reason,
            stderr_tail,
        } = interpret(&finished(1, ""), Impl::Tokio, &s, false)
        else {
            panic!()
        };
        assert_eq!(
            (reason.as_str(), stderr_tail.as_str()),
            ("exit status 1: line2", "line1\nline2")
        );
        let no_line = interpret(&finished(0, "hello\n"), Impl::Tokio, &s, false);
        assert!(
            matches!(no_line, Attempt::Failed { ref reason, .. } if reason.contains("no RESULT"))
        );
        let wrong = "RESULT bench=chain impl=tokio variant=int m=10 n=21 wall_ms=1\n";
        let wrong = interpret(&finished(0, wrong), Impl::Tokio, &s, false);
        assert!(matches!(wrong, Attempt::Failed { ref reason, .. } if reason.contains("differ")));
        let mut timed_out = finished(0, "");
        timed_out.timed_out = true;
        let t = interpret(&timed_out, Impl::Go, &s, false);
        assert!(matches!(t, Attempt::Failed { ref reason, .. } if reason.contains("timed out")));
    }
}
