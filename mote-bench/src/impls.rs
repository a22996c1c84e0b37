//! The implementations the suite compares, in the order runs are interleaved: mote and tokio
//! in this process, then every peer implementation of [`crate::peers::PEERS`].
//!
//! An implementation is named by a string: `mote`, `tokio`, `go`, `elixir_tuned`..., or
//! `BASE:STYLE` for a named style of a workload's program (`tokio:tail_first`, see
//! [`crate::workloads::spec::Style`]).

use crate::peers::{self, PEERS};
use crate::workloads::spec::usage;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;

/// The implementations compiled into this binary.
pub const IN_PROCESS: [&str; 2] = ["mote", "tokio"];

/// One implementation, possibly in a named style.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Impl(String);

impl Impl {
    /// mote.
    pub fn mote() -> Impl {
        Impl("mote".into())
    }

    /// Raw tokio's default programs, the baseline of the ratios.
    pub fn tokio() -> Impl {
        Impl("tokio".into())
    }

    /// An implementation by its full name, unchecked (as read from a results file).
    pub fn named(name: &str) -> Impl {
        Impl(name.to_string())
    }

    /// Its full name (`tokio:tail_first`).
    pub fn name(&self) -> &str {
        &self.0
    }

    /// The implementation it is a style of, or itself (`tokio`).
    pub fn base(&self) -> &str {
        self.0.split_once(':').map_or(&self.0, |(b, _)| b)
    }

    /// The style's name, if it is one.
    pub fn style(&self) -> Option<&str> {
        self.0.split_once(':').map(|(_, s)| s)
    }

    /// Its style `style`.
    pub fn with_style(&self, style: &str) -> Impl {
        Impl(format!("{}:{style}", self.base()))
    }

    /// True for mote and tokio (and their styles), which `mote-bench run` runs itself.
    pub fn in_process(&self) -> bool {
        IN_PROCESS.contains(&self.base())
    }

    /// The `impl=` its RESULT lines carry: its own name, or its peer runtime's name (both
    /// Elixir flavours print `impl=elixir`).
    pub fn result_names(&self) -> [&str; 2] {
        let runtime = peers::find_impl(self.base()).map_or(self.name(), |(p, _)| p.runtime);
        [self.name(), runtime]
    }

    /// Position of its base in interleaving order; unknown names go last.
    pub fn rank(&self) -> usize {
        all_base_names()
            .position(|n| n == self.base())
            .unwrap_or(usize::MAX)
    }

    /// Parses a name: a known implementation, or a known one with `:style` (the style is
    /// checked against each workload later). The error lists the valid names.
    pub fn parse(s: &str) -> anyhow::Result<Impl> {
        let imp = Impl(s.trim().to_string());
        let style_ok = imp
            .style()
            .is_none_or(|st| !st.is_empty() && imp.in_process());
        if all_base_names().any(|n| n == imp.base()) && style_ok {
            return Ok(imp);
        }
        let known: Vec<&str> = all_base_names().collect();
        Err(usage(format!(
            "unknown impl '{s}' (impls: {}; a style of mote or tokio as tokio:NAME)",
            known.join(", ")
        )))
    }
}

impl Ord for Impl {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.rank(), self.base(), self.style()).cmp(&(other.rank(), other.base(), other.style()))
    }
}

impl PartialOrd for Impl {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Impl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Every implementation's name, in interleaving order (styles aside).
pub fn all_base_names() -> impl Iterator<Item = &'static str> {
    IN_PROCESS
        .into_iter()
        .chain(PEERS.iter().flat_map(|p| p.impls.iter().map(|i| i.name)))
}

/// Every implementation, in interleaving order (styles aside).
pub fn all() -> Vec<Impl> {
    all_base_names().map(Impl::named).collect()
}

/// The implementations a run takes when `--impls` is not given: every one for `--full`;
/// for the standard and quick runs, those whose runtime is in the default run (not the JVM
/// peers, whose start-up would double the run).
pub fn default_for(full: bool) -> Vec<Impl> {
    all()
        .into_iter()
        .filter(|i| full || peers::find_impl(i.base()).is_none_or(|(p, _)| p.in_default_run))
        .collect()
}

/// Parses a comma-separated list (`--impls tokio,go`; `all` for every implementation), keeping interleaving order and dropping
/// repeats so the order on the command line cannot change how noise is spread.
pub fn parse_list(s: &str) -> anyhow::Result<Vec<Impl>> {
    let mut chosen = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if part == "all" {
            chosen.extend(all());
        } else {
            chosen.push(Impl::parse(part)?);
        }
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
    fn the_default_run_leaves_the_jvm_peers_to_the_full_run() {
        let jvm = [
            "clojure_agents",
            "clojure_agents_tuned",
            "clojure_async",
            "clojure_async_buffered",
            "pekko",
        ];
        let standard: Vec<String> = default_for(false).iter().map(|i| i.name().into()).collect();
        let full: Vec<String> = default_for(true).iter().map(|i| i.name().into()).collect();
        for name in ["mote", "tokio", "go", "elixir", "elixir_tuned"] {
            assert!(standard.iter().any(|n| n == name), "{name} missing");
        }
        for name in jvm {
            assert!(
                !standard.iter().any(|n| n == name),
                "{name} in the default run"
            );
            assert!(full.iter().any(|n| n == name), "{name} not in the full run");
        }
        let named = parse_list("mote,pekko").unwrap();
        assert_eq!(named, vec![Impl::mote(), Impl::named("pekko")]);
        assert_eq!(parse_list("all").unwrap(), all());
    }

    #[test]
    fn lists_parse_into_interleaving_order() {
        assert_eq!(
            parse_list("elixir,tokio:tail_first,mote,tokio,tokio").unwrap(),
            vec![
                Impl::mote(),
                Impl::tokio(),
                Impl::named("tokio:tail_first"),
                Impl::named("elixir")
            ]
        );
        assert!(parse_list("tokio,rust").is_err());
        assert!(parse_list("go:fast").is_err(), "peers have no styles");
        assert!(parse_list("tokio:").is_err());
        assert!(parse_list(",").is_err());
    }

    #[test]
    fn names_split_into_base_and_style() {
        let styled = Impl::tokio().with_style("tail_first");
        assert_eq!(
            (styled.name(), styled.base(), styled.style()),
            ("tokio:tail_first", "tokio", Some("tail_first"))
        );
        assert!(styled.in_process());
        assert_eq!(
            styled.result_names(),
            ["tokio:tail_first", "tokio:tail_first"]
        );
        let tuned = Impl::named("elixir_tuned");
        assert!(!tuned.in_process());
        assert_eq!(tuned.result_names(), ["elixir_tuned", "elixir"]);
        assert_eq!(Impl::named("clojure").rank(), usize::MAX);
    }

    #[test]
    fn serializes_as_its_name() {
        let json = serde_json::to_string(&vec![Impl::mote(), Impl::named("tokio:x")]).unwrap();
        assert_eq!(json, r#"["mote","tokio:x"]"#);
        let back: Vec<Impl> = serde_json::from_str(&json).unwrap();
        assert_eq!(back[1].style(), Some("x"));
    }
}
