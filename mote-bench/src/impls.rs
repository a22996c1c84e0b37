//! The four implementations the suite compares, in the order runs are interleaved.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One implementation of the workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Impl {
    /// The mote runtime, in-process (`src/mote_impl`).
    Mote,
    /// Raw tokio tasks and channels, in-process (`src/tokio_impl`); the baseline of the ratios.
    Tokio,
    /// The Go peer (`peers/go`).
    Go,
    /// The Elixir peer (`peers/elixir`), written plainly.
    Elixir,
    /// The Elixir peer with the workload's known BEAM trap avoided (`tuned=1`: main's
    /// mailbox kept off-heap, so garbage collections do not rescan a million queued
    /// replies). Only for the workloads in [`TUNED_WORKLOADS`]; skipped elsewhere.
    #[serde(rename = "elixir_tuned")]
    ElixirTuned,
}

/// The workloads whose Elixir peer has a tuned version (see `peers/README.md`).
pub const TUNED_WORKLOADS: [&str; 4] = ["million", "spawn", "fanin", "workers"];

impl Impl {
    /// Every implementation in interleaving order: mote, tokio, go, elixir, elixir_tuned.
    pub const ALL: [Impl; 5] = [
        Impl::Mote,
        Impl::Tokio,
        Impl::Go,
        Impl::Elixir,
        Impl::ElixirTuned,
    ];

    /// The name used on command lines and in RESULT lines.
    pub fn name(self) -> &'static str {
        match self {
            Impl::Mote => "mote",
            Impl::Tokio => "tokio",
            Impl::Go => "go",
            Impl::Elixir => "elixir",
            Impl::ElixirTuned => "elixir_tuned",
        }
    }

    /// The `impl=` its RESULT lines carry (both Elixir flavours are the same peer).
    pub fn result_name(self) -> &'static str {
        match self {
            Impl::ElixirTuned => "elixir",
            other => other.name(),
        }
    }

    /// Parses a name; the error lists the valid ones.
    pub fn parse(s: &str) -> anyhow::Result<Impl> {
        Impl::ALL
            .into_iter()
            .find(|i| i.name() == s)
            .ok_or_else(|| {
                anyhow::anyhow!("unknown impl '{s}' (impls: mote, tokio, go, elixir, elixir_tuned)")
            })
    }

    /// True for the implementations compiled into this binary (run in-process by `run`).
    pub fn in_process(self) -> bool {
        matches!(self, Impl::Mote | Impl::Tokio)
    }
}

impl fmt::Display for Impl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses a comma-separated list (`--impls tokio,go`), keeping interleaving order and dropping
/// repeats so the order on the command line cannot change how noise is spread.
pub fn parse_list(s: &str) -> anyhow::Result<Vec<Impl>> {
    let mut chosen = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        chosen.push(Impl::parse(part)?);
    }
    anyhow::ensure!(!chosen.is_empty(), "--impls names no implementation");
    chosen.sort();
    chosen.dedup();
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_into_interleaving_order() {
        assert_eq!(
            parse_list("elixir,tokio,mote,tokio").unwrap(),
            vec![Impl::Mote, Impl::Tokio, Impl::Elixir]
        );
        assert!(parse_list("tokio,rust").is_err());
        assert!(parse_list(",").is_err());
    }
}
