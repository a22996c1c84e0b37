//! `mote-bench run`: one scenario, one RESULT line.
//!
//! Exit statuses: 0 ok; 1 wrong answer or other failure (`ERROR ...` on stderr); 2 unknown
//! workload, variant or parameter; 3 the implementation does not have the workload yet
//! (`SKIP <reason>` on stdout), which the suite reports as skipped.

use crate::catalog::{self, UsageError};
use crate::child;
use crate::cli::RunArgs;
use crate::impls::Impl;
use crate::outcome::{
    is_not_wired, CheckFailed, EXIT_SKIPPED, EXIT_USAGE, EXIT_WRONG_ANSWER, SKIP_PREFIX,
};
use crate::params::Params;
use crate::peers::{self, Peers};
use crate::result_line::ResultLine;
use crate::rusage::{self_peak_rss_kb, Exit};
use crate::{mote_impl, tokio_impl};
use anyhow::Result;
use std::process::ExitCode;
use std::time::Duration;

/// Runs the subcommand.
pub fn main(args: RunArgs) -> ExitCode {
    match resolve(&args) {
        Ok((imp, workload, variant, params)) => {
            if imp.in_process() {
                in_process(imp, workload, variant, &params)
            } else {
                through_peer(imp, workload, variant, &params)
            }
        }
        Err(e) => report_error(&e),
    }
}

fn resolve(args: &RunArgs) -> Result<(Impl, &'static str, &'static str, Params)> {
    let imp = Impl::parse(&args.imp).map_err(|e| UsageError(e.to_string()))?;
    let spec = catalog::lookup(&args.workload)?;
    let variant = spec.resolve_variant(args.variant.as_deref())?;
    let params = spec.resolve_params(args.quick, &args.params)?;
    Ok((imp, spec.name, variant, params))
}

fn in_process(imp: Impl, workload: &str, variant: &str, params: &Params) -> ExitCode {
    let outcome = match imp {
        Impl::Tokio => tokio_impl::run(workload, variant, params),
        _ => mote_impl::run(workload, variant, params),
    };
    match outcome {
        Ok(o) => {
            let line = ResultLine {
                bench: workload.into(),
                imp: imp.name().into(),
                variant: variant.into(),
                params: params.clone(),
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

/// How a failed run is reported: the exit status and what goes to stdout and stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Process exit status.
    pub status: i32,
    /// A line for stdout (only a skip has one).
    pub stdout: Option<String>,
    /// The message for stderr.
    pub stderr: String,
}

/// Maps an error to the contract's message and exit status.
pub fn classify(e: &anyhow::Error) -> Failure {
    if is_not_wired(e) {
        Failure {
            status: EXIT_SKIPPED,
            stdout: Some(format!("{SKIP_PREFIX}{e}")),
            stderr: format!("skipped: {e}"),
        }
    } else if e.downcast_ref::<UsageError>().is_some() {
        Failure {
            status: EXIT_USAGE,
            stdout: None,
            stderr: format!("mote-bench run: {e}"),
        }
    } else if let Some(CheckFailed(what)) = e.downcast_ref::<CheckFailed>() {
        Failure {
            status: EXIT_WRONG_ANSWER,
            stdout: None,
            stderr: format!("ERROR {what}"),
        }
    } else {
        Failure {
            status: EXIT_WRONG_ANSWER,
            stdout: None,
            stderr: format!("ERROR {e:#}"),
        }
    }
}

fn report_error(e: &anyhow::Error) -> ExitCode {
    let f = classify(e);
    if let Some(line) = &f.stdout {
        println!("{line}");
    }
    eprintln!("{}", f.stderr);
    ExitCode::from(f.status as u8)
}

/// Runs the scenario on a peer and forwards its RESULT line with the peer's peak RSS from
/// `wait4` (a peer need not measure it).
fn through_peer(imp: Impl, workload: &str, variant: &str, params: &Params) -> ExitCode {
    let peers = Peers::discover(peers::locate_dir(), imp == Impl::Go);
    let cmd = match imp {
        Impl::Go => peers.go_command(workload, variant, params),
        Impl::ElixirTuned => {
            let mut params = params.clone();
            params.push("tuned", 1);
            peers.elixir_command(workload, variant, &params)
        }
        _ => peers.elixir_command(workload, variant, params),
    };
    let Some(cmd) = cmd else {
        let why = match imp {
            Impl::Go => peers.go_missing,
            _ => peers.elixir_missing,
        };
        eprintln!(
            "mote-bench run: {imp} is not available: {}",
            why.unwrap_or_default()
        );
        return ExitCode::from(EXIT_WRONG_ANSWER as u8);
    };
    // No timeout here: a single manual run is the user's to interrupt.
    let run = match child::run(cmd, Duration::from_secs(7 * 24 * 3600)) {
        Ok(r) => r,
        Err(e) => return report_error(&e),
    };
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
    use crate::outcome::NotWired;

    #[test]
    fn errors_map_to_the_contract_statuses() {
        let skip = classify(
            &NotWired {
                imp: "mote".into(),
                workload: "ring".into(),
            }
            .into(),
        );
        assert_eq!(skip.status, 3);
        assert_eq!(
            skip.stdout.as_deref(),
            Some("SKIP the mote implementation of ring is not wired in yet")
        );
        let usage = classify(&UsageError("unknown workload 'x'".into()).into());
        assert_eq!((usage.status, usage.stdout), (2, None));
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
