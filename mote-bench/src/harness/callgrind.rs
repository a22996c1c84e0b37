//! Instruction counts from valgrind's callgrind: what a run executed, the same on a busy
//! machine as on an idle one.
//!
//! Wall times on a shared 2-core machine swing by 1.5x between runs of the same binary;
//! instructions do not. A run counted at two sizes, `v` and `k * v` of one parameter,
//! gives the instructions of the units between them with the start-up, the set-up and the
//! runtime's teardown cancelled: `(count(k v) - count(v)) / ((k - 1) v)` per unit.
//!
//! Counts repeat only for runs whose threads do not spin or race: a mote run on one
//! scheduler thread (`threads=1`), tokio's `current_thread` style. Idle threads looking for
//! work add instructions that vary from run to run (callgrind runs one thread at a time).

use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

/// The valgrind executable.
pub const VALGRIND: &str = "valgrind";

/// Whether `valgrind` can be run here.
pub fn available() -> bool {
    Command::new(VALGRIND)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The total instructions in a callgrind output file's text: its `summary:` line (the
/// `totals:` line where there is none).
pub fn total_instructions(out_file: &str) -> Result<u64> {
    let value = |key: &str| {
        out_file
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(str::trim)
    };
    let Some(text) = value("summary:").or_else(|| value("totals:")) else {
        bail!("no summary or totals line in callgrind's output");
    };
    // One event is asked for (instructions), so the line holds one number.
    let first = text.split_whitespace().next().unwrap_or_default();
    first
        .parse()
        .with_context(|| format!("callgrind's total {first:?} is not a count"))
}

/// Instructions per unit from the counts of a run at `units` and of one at `more` units.
pub fn per_unit(at_units: u64, units: u64, at_more: u64, more: u64) -> Result<f64> {
    if more <= units {
        bail!("the second run must have more units ({more}) than the first ({units})");
    }
    if at_more <= at_units {
        bail!(
            "the run with {more} units executed {at_more} instructions, not more than the \
             {at_units} of the run with {units}: the parameter does not scale the work"
        );
    }
    Ok((at_more - at_units) as f64 / (more - units) as f64)
}

/// Runs `program` with `args` under callgrind, its output file in `dir` as `name`, and
/// returns the instructions it executed. A program that fails is an error carrying the end
/// of its standard error.
pub fn count(program: &Path, args: &[String], dir: &Path, name: &str) -> Result<u64> {
    let out = dir.join(name);
    let status = Command::new(VALGRIND)
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(program)
        .args(args)
        .output()
        .with_context(|| format!("starting {VALGRIND} (is it installed?)"))?;
    if !status.status.success() {
        let stderr = String::from_utf8_lossy(&status.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
        bail!(
            "{} {} failed under callgrind ({}):\n{}",
            program.display(),
            args.join(" "),
            status.status,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    let text = std::fs::read_to_string(&out)
        .with_context(|| format!("reading callgrind's output {}", out.display()))?;
    total_instructions(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_is_read_from_the_summary_line() {
        let file = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 172480880\n\
                    fn=(1) main\n3 12\ntotals: 172480880\n";
        assert_eq!(total_instructions(file).unwrap(), 172_480_880);
        assert_eq!(total_instructions("totals: 42\n").unwrap(), 42);
        assert!(total_instructions("events: Ir\n").is_err());
        assert!(total_instructions("summary: many\n").is_err());
    }

    #[test]
    fn the_count_per_unit_cancels_the_set_up() {
        // 1,000 instructions of set-up, 17 a unit.
        let (setup, unit) = (1_000, 17);
        let at = |n: u64| setup + unit * n;
        assert_eq!(per_unit(at(100), 100, at(200), 200).unwrap(), 17.0);
        assert_eq!(per_unit(at(10), 10, at(100), 100).unwrap(), 17.0);
        assert!(per_unit(at(100), 100, at(100), 200).is_err(), "no growth");
        assert!(
            per_unit(at(100), 100, at(200), 100).is_err(),
            "no more units"
        );
    }
}
