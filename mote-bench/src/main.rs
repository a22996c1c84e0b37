//! The `mote-bench` binary: parses the command line and hands over to a subcommand.

use clap::Parser;
use mote_bench::cli::{Cli, Cmd};
use mote_bench::cmd;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Cmd::Run(args)) => cmd::run::main(args),
        Some(Cmd::List(args)) => cmd::list::main(args),
        Some(Cmd::Suite(args)) => cmd::suite::main(args),
        Some(Cmd::Compare(args)) => cmd::compare::main(args),
        Some(Cmd::Report(args)) => cmd::report::main(args),
        Some(Cmd::Instructions(args)) => cmd::instructions::main(args),
        Some(Cmd::CoreDistance(args)) => cmd::core_distance::main(args),
        #[cfg(feature = "remote")]
        Some(Cmd::Remote(args)) => cmd::remote::main(args),
        #[cfg(feature = "remote")]
        Some(Cmd::RemoteNode(args)) => cmd::remote::node_main(args),
        #[cfg(not(feature = "remote"))]
        Some(Cmd::Remote(_)) | Some(Cmd::RemoteNode(_)) => {
            eprintln!(
                "mote-bench remote needs the `remote` feature: \
                 cargo run --release -p mote-bench --features remote -- remote"
            );
            ExitCode::from(2)
        }
        None => cmd::suite::main(cli.suite),
    }
}
