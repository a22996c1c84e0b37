//! Executing the plan: every measured run is a fresh child process, implementations are
//! interleaved across each workload's scenarios (warm-ups first), a run that fails stops that
//! implementation on that scenario without stopping the suite, and a stop asked for with
//! Ctrl-C ends the suite after the run it interrupted.

use super::estimate;
use super::model::{ImplResult, RunRecord, Scenario, ScenarioResult, Status};
use super::plan::Lineup;
use super::progress::Progress;
use super::runs::RunCount;
use crate::harness::child::{self, ChildRun};
use crate::harness::outcome::{EXIT_SKIPPED, SKIP_PREFIX};
use crate::harness::result_line::ResultLine;
use crate::harness::rusage::Exit;
use crate::harness::{core_distance, machine};
use crate::impls::Impl;
use crate::peers::Peers;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// How runs are made.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    /// Measured runs per scenario and implementation.
    pub runs: RunCount,
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
    /// The run was killed because a stop was asked for; it counts for nothing.
    Interrupted,
}

/// The command that runs `scenario` on `imp`, or `None` when `imp` is not available.
pub fn command_for(imp: &Impl, s: &Scenario, opts: &ExecOptions) -> Option<Command> {
    if imp.in_process() {
        let mut cmd = Command::new(&opts.exe);
        cmd.args(["run", "--workload", &s.workload, "--impl", imp.name()])
            .args(["--variant", &s.variant]);
        for kv in s.params.to_kv_args() {
            cmd.args(["--param", &kv]);
        }
        Some(cmd)
    } else {
        opts.peers
            .command(imp.name(), &s.workload, &s.variant, &s.params)
    }
}

