//! `call`: one server process; a client (not main) makes R synchronous request/reply calls,
//! request `i`, reply `i+1`, then reports to main.
//!
//! The option `callers=k` (1 <= k <= R; mote, tokio, Go and Elixir) splits the R calls over
//! k client processes calling the one server at once, each making R/k of them (the first
//! R mod k one more, see [`crate::workloads::common::shares`]) and reporting its own count;
//! the clock runs until the last report. The run then reports `callers=<k>` as an extra.

mod mote;
mod tokio;

use super::runtimes::CURRENT_THREAD;
use super::spec::{expect, param, Spec, Style};
use super::{Measured, Mote, Tokio, Workload};
use crate::harness::outcome::check;
use crate::harness::params::Params;
use anyhow::Result;

/// The workload.
pub struct Call;

/// The option: how many clients call the one server at once (1 when absent).
pub const CALLERS: &str = "callers";

static SPEC: Spec = Spec {
    name: "call",
    summary: "R synchronous request/reply calls to a server process",
    variants: &[],
    params: &[param("r", 20_000, 200_000, 1_000_000)],
    extras: &[CALLERS],
    options: &[CALLERS],
    styles: &[
        Style {
            imp: "tokio",
            name: tokio::REPLY_CHANNEL,
            summary: "each client reuses one reply channel instead of a oneshot per call",
        },
        Style {
            imp: "tokio",
            name: tokio::BOUNDED,
            summary: "requests over a bounded mpsc channel (capacity: one per client)",
        },
        CURRENT_THREAD,
    ],
    validate: callers_at_most_r,
    test_sizes: &[("r", 2_000)],
    expect: &[
        expect("mote", 640.0),
        expect("tokio", 600.0),
        expect("go", 660.0),
        expect("elixir", 3_000.0),
    ],
};

fn callers_at_most_r(p: &Params) -> Result<()> {
    // `callers` is an option: absent means the contract's one client.
    if let Ok(k) = p.get("callers") {
        let r = p.get("r")?;
        anyhow::ensure!(
            k <= r,
            "call: callers={k} is more than r={r} (every caller makes at least one call)"
        );
    }
    Ok(())
}

/// What the clients tell main, summed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tally {
    /// Calls made.
    pub calls: u64,
    /// Replies that were not request + 1.
    pub wrong: u64,
}

impl Tally {
    /// Adds another client's tally.
    pub fn add(&mut self, other: Tally) {
        self.calls += other.calls;
        self.wrong += other.wrong;
    }
}

/// What a runtime supplies: a server and `callers` clients sharing `r` calls.
trait Serve {
    fn serve(&self, r: u64, callers: u64) -> Result<Measured<Tally>>;
}

fn sizes(p: &Params) -> Result<(u64, u64)> {
    Ok((p.get("r")?, p.get("callers").unwrap_or(1).max(1)))
}

impl Workload for Call {
    const SPEC: &'static Spec = &SPEC;
    type Answer = Tally;

    fn on_mote(_variant: &str, p: &Params) -> Result<Measured<Tally>> {
        let (r, callers) = sizes(p)?;
        Mote.serve(r, callers)
    }

    fn on_tokio(tokio: Tokio, _variant: &str, p: &Params) -> Result<Measured<Tally>> {
        let (r, callers) = sizes(p)?;
        tokio.serve(r, callers)
    }

    fn check(_variant: &str, p: &Params, got: &Tally) -> Result<()> {
        let r = p.get("r")?;
        check(got.calls == r && got.wrong == 0, || {
            format!(
                "call: {} calls of {r}, {} replies != request + 1",
                got.calls, got.wrong
            )
        })
    }

    fn option_extras(_variant: &str, p: &Params) -> Vec<(String, String)> {
        match p.get("callers") {
            Ok(k) if k > 1 => vec![("callers".into(), k.to_string())],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;
    use crate::workloads::InProcess;

    #[test]
    fn every_caller_count_makes_all_the_calls() {
        let entry = catalog::find("call").unwrap();
        for on in [InProcess::Mote, InProcess::Tokio(Tokio::default())] {
            for callers in [1, 2, 7, 100] {
                let p = Params::from_pairs([("r", 1000), ("callers", callers)]);
                let out = entry.run(on, "-", &p).unwrap();
                let extra = out.extras.iter().find(|(k, _)| k == "callers");
                assert_eq!(extra.is_some(), callers > 1, "{on:?} callers={callers}");
            }
        }
    }
}
