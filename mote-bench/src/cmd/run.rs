//! `mote-bench run`: one scenario, one RESULT line.
//!
//! Exit statuses: 0 ok; 1 wrong answer or other failure (`ERROR ...` on stderr); 2 unknown
//! workload, variant, parameter or style; 3 a peer does not have the workload (`SKIP
//! <reason>` on stdout), which the suite reports as skipped.

use crate::catalog;
use crate::cli::RunArgs;
use crate::harness::outcome::{CheckFailed, EXIT_USAGE, EXIT_WRONG_ANSWER};
use crate::harness::params::Params;
use crate::harness::result_line::ResultLine;
use crate::harness::rusage::{self_peak_rss_kb, Exit};
use crate::harness::{child, interrupt};
use crate::impls::Impl;
use crate::peers::{self, Peers};
use crate::workloads::runtimes;
use crate::workloads::spec::{self, UsageError, THREADS};
use crate::workloads::{Entry, InProcess, Tokio};
use anyhow::Result;
use std::process::ExitCode;
use std::time::Duration;

/// Runs the subcommand.
pub fn main(args: RunArgs) -> ExitCode {
    match resolve(&args) {
        Ok(r) => match r.imp.base() {
            "mote" => match r.threads().map(runtimes::mote_threads).transpose() {
                Ok(_) => {
                    let status = run_here(&r, InProcess::Mote);
                    if args.scheduler_stats {
                        eprint!("{}", scheduler_stats(&mote::metrics::snapshot()));
                    }
                    status
                }
                Err(e) => report_error(&e),
            },
            "tokio" => run_here(
                &r,
                InProcess::Tokio(Tokio {
                    style: r.style,
                    threads: r.threads(),
                }),
            ),
            _ => through_peer(&r),
        },
        Err(e) => report_error(&e),
    }
}

/// A run the command line asks for, checked against the catalog.
struct Resolved {
    imp: Impl,
    /// The style's name as the workload declares it.
    style: Option<&'static str>,
    entry: &'static Entry,
    variant: &'static str,
    params: Params,
}

impl Resolved {
    /// The option [`THREADS`], when set.
    fn threads(&self) -> Option<usize> {
        self.params.get_usize(THREADS).ok()
    }
}

fn resolve(args: &RunArgs) -> Result<Resolved> {
    let imp = Impl::parse(&args.imp)?;
    let entry = catalog::lookup(&args.workload)?;
    let style = match imp.style() {
        Some(name) => Some(entry.spec.resolve_style(imp.base(), name)?.name),
        None => None,
    };
    let params = entry.spec.resolve_params(args.size(), &args.params)?;
    if let Some(why) = peers::leaves_out(imp.base(), entry.spec, &params) {
        return Err(spec::usage(why));
    }
    if args.scheduler_stats && imp.base() != "mote" {
        return Err(spec::usage(format!(
            "--scheduler-stats reads mote's scheduler; {imp} is not mote"
        )));
    }
    Ok(Resolved {
        variant: entry.spec.resolve_variant(args.variant.as_deref())?,
        params,
        imp,
        style,
        entry,
    })
}

fn run_here(r: &Resolved, on: InProcess) -> ExitCode {
    match r.entry.run(on, r.variant, &r.params) {
        Ok(o) => {
            let line = ResultLine {
                bench: r.entry.spec.name.into(),
                imp: r.imp.name().into(),
                variant: r.variant.into(),
                params: r.params.clone(),
                wall_ms: o.wall_ms,
                extras: o.extras,
                peak_rss_kb: Some(self_peak_rss_kb()),
            };
            println!("{}", line.format());
            ExitCode::SUCCESS
        }
        Err(e) => report_error(&e),
    }
}

/// The `--scheduler-stats` lines: one for the runtime, then one per scheduler thread.
pub fn scheduler_stats(m: &mote::metrics::RuntimeMetrics) -> String {
    let mut out = format!(
        "SCHED threads={} wakeups={} uptime_ms={:.1}\n",
        m.workers.len(),
        m.wakeups,
        m.uptime_ns as f64 / 1e6
    );
    for (i, w) in m.workers.iter().enumerate() {
        out.push_str(&format!(
            "SCHED worker={i} tasks={} steals={} spins={} sleeps={} busy_ms={:.1}\n",
            w.tasks_run,
            w.steals,
            w.spins,
            w.sleeps,
            w.busy_ns as f64 / 1e6
        ));
    }
    out
}