/// Judges a finished child: its exit, its RESULT line and whether the line is for `scenario`.
pub fn interpret(run: &ChildRun, imp: &Impl, s: &Scenario, warmup: bool) -> Attempt {
    let failed = |reason: String| Attempt::Failed {
        reason,
        stderr_tail: run.stderr_tail(40),
    };
    if run.interrupted {
        return Attempt::Interrupted;
    }
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
    if line.bench != s.workload
        || !imp.result_names().contains(&line.imp.as_str())
        || line.variant != s.variant
    {
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
        core_round_trip_ns: None,
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

/// Round trips in the sample of the cores' distance taken before each run: 0.6 ms at 30 ns a
/// round trip, 17 ms at 850.
const PROBE_TRIPS: u64 = 20_000;

/// The cores' round trip just before a run, in nanoseconds; none on a machine that lets this
/// process use one core (its two threads would take turns, not talk across cores).
fn probe_cores() -> Option<u64> {
    (machine::cores() >= 2).then(|| core_distance::round_trip(PROBE_TRIPS).as_nanos() as u64)
}

/// Makes one run of `scenario` on `imp`, noting the cores' distance just before it.
pub fn attempt(imp: &Impl, s: &Scenario, opts: &ExecOptions, warmup: bool) -> Attempt {
    let Some(cmd) = command_for(imp, s, opts) else {
        return Attempt::Skipped(format!("{imp} is not available"));
    };
    let round_trip = probe_cores();
    match child::run(cmd, opts.timeout) {
        Ok(run) => match interpret(&run, imp, s, warmup) {
            Attempt::Ran(record) => Attempt::Ran(RunRecord {
                core_round_trip_ns: round_trip,
                ..record
            }),
            other => other,
        },
        Err(e) => Attempt::Failed {
            reason: format!("{e:#}"),
            stderr_tail: String::new(),
        },
    }
}

/// The results of `s` before any run: an entry per implementation of its lineup, the left-out
/// ones already skipped, in interleaving order.
pub fn empty_result(s: &Scenario, lineup: &Lineup) -> ScenarioResult {
    let mut impls: Vec<ImplResult> = lineup
        .run
        .iter()
        .map(|imp| ImplResult::new(imp.clone(), Status::Ok))
        .chain(lineup.skipped.iter().map(|(imp, reason)| {
            let reason = reason.clone();
            ImplResult::new(imp.clone(), Status::Skipped { reason })
        }))
        .collect();
    impls.sort_by(|a, b| a.imp.cmp(&b.imp));
    ScenarioResult {
        scenario: s.clone(),
        impls,
    }
}

/// Runs every planned scenario and returns the results, and whether a stop cut the suite
/// short. `record` sees the results so far after every run (statistics are filled in by the
/// caller).
///
/// Runs are interleaved across each workload's scenarios and implementations: one run of
/// every (variant or sweep point, implementation) pair, then the next round, each round
/// starting one implementation later than the one before (see `round_order`). A shared
/// machine's speed drifts over minutes, so ratios between variants (spawn against pool,
/// parallel against sequential) are only fair if their runs are spread over the same time.
/// An implementation that makes more measured runs than others (short runs, see
/// `super::runs`) makes its extra runs in the later rounds, which the others sit out.
pub fn run_all(
    plan: &[(Scenario, Lineup)],
    opts: &ExecOptions,
    progress: &mut Progress,
    record: &mut dyn FnMut(&mut Vec<ScenarioResult>),
) -> (Vec<ScenarioResult>, bool) {
    let mut all: Vec<ScenarioResult> = Vec::with_capacity(plan.len());
    for group in plan.chunk_by(|a, b| a.0.workload == b.0.workload) {
        let first = all.len();
        all.extend(group.iter().map(|(s, l)| empty_result(s, l)));
        let rounds = group
            .iter()
            .flat_map(|(s, l)| l.run.iter().map(|imp| opts.runs.measured(s, imp)))
            .max()
            .unwrap_or(0);
        let phases = (0..opts.warmup)
            .map(|i| (true, i))
            .chain((0..rounds).map(|i| (false, i)));
        for round in phases {
            for k in first..all.len() {
                if !run_round(&mut all[k], round, opts, progress) {
                    record(&mut all);
                    return (all, true);
                }
                record(&mut all);
            }
        }
    }
    (all, false)
}

/// The order in which round `round` visits `n` implementations: each round starts one
/// implementation later than the one before. A run can be slowed by the run just before it
/// (a big program's freed memory still being returned, the BEAM's schedulers spinning down),
/// so a fixed order would charge that to the same implementation every round.
fn round_order(n: usize, round: u32) -> impl Iterator<Item = usize> {
    let start = if n == 0 { 0 } else { round as usize % n };
    (0..n).map(move |j| (start + j) % n)
}

/// One run of a scenario on each implementation still in the running and not yet done with
/// its runs (`round`: whether it is a warm-up, and its index). False when a stop cut it
/// short.
fn run_round(
    result: &mut ScenarioResult,
    (warmup, i): (bool, u32),
    opts: &ExecOptions,
    progress: &mut Progress,
) -> bool {
    let s = &result.scenario;
    let label = s.label();
    let round_index = if warmup { i } else { opts.warmup + i };
    for k in round_order(result.impls.len(), round_index) {
        let r = &mut result.impls[k];
        let measured = opts.runs.measured(s, &r.imp);
        if r.status != Status::Ok || (!warmup && i >= measured) {
            continue;
        }
        let per_impl = u64::from(opts.warmup + measured);
        let of = if warmup { opts.warmup } else { measured };
        let kind = if warmup { "warm-up" } else { "run" };
        let what = format!("{label} [{}] {kind} {}/{of}", r.imp, i + 1);
        progress.starting(&what);
        let run_ms = estimate::run_ms(s, &r.imp);
        let attempt = attempt(&r.imp, s, opts, warmup);
        // The runs this implementation will not make after a skip or a failure.
        let left = per_impl - r.runs.len() as u64;
        match attempt {
            Attempt::Ran(rec) => {
                let took = crate::report::format::duration_ms(rec.wall_ms);
                r.runs.push(rec);
                progress.finished(1, run_ms, &what, &took);
            }
            Attempt::Skipped(reason) => {
                progress.finished(
                    left,
                    left as f64 * run_ms,
                    &what,
                    &format!("skipped: {reason}"),
                );
                r.status = Status::Skipped { reason };
            }
            Attempt::Failed {
                reason,
                stderr_tail,
            } => {
                progress.note(&format!("FAILED {label} [{}]: {reason}", r.imp));
                progress.finished(left, left as f64 * run_ms, &what, "FAILED");
                r.status = Status::Failed {
                    reason,
                    stderr_tail,
                };
            }
            Attempt::Interrupted => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::params::Params;

    fn scenario() -> Scenario {
        Scenario {
            workload: "chain".into(),
            variant: "int".into(),
            params: Params::from_pairs([("m", 10), ("n", 20)]),
            base: true,
            sweeps: vec![],
        }
    }

    fn finished(code: i32, stdout: &str) -> ChildRun {
        ChildRun {
            exit: Exit::Code(code),
            timed_out: false,
            interrupted: false,
            peak_rss_kb: 4242,
            stdout: stdout.into(),
            stderr: "line1\nline2\n".into(),
            elapsed: Duration::from_millis(30),
        }
    }

    #[test]
    fn each_round_starts_one_implementation_later() {
        let order = |n, round| round_order(n, round).collect::<Vec<_>>();
        assert_eq!(order(3, 0), [0, 1, 2]);
        assert_eq!(order(3, 1), [1, 2, 0]);
        assert_eq!(order(3, 2), [2, 0, 1]);
        assert_eq!(order(3, 3), [0, 1, 2]);
        assert_eq!(order(1, 5), [0]);
        assert!(order(0, 2).is_empty());
    }

    #[test]
    fn a_matching_result_line_is_a_run_with_wait4_rss() {
        let out = "RESULT bench=chain impl=tokio variant=int m=10 n=20 wall_ms=1.5 peak_rss_kb=1\n";
        match interpret(&finished(0, out), &Impl::tokio(), &scenario(), false) {
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
                &Impl::mote(),
                &s,
                true
            ),
            Attempt::Skipped("not wired in yet".into())
        );
        let Attempt::Failed {
            reason,
            stderr_tail,
        } = interpret(&finished(1, ""), &Impl::tokio(), &s, false)
        else {
            panic!()
        };
        assert_eq!(
            (reason.as_str(), stderr_tail.as_str()),
            ("exit status 1: line2", "line1\nline2")
        );
        let no_line = interpret(&finished(0, "hello\n"), &Impl::tokio(), &s, false);
        assert!(
            matches!(no_line, Attempt::Failed { ref reason, .. } if reason.contains("no RESULT"))
        );
        let wrong = "RESULT bench=chain impl=tokio variant=int m=10 n=21 wall_ms=1\n";
        let wrong = interpret(&finished(0, wrong), &Impl::tokio(), &s, false);
        assert!(matches!(wrong, Attempt::Failed { ref reason, .. } if reason.contains("differ")));
        let mut timed_out = finished(0, "");
        timed_out.timed_out = true;
        let t = interpret(&timed_out, &Impl::named("go"), &s, false);
        assert!(matches!(t, Attempt::Failed { ref reason, .. } if reason.contains("timed out")));
    }

    #[test]
    fn an_interrupted_run_counts_for_nothing() {
        let mut run = finished(
            0,
            "RESULT bench=chain impl=tokio variant=int m=10 n=20 wall_ms=1\n",
        );
        run.interrupted = true;
        run.exit = Exit::Signal(libc::SIGKILL);
        assert_eq!(
            interpret(&run, &Impl::tokio(), &scenario(), false),
            Attempt::Interrupted
        );
    }

    #[test]
    fn styles_and_peer_flavours_are_matched_by_their_result_names() {
        let s = scenario();
        let styled = "RESULT bench=chain impl=tokio:tail_first variant=int m=10 n=20 wall_ms=2\n";
        let tail_first = Impl::tokio().with_style("tail_first");
        assert!(matches!(
            interpret(&finished(0, styled), &tail_first, &s, false),
            Attempt::Ran(_)
        ));
        // The default program's line does not stand for the style's.
        let plain = "RESULT bench=chain impl=tokio variant=int m=10 n=20 wall_ms=2\n";
        assert!(matches!(
            interpret(&finished(0, plain), &tail_first, &s, false),
            Attempt::Failed { .. }
        ));
        // Both Elixir flavours print impl=elixir; the tuned one's own parameter is an extra.
        let tuned = "RESULT bench=chain impl=elixir variant=int m=10 n=20 tuned=1 wall_ms=2\n";
        match interpret(&finished(0, tuned), &Impl::named("elixir_tuned"), &s, false) {
            Attempt::Ran(r) => assert_eq!(r.extras, vec![("tuned".into(), "1".into())]),
            other => panic!("{other:?}"),
        }
    }
}
