//! `mote-bench [suite]`: run the suite, write the reports, print the console table (and the
//! comparison with a saved run). Exits with status 1 when a scenario failed (after writing
//! every report), 130 when stopped with Ctrl-C (after writing what was measured), 0
//! otherwise.

use crate::cli::SuiteArgs;
use crate::harness::interrupt;
use crate::impls::{self, Impl};
use crate::report;
use crate::suite::compare::compare;
use crate::suite::model::Status;
use crate::suite::plan::Sweeps;
use crate::suite::standing::standings;
use crate::suite::{self, SuiteOptions};
use crate::workloads::spec::Size;
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
        None if args.scaling => vec![Impl::mote(), Impl::tokio(), Impl::named("go")],
        None => impls::default_for(args.full),
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
    let size = args.size();
    let runs = match size {
        Size::Quick => 2,
        Size::Standard => 3,
        Size::Full => 5,
    };
    let min_time = args
        .min_time
        .unwrap_or(if size == Size::Quick { 0.0 } else { 2.0 });
    anyhow::ensure!(
        min_time.is_finite() && (0.0..=3600.0).contains(&min_time),
        "--min-time takes seconds from 0 to 3600, not {min_time}"
    );
    Ok(SuiteOptions {
        size,
        runs: args.runs.unwrap_or(runs).max(1),
        min_time: Duration::from_secs_f64(min_time),
        max_runs: args.max_runs,
        warmup: args.warmup,
        impls,
        workloads,
        timeout: Duration::from_secs(args.timeout.max(1)),
        sweeps: match (args.scaling, args.no_sweeps) {
            (true, _) => Sweeps::Scaling,
            (false, true) => Sweeps::Off,
            (false, false) => Sweeps::Suite,
        },
        out: args.out.clone(),
    })
}

fn run(args: SuiteArgs) -> Result<ExitCode> {
    let opts = options(&args)?;
    if args.dry_run {
        let plan = suite::dry_plan(&opts)?;
        for (imp, why) in &plan.unavailable {
            eprintln!("note: {imp} would be skipped: {why}");
        }
        suite::announce(&plan, &opts, true);
        return Ok(ExitCode::SUCCESS);
    }
    // Read before hours of running, so a bad path fails at once.
    let old = args
        .compare
        .as_ref()
        .map(|p| report::json::read(p).map(|r| (p.display().to_string(), r)))
        .transpose()?;
    interrupt::install()?;
    let mut results = suite::run(&opts, std::env::args().collect())?;
    if let Some((path, old)) = &old {
        results.comparison = Some(compare(&results, old, path));
    }
    super::print(&report::console::render(&results));
    super::print(&report::standing::render(&standings(&results)));
    super::print(&report::core_distance::render(&results));
    if let Some(c) = &results.comparison {
        super::print(&report::compare::render(c));
    }
    let written = report::write_all(&results, &args.out)?;
    super::print(&format!(
        "\nwrote {}, {} and {} charts in {}\n",
        written.json.display(),
        written.html.display(),
        written.svgs.len(),
        args.out.display()
    ));
    if let Some(why) = &results.incomplete {
        eprintln!("{why}; the reports hold what was measured");
        return Ok(ExitCode::from(interrupt::EXIT_INTERRUPTED));
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::Parser;

    fn parsed(args: &[&str]) -> Result<SuiteOptions> {
        let cli = Cli::try_parse_from(std::iter::once("mote-bench").chain(args.iter().copied()))
            .expect("a well-formed command line");
        options(&cli.suite)
    }

    #[test]
    fn short_runs_are_repeated_except_in_the_smoke_run() {
        let standard = parsed(&[]).unwrap();
        assert_eq!(standard.runs, 3);
        assert_eq!(standard.min_time, Duration::from_secs(2));
        assert_eq!(standard.max_runs, 15);
        assert_eq!(parsed(&["--quick"]).unwrap().min_time, Duration::ZERO);
        let asked = parsed(&["--full", "--min-time", "0.5", "--max-runs", "9"]).unwrap();
        assert_eq!((asked.runs, asked.max_runs), (5, 9));
        assert_eq!(asked.min_time, Duration::from_millis(500));
    }

    #[test]
    fn a_min_time_out_of_range_is_refused() {
        for bad in ["-1", "NaN", "inf", "3601"] {
            let err = parsed(&[&format!("--min-time={bad}")]).unwrap_err();
            assert!(err.to_string().contains("--min-time"), "{bad}: {err}");
        }
    }
}
