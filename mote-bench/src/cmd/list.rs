//! `mote-bench list`: the catalog and which implementations can run here.

use crate::catalog::WORKLOADS;
use crate::peers::{self, version_of, Peers};
use std::process::ExitCode;

/// Runs the subcommand.
pub fn main() -> ExitCode {
    println!("Workloads (param=default/quick):");
    for w in WORKLOADS {
        let params: Vec<String> = w
            .params
            .iter()
            .map(|p| format!("{}={}/{}", p.name, p.default, p.quick))
            .collect();
        let variants = if w.variants.is_empty() {
            "-".to_string()
        } else {
            w.variants.join(", ")
        };
        println!("  {:<9} variants: {variants}", w.name);
        println!("  {:<9} params:   {}", "", params.join(" "));
        if !w.extras.is_empty() {
            println!("  {:<9} extras:   {}", "", w.extras.join(", "));
        }
        println!("  {:<9} {}", "", w.summary);
    }
    println!("\nImplementations:");
    println!("  mote     in-process (src/mote_impl)");
    println!("  tokio    in-process (src/tokio_impl)");
    let peers = Peers::discover(peers::locate_dir(), false);
    match (&peers.go_binary, &peers.go_missing) {
        (Some(b), _) => println!("  go       {}", b.display()),
        (None, Some(why)) => println!("  go       unavailable: {why}"),
        _ => {}
    }
    if let Some(v) = version_of("go", &["version"]) {
        println!("           toolchain: {v}");
    }
    match (&peers.elixir, &peers.elixir_missing) {
        (Some(e), _) => println!(
            "  elixir   {} {}",
            e.display(),
            peers.dir.join("elixir/bench.exs").display()
        ),
        (None, Some(why)) => println!("  elixir   unavailable: {why}"),
        _ => {}
    }
    if let Some(v) = version_of("elixir", &["--version"]) {
        println!("           toolchain: {v}");
    }
    ExitCode::SUCCESS
}