/// How a failed run is reported: the exit status and the message for stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Process exit status.
    pub status: i32,
    /// The message for stderr.
    pub stderr: String,
}

/// Maps an error to the contract's message and exit status.
pub fn classify(e: &anyhow::Error) -> Failure {
    if e.downcast_ref::<UsageError>().is_some() {
        Failure {
            status: EXIT_USAGE,
            stderr: format!("mote-bench run: {e}"),
        }
    } else if let Some(CheckFailed(what)) = e.downcast_ref::<CheckFailed>() {
        Failure {
            status: EXIT_WRONG_ANSWER,
            stderr: format!("ERROR {what}"),
        }
    } else {
        Failure {
            status: EXIT_WRONG_ANSWER,
            stderr: format!("ERROR {e:#}"),
        }
    }
}

fn report_error(e: &anyhow::Error) -> ExitCode {
    let f = classify(e);
    eprintln!("{}", f.stderr);
    ExitCode::from(f.status as u8)
}

/// Runs the scenario on a peer and forwards its RESULT line with the peer's peak RSS from
/// `wait4` (a peer need not measure it).
fn through_peer(r: &Resolved) -> ExitCode {
    let imp = &r.imp;
    let peers = Peers::discover(peers::locate_dir(), true);
    let Some(cmd) = peers.command(imp.name(), r.entry.spec.name, r.variant, &r.params) else {
        eprintln!(
            "mote-bench run: {imp} is not available: {}",
            peers.missing(imp.name()).unwrap_or_default()
        );
        return ExitCode::from(EXIT_WRONG_ANSWER as u8);
    };
    // No timeout here: a single manual run is the user's to interrupt, and Ctrl-C must stop
    // the peer too (it runs in its own process group, out of the terminal's reach).
    if let Err(e) = interrupt::install() {
        eprintln!("warning: Ctrl-C will not stop the peer: {e}");
    }
    let run = match child::run(cmd, Duration::from_secs(7 * 24 * 3600)) {
        Ok(r) => r,
        Err(e) => return report_error(&e),
    };
    if run.interrupted {
        return ExitCode::from(interrupt::EXIT_INTERRUPTED);
    }
    eprint!("{}", run.stderr);
    let code = match run.exit {
        Exit::Code(c) => c,
        Exit::Signal(s) => 128 + s,
    };
    if code != 0 {
        print!("{}", run.stdout);
        return ExitCode::from(code.clamp(1, 255) as u8);
    }
    match ResultLine::find_in(&run.stdout) {
        Ok(mut line) => {
            line.peak_rss_kb = Some(run.peak_rss_kb);
            println!("{}", line.format());
            ExitCode::SUCCESS
        }
        Err(e) => {
            print!("{}", run.stdout);
            eprintln!("ERROR {imp} peer: {e}");
            ExitCode::from(EXIT_WRONG_ANSWER as u8)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_stats_print_a_line_per_thread() {
        let mut m = mote::metrics::RuntimeMetrics::default();
        m.wakeups = 7;
        m.uptime_ns = 2_500_000;
        for tasks in [10, 20] {
            let mut w = mote::metrics::WorkerMetrics::default();
            w.tasks_run = tasks;
            w.steals = 3;
            w.busy_ns = 1_000_000;
            m.workers.push(w);
        }
        assert_eq!(
            scheduler_stats(&m),
            "SCHED threads=2 wakeups=7 uptime_ms=2.5\n\
             SCHED worker=0 tasks=10 steals=3 spins=0 sleeps=0 busy_ms=1.0\n\
             SCHED worker=1 tasks=20 steals=3 spins=0 sleeps=0 busy_ms=1.0\n"
        );
    }

    #[test]
    fn errors_map_to_the_contract_statuses() {
        let usage = classify(&UsageError("unknown workload 'x'".into()).into());
        assert_eq!(usage.status, 2);
        let wrong = classify(&CheckFailed("sum 1 != 2".into()).into());
        assert_eq!(
            (wrong.status, wrong.stderr.as_str()),
            (1, "ERROR sum 1 != 2")
        );
        let other = classify(&anyhow::anyhow!("runtime failed"));
        assert_eq!(
            (other.status, other.stderr.as_str()),
            (1, "ERROR runtime failed")
        );
    }
}
