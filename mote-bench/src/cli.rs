//! Command-line interface. With no subcommand the suite runs (`mote-bench --quick` is the same
//! as `mote-bench suite --quick`).

use crate::harness::params::parse_kv;
use crate::workloads::spec::Size;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// mote-bench: the write-ups' experiments reproduced side by side on mote, raw tokio, Go and the BEAM.
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
    List(ListArgs),
    /// Run the whole suite (the default).
    Suite(SuiteArgs),
    /// Compare two saved runs: each scenario's median time in NEW over OLD, with a bootstrap
    /// confidence interval.
    Compare(CompareArgs),
    /// Draw report.html and the charts again from a saved results.json, into its directory.
    Report(ReportArgs),
    /// Count the instructions one unit of a scenario costs on mote and tokio under
    /// valgrind's callgrind: figures that a busy machine does not move.
    Instructions(InstructionsArgs),
    /// How far apart two cores are now: the round trip of a cache line between two threads,
    /// sampled at intervals (on a virtual machine it changes as the host moves its CPUs).
    CoreDistance(CoreDistanceArgs),
    /// Messages between two nodes on loopback: mote and Erlang (needs `erl`, and the
    /// `remote` feature), round trips and throughput, small and large messages, every pair
    /// of client and server.
    Remote(RemoteArgs),
    /// A mote server node for `remote` (started by it).
    #[command(hide = true)]
    RemoteNode(RemoteNodeArgs),
}

/// `mote-bench remote`.
#[derive(Debug, Args)]
pub struct RemoteArgs {
    /// Rounds (each pair once per round, interleaved); figures are medians.
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Round trips with a small message (a tenth of that with a large one).
    #[arg(long, default_value_t = 20_000)]
    pub trips: u64,
    /// One-way messages with a small message (a hundredth of that with a large one).
    #[arg(long, default_value_t = 200_000)]
    pub messages: u64,
    /// Only the cases whose name contains this text (`pingpong`, `throughput`, `integer`,
    /// `64 KiB`, `throughput 64`); all when absent.
    #[arg(long)]
    pub case: Option<String>,
    /// Only these client->server pairs, comma-separated (`mote->mote,erl->erl`); all four
    /// when absent. The ratio column needs both `mote->mote` and `erl->erl`.
    #[arg(long, value_delimiter = ',')]
    pub pairs: Vec<String>,
}

/// `mote-bench remote-node`.
#[derive(Debug, Args)]
pub struct RemoteNodeArgs {
    /// The node's name.
    pub name: String,
    /// The EPMD port to register with.
    pub epmd_port: u16,
}

/// `mote-bench report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The saved run (its results.json).
    pub results: PathBuf,
}

/// `mote-bench instructions`.
#[derive(Debug, Args)]
pub struct InstructionsArgs {
    /// Workload name (see `mote-bench list`).
    #[arg(long)]
    pub workload: String,
    /// Variant; the workload's first variant when absent.
    #[arg(long)]
    pub variant: Option<String>,
    /// The implementations, comma-separated: mote, tokio, tokio:STYLE (those that run in
    /// this binary).
    #[arg(long, value_delimiter = ',', default_value = "mote,tokio")]
    pub impls: Vec<String>,
    /// A parameter value, `k=v` (repeatable); unset parameters take the size's values.
    #[arg(long = "param", value_name = "K=V", value_parser = parse_param)]
    pub params: Vec<(String, u64)>,
    /// The parameter whose units are counted (`r` for `call`'s calls): each run is made at
    /// its value and at `--factor` times it, and the difference divided by the units
    /// between them.
    #[arg(long)]
    pub per: String,
    /// The second run's value of `--per` over the first's (10 for `skynet`, whose `l` is a
    /// power of 10).
    #[arg(long, default_value_t = 2)]
    pub factor: u64,
    /// The sizes the parameters start from: quick (the default: a run under callgrind is
    /// about 50 times slower), standard or full.
    #[arg(long, value_parser = Size::parse, default_value = "quick")]
    pub size: Size,
}

/// `mote-bench core-distance`.
#[derive(Debug, Args)]
pub struct CoreDistanceArgs {
    /// How many samples.
    #[arg(long, default_value_t = 20)]
    pub samples: usize,
    /// Round trips a sample averages.
    #[arg(long, default_value_t = 100_000)]
    pub trips: u64,
    /// Milliseconds between samples.
    #[arg(long, default_value_t = 500)]
    pub every_ms: u64,
}

/// `mote-bench list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print the workload table as Markdown (the one in docs/workloads.md).
    #[arg(long)]
    pub markdown: bool,
}

/// `mote-bench compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The saved run to compare against (its results.json).
    pub old: PathBuf,
    /// The run to judge (its results.json).
    pub new: PathBuf,
}

