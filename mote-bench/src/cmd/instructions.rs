//! `mote-bench instructions`: the instructions one unit of a workload costs on each
//! in-process implementation, counted by valgrind's callgrind ([`crate::harness::callgrind`]).
//!
//! Each implementation runs the scenario twice under callgrind, with the counted parameter
//! (`--per`) at its value and at `--factor` times it (2 unless given); the difference over
//! the units between them is the count per unit, start-up and set-up cancelled.
//!
//! Exit statuses: 0 ok; 1 a run failed; 2 a bad command line (unknown workload, variant,
//! implementation or parameter, a peer runtime, a factor below 2, no valgrind).

use crate::catalog;
use crate::cli::InstructionsArgs;
use crate::harness::callgrind;
use crate::harness::outcome::EXIT_USAGE;
use crate::harness::params::Params;
use crate::impls::Impl;
use anyhow::{bail, Result};
use std::fmt::Write;
use std::process::ExitCode;

/// One implementation's count.
#[derive(Debug, Clone, PartialEq)]
pub struct Count {
    /// The implementation.
    pub imp: Impl,
    /// Instructions per unit of the counted parameter.
    pub per_unit: f64,
    /// The rest of the run at the parameter's value: start-up, set-up, teardown.
    pub rest: f64,
}

/// What to run, checked against the catalog before anything runs.
struct Plan {
    workload: &'static str,
    variant: &'static str,
    impls: Vec<Impl>,
    /// Every parameter of the scenario, `--per`'s included: the runs pass them all, so the
    /// two differ in `--per` alone.
    params: Params,
    per: String,
    value: u64,
    /// The counted parameter's value in the second run.
    more: u64,
}

fn plan(args: &InstructionsArgs) -> Result<Plan> {
    let entry = catalog::lookup(&args.workload)?;
    let variant = entry.spec.resolve_variant(args.variant.as_deref())?;
    let params = entry.spec.resolve_params(args.size, &args.params)?;
    let value = params.get(&args.per).map_err(|_| {
        anyhow::anyhow!(
            "--per {}: {} has no such parameter (see `mote-bench list`)",
            args.per,
            entry.spec.name
        )
    })?;
    if args.factor < 2 {
        bail!(
            "--factor {}: the second run needs at least twice the units",
            args.factor
        );
    }
    let more = value
        .checked_mul(args.factor)
        .ok_or_else(|| anyhow::anyhow!("{}={value} times {} overflows", args.per, args.factor))?;
    let mut impls = Vec::new();
    for name in &args.impls {
        let imp = Impl::parse(name)?;
        if !imp.in_process() {
            bail!(
                "{imp} runs in its own runtime's process, which callgrind cannot count alike: \
                 mote and tokio (and tokio's styles) only"
            );
        }
        if let Some(style) = imp.style() {
            entry.spec.resolve_style(imp.base(), style)?;
        }
        impls.push(imp);
    }
    if impls.is_empty() {
        bail!("--impls names no implementation");
    }
    Ok(Plan {
        workload: entry.spec.name,
        variant,
        impls,
        params,
        per: args.per.clone(),
        value,
        more,
    })
}

/// The `mote-bench run` arguments of `imp` with `per` at `value`.
fn run_args(p: &Plan, imp: &Impl, value: u64) -> Vec<String> {
    let mut params = p.params.clone();
    params.set(&p.per, value);
    let mut a: Vec<String> = ["run", "--workload", p.workload, "--variant", p.variant]
        .into_iter()
        .chain(["--impl", imp.name()])
        .map(String::from)
        .collect();
    for kv in params.to_kv_args() {
        a.push("--param".into());
        a.push(kv);
    }
    a
}

fn count_all(p: &Plan) -> Result<Vec<Count>> {
    let exe = std::env::current_exe()?;
    let dir = std::env::temp_dir().join(format!("mote-bench-callgrind-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let counts = count_in(p, &exe, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    counts
}

fn count_in(p: &Plan, exe: &std::path::Path, dir: &std::path::Path) -> Result<Vec<Count>> {
    let mut counts = Vec::new();
    for imp in &p.impls {
        let file = |v: u64| format!("{}-{v}.out", imp.name().replace(':', "-"));
        let at_value = callgrind::count(exe, &run_args(p, imp, p.value), dir, &file(p.value))?;
        let at_more = callgrind::count(exe, &run_args(p, imp, p.more), dir, &file(p.more))?;
        let per_unit = callgrind::per_unit(at_value, p.value, at_more, p.more)?;
        counts.push(Count {
            imp: imp.clone(),
            per_unit,
            rest: (at_value as f64 - per_unit * p.value as f64).max(0.0),
        });
    }
    Ok(counts)
}

/// The counts as a table: per unit, the ratio to the first implementation, the rest of a
/// run (millions).
pub fn render(heading: &str, per: &str, counts: &[Count]) -> String {
    let mut out = format!("{heading}\n");
    let _ = writeln!(
        out,
        "{:<24} {:>14} {:>10} {:>16}",
        "impl",
        format!("per {per}"),
        "vs first",
        "rest (M)"
    );
    let first = counts.first().map_or(1.0, |c| c.per_unit);
    for c in counts {
        let _ = writeln!(
            out,
            "{:<24} {:>14.1} {:>9.2}x {:>16.1}",
            c.imp.name(),
            c.per_unit,
            c.per_unit / first,
            c.rest / 1e6,
        );
    }
    out
}

/// Runs the subcommand.
pub fn main(args: InstructionsArgs) -> ExitCode {
    let p = match plan(&args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("mote-bench instructions: {e:#}");
            return ExitCode::from(EXIT_USAGE as u8);
        }
    };
    if !callgrind::available() {
        eprintln!(
            "mote-bench instructions: `{}` was not found; install valgrind (Debian: `apt-get \
             install valgrind`)",
            callgrind::VALGRIND
        );
        return ExitCode::from(EXIT_USAGE as u8);
    }
    let variant = if p.variant == "-" {
        String::new()
    } else {
        format!(" {}", p.variant)
    };
    let heading = format!(
        "instructions per {per} ({}{}, {}; valgrind --tool=callgrind, runs at {per}={} and \
         {per}={}: the difference over the {} units between). Counts repeat run to run only \
         where no thread spins idle: mote with threads=1, tokio:current_thread.",
        p.workload,
        variant,
        p.params.to_kv_string(),
        p.value,
        p.more,
        p.more - p.value,
        per = p.per,
    );
    match count_all(&p) {
        Ok(counts) => {
            super::print(&render(&heading, &p.per, &counts));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mote-bench instructions: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_each_count_and_its_ratio_to_the_first() {
        let counts = [
            Count {
                imp: Impl::mote(),
                per_unit: 1749.0,
                rest: 2.5e6,
            },
            Count {
                imp: Impl::named("tokio:current_thread"),
                per_unit: 1093.0,
                rest: 1.0e6,
            },
        ];
        let out = render("heading", "r", &counts);
        assert!(out.starts_with("heading\n"), "{out}");
        assert!(out.contains("per r"), "{out}");
        let tokio = out.lines().find(|l| l.starts_with("tokio:")).unwrap();
        assert!(
            tokio.contains("1093.0") && tokio.contains("0.62x"),
            "{tokio}"
        );
        assert!(out
            .lines()
            .any(|l| l.starts_with("mote") && l.contains("1.00x") && l.contains("2.5")));
    }
}
