//! `mote-bench compare OLD NEW`: two saved runs side by side, as `--compare` prints them.

use crate::cli::CompareArgs;
use crate::report;
use crate::suite::compare::compare;
use std::process::ExitCode;

/// Runs the subcommand.
pub fn main(args: CompareArgs) -> ExitCode {
    let read = |p: &std::path::Path| report::json::read(p);
    match (read(&args.old), read(&args.new)) {
        (Ok(old), Ok(new)) => {
            let c = compare(&new, &old, &args.old.display().to_string());
            super::print(&report::compare::render(&c));
            ExitCode::SUCCESS
        }
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("mote-bench compare: {e:#}");
            ExitCode::from(2)
        }
    }
}