/// `mote-bench run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Workload name (see `mote-bench list`).
    #[arg(long)]
    pub workload: String,
    /// Implementation: mote, tokio (or a style of it, tokio:NAME), go, elixir, elixir_tuned,
    /// clojure_agents, clojure_agents_tuned, clojure_async, clojure_async_buffered, pekko.
    #[arg(long = "impl")]
    pub imp: String,
    /// Variant; the workload's first variant when absent.
    #[arg(long)]
    pub variant: Option<String>,
    /// A parameter value, `k=v` (repeatable); unset parameters take their defaults.
    #[arg(long = "param", value_name = "K=V", value_parser = parse_param)]
    pub params: Vec<(String, u64)>,
    /// Start from the `--quick` values instead of the full ones (same as `--size quick`).
    #[arg(long, conflicts_with = "size")]
    pub quick: bool,
    /// Start from the values of this size: quick, standard (the default suite's) or full.
    /// [default: full, the contract's sizes]
    #[arg(long, value_parser = Size::parse)]
    pub size: Option<Size>,
    /// mote only: after the RESULT line, print on stderr what mote's scheduler threads did
    /// in this program's life (tasks run, steals, spins, sleeps, busy time per thread, and
    /// the wake-ups of sleeping threads): how a run shares its work among the threads (all
    /// zero for a run that starts no runtime, as `workers serial`).
    #[arg(long)]
    pub scheduler_stats: bool,
}

impl RunArgs {
    /// The size the parameters start from.
    pub fn size(&self) -> Size {
        if self.quick {
            Size::Quick
        } else {
            self.size.unwrap_or(Size::Full)
        }
    }
}

/// Suite options. Without `--quick` or `--full` the suite runs the standard sizes, 1 warm-up
/// and 3 measured runs (more for short runs: see `--min-time`), in about ten minutes on two
/// cores.
#[derive(Debug, Clone, Args)]
pub struct SuiteArgs {
    /// The smoke-test sizes, 1 warm-up and 2 measured runs (unless --runs/--warmup say
    /// otherwise): a minute or two.
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// The contract's full sizes (the write-ups' experiments), 1 warm-up and 5 measured runs:
    /// hours with every implementation.
    #[arg(long)]
    pub full: bool,
    /// Measured runs per scenario and implementation, at least [default: 3; 2 with --quick, 5
    /// with --full].
    #[arg(long)]
    pub runs: Option<u32>,
    /// Short runs are made more often, until an implementation's measured runs of a scenario
    /// are expected to take this long in all (as hyperfine does; 0: exactly --runs)
    /// [default: 2; 0 with --quick].
    #[arg(long, value_name = "SECONDS")]
    pub min_time: Option<f64>,
    /// The most measured runs --min-time may ask for.
    #[arg(long, default_value_t = 15)]
    pub max_runs: u32,
    /// Warm-up runs per scenario and implementation.
    #[arg(long, default_value_t = 1)]
    pub warmup: u32,
    /// Comma-separated implementations, or `all` [default: mote, tokio, go, elixir,
    /// elixir_tuned; with --full also the JVM peers clojure_agents, clojure_agents_tuned,
    /// clojure_async, clojure_async_buffered and pekko]. tokio brings its named styles along
    /// (tokio:NAME runs one alone).
    #[arg(long)]
    pub impls: Option<String>,
    /// Comma-separated workloads [default: all].
    #[arg(long)]
    pub workloads: Option<String>,
    /// Directory for results.json (kept up to date while the suite runs), report.html and
    /// the .svg charts.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Per-run timeout in seconds; a run past it is killed and recorded as failed.
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
    /// Skip the sweeps (chain over M, million over K, workers over W...).
    #[arg(long)]
    pub no_sweeps: bool,
    /// Run the scaling study instead of the suite: chain, pingpong (100 pairs), skynet,
    /// fanin and call (10,000 callers) at 1, 2, 4... worker threads up to the machine's
    /// cores (the option `threads`), on mote, raw tokio and Go unless --impls says otherwise
    /// (elixir takes the option too, up to the machine's cores).
    #[arg(long, conflicts_with = "no_sweeps")]
    pub scaling: bool,
    /// Print the plan (scenarios, runs, expected duration) and exit without running it.
    #[arg(long)]
    pub dry_run: bool,
    /// A saved run's results.json: print each scenario's time ratio to it with a confidence
    /// interval, and flag the slower ones.
    #[arg(long, value_name = "OLD_RESULTS_JSON")]
    pub compare: Option<PathBuf>,
}

impl SuiteArgs {
    /// The sizes asked for.
    pub fn size(&self) -> Size {
        match (self.quick, self.full) {
            (true, _) => Size::Quick,
            (_, true) => Size::Full,
            _ => Size::Standard,
        }
    }
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
        assert_eq!(cli.suite.size(), Size::Quick);
        assert_eq!(cli.suite.impls.as_deref(), Some("tokio"));
        assert_eq!(cli.suite.runs, None);
        let cli = Cli::try_parse_from(["mote-bench"]).unwrap();
        assert_eq!(cli.suite.size(), Size::Standard);
        let cli = Cli::try_parse_from(["mote-bench", "--full", "--compare", "old.json"]).unwrap();
        assert_eq!(cli.suite.size(), Size::Full);
        assert_eq!(cli.suite.compare, Some(PathBuf::from("old.json")));
        assert!(Cli::try_parse_from(["mote-bench", "--full", "--quick"]).is_err());
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
        assert_eq!(r.size(), Size::Full);
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
