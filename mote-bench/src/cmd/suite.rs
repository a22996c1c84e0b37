//! `mote-bench [suite]`: run the suite, write the reports, print the console table. Exits with
//! status 1 when a scenario failed (after writing every report), 0 otherwise.

use crate::cli::SuiteArgs;
use crate::impls::{self, Impl};
use crate::report;
use crate::suite::model::Status;
use crate::suite::{self, SuiteOptions};
use anyhow::Result;
use std::process::ExitCode;
use std::time::Duration;

/// Runs the subcommand.
pub fn main(args: SuiteArgs) -> ExitCode {
    match run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mote-bench: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Turns the command line into [`SuiteOptions`].
pub fn options(args: &SuiteArgs) -> Result<SuiteOptions> {
    let impls = match &args.impls {
        Some(list) => impls::parse_list(list)?,
        None => Impl::ALL.to_vec(),
    };
    let workloads = args
        .workloads
        .as_deref()
        .map(|w| {
            w.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    Ok(SuiteOptions {
        quick: args.quick,
        runs: args.runs.unwrap_or(if args.quick { 2 } else { 5 }).max(1),
        warmup: args.warmup,
        impls,
        workloads,
        timeout: Duration::from_secs(args.timeout.max(1)),
        sweeps: !args.no_sweeps,
    })
}

fn run(args: SuiteArgs) -> Result<ExitCode> {
    let opts = options(&args)?;
    let results = suite::run(&opts, std::env::args().collect())?;
    print!("{}", report::console::render(&results));
    let written = report::write_all(&results, &args.out)?;
    println!(
        "\nwrote {}, {} and {} charts in {}",
        written.json.display(),
        written.html.display(),
        written.svgs.len(),
        args.out.display()
    );
    let failed = results
        .scenarios
        .iter()
        .flat_map(|s| &s.impls)
        .filter(|r| matches!(r.status, Status::Failed { .. }))
        .count();
    if failed > 0 {
        eprintln!("{failed} scenario run(s) failed; see the report's Failures section");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
