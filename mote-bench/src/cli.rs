//! Command-line interface. With no subcommand the suite runs (`mote-bench --quick` is the same
//! as `mote-bench suite --quick`).

use crate::params::parse_kv;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// mote-bench: the seeds' experiments reproduced side by side on mote, raw tokio, Go and the BEAM.
#[derive(Debug, Parser)]
#[command(name = "mote-bench", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// What to do; the suite when absent.
    #[command(subcommand)]
    pub command: Option<Cmd>,
    /// Suite options (when no subcommand is given).
    #[command(flatten)]
    pub suite: SuiteArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Run one scenario in this process (mote, tokio) or through its peer (go, elixir) and
    /// print its RESULT line.
    Run(RunArgs),
    /// List workloads, variants, parameters and implementations.
    List,
    /// Run the whole suite (the default).
    Suite(SuiteArgs),
}

/// `mote-bench run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Workload name (see `mote-bench list`).
    #[arg(long)]
    pub workload: String,
    /// Implementation: mote, tokio, go or elixir.
    #[arg(long = "impl")]
    pub imp: String,
    /// Variant; the workload's first variant when absent.
    #[arg(long)]
    pub variant: Option<String>,
    /// A parameter value, `k=v` (repeatable); unset parameters take their defaults.
    #[arg(long = "param", value_name = "K=V", value_parser = parse_param)]
    pub params: Vec<(String, u64)>,
    /// Start from the `--quick` values instead of the defaults.
    #[arg(long)]
    pub quick: bool,
}

/// Suite options.
#[derive(Debug, Clone, Args)]
pub struct SuiteArgs {
    /// The contract's quick sizes, 1 warm-up and 2 measured runs (unless --runs/--warmup say
    /// otherwise).
    #[arg(long)]
    pub quick: bool,
    /// Measured runs per scenario and implementation [default: 5, 2 with --quick].
    #[arg(long)]
    pub runs: Option<u32>,
    /// Warm-up runs per scenario and implementation.
    #[arg(long, default_value_t = 1)]
    pub warmup: u32,
    /// Comma-separated implementations [default: mote,tokio,go,elixir].
    #[arg(long)]
    pub impls: Option<String>,
    /// Comma-separated workloads [default: all].
    #[arg(long)]
    pub workloads: Option<String>,
    /// Directory for results.json, report.html and the .svg charts.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Per-run timeout in seconds; a run past it is killed and recorded as failed.
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
    /// Skip the sweeps (chain over M, million over K, workers over W).
    #[arg(long)]
    pub no_sweeps: bool,
}

fn parse_param(s: &str) -> Result<(String, u64), String> {
    parse_kv(s).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn no_subcommand_means_suite_options() {
        let cli = Cli::try_parse_from(["mote-bench", "--quick", "--impls", "tokio"]).unwrap();
        assert!(cli.command.is_none());
        assert!(cli.suite.quick);
        assert_eq!(cli.suite.impls.as_deref(), Some("tokio"));
        assert_eq!(cli.suite.runs, None);
    }

    #[test]
    fn run_parses_params_and_rejects_bad_ones() {
        let cli = Cli::try_parse_from([
            "mote-bench",
            "run",
            "--workload",
            "chain",
            "--impl",
            "tokio",
            "--param",
            "m=10",
            "--param",
            "n=20",
        ])
        .unwrap();
        let Some(Cmd::Run(r)) = cli.command else {
            panic!("not run")
        };
        assert_eq!(r.params, vec![("m".into(), 10), ("n".into(), 20)]);
        let err = Cli::try_parse_from([
            "mote-bench",
            "run",
            "--workload",
            "chain",
            "--impl",
            "tokio",
            "--param",
            "m:10",
        ])
        .unwrap_err();
        assert!(err.to_string().contains("expected k=v"), "{err}");
        // clap's usage errors exit with status 2, as the contract wants for bad parameters.
        assert_eq!(err.exit_code(), 2);
    }
}
