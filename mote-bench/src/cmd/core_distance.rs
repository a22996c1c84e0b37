//! `mote-bench core-distance`: samples how far apart two cores are now
//! ([`crate::harness::core_distance`]), one line per sample, then the spread.

use crate::cli::CoreDistanceArgs;
use crate::harness::core_distance::round_trip;
use crate::harness::outcome::EXIT_USAGE;
use crate::harness::stats::summarize;
use std::process::ExitCode;
use std::time::Duration;

/// Runs the command.
pub fn main(args: CoreDistanceArgs) -> ExitCode {
    if args.samples == 0 || args.trips == 0 {
        eprintln!("mote-bench core-distance: --samples and --trips must be at least 1");
        return ExitCode::from(EXIT_USAGE as u8);
    }
    let mut taken: Vec<f64> = Vec::with_capacity(args.samples);
    for i in 0..args.samples {
        if i > 0 {
            std::thread::sleep(Duration::from_millis(args.every_ms));
        }
        let ns = round_trip(args.trips).as_nanos() as u64;
        super::print(&format!("round trip {ns} ns\n"));
        taken.push(ns as f64);
    }
    super::print(&summary(&taken));
    ExitCode::SUCCESS
}

/// The samples' least, median and most; empty without samples.
fn summary(taken: &[f64]) -> String {
    summarize(taken).map_or_else(
        |_| String::new(),
        |s| {
            format!(
                "{} samples: least {:.0} ns, median {:.0} ns, most {:.0} ns\n",
                s.n, s.min, s.median, s.max
            )
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_gives_the_spread() {
        assert_eq!(
            summary(&[480.0, 32.0, 85.0]),
            "3 samples: least 32 ns, median 85 ns, most 480 ns\n"
        );
        assert_eq!(summary(&[]), "");
    }
}
