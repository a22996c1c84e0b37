//! `mote-bench report RESULTS_JSON`: the reports drawn again from a saved run (after the
//! harness's charts changed, or for a run that was stopped before it wrote them), and where
//! mote stands in it against the fastest peer of each scenario.

use crate::cli::ReportArgs;
use crate::report;
use crate::suite::standing::standings;
use std::process::ExitCode;

/// Runs the subcommand.
pub fn main(args: ReportArgs) -> ExitCode {
    let dir = args
        .results
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let written = report::json::read(&args.results).and_then(|r| {
        report::write_all(&r, &dir).map(|w| (w, standings(&r), report::core_distance::render(&r)))
    });
    match written {
        Ok((w, standings, distance)) => {
            super::print(&report::standing::render(&standings));
            super::print(&distance);
            super::print(&format!(
                "wrote {} and {} charts in {}\n",
                w.html.display(),
                w.svgs.len(),
                dir.display()
            ));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mote-bench report: {e:#}");
            ExitCode::from(2)
        }
    }
}
