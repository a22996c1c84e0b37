//! How far apart the cores were while a suite ran: the round trip of a cache line between
//! two threads, sampled just before each run ([`crate::harness::core_distance`]).
//!
//! On a virtual machine the host moves the virtual CPUs, and every runtime's speed at work
//! that crosses between threads moves with them (docs/workloads.md, `core-distance`); the
//! spread of these samples says whether a run's figures come from one state of the machine
//! or from several.

use crate::harness::stats::quantile_sorted;
use crate::suite::model::SuiteResults;

/// Every run's sample, warm-ups included, in nanoseconds.
fn samples(results: &SuiteResults) -> Vec<f64> {
    results
        .scenarios
        .iter()
        .flat_map(|s| &s.impls)
        .flat_map(|i| &i.runs)
        .filter_map(|r| r.core_round_trip_ns)
        .map(|ns| ns as f64)
        .collect()
}

/// The samples' least, quartiles and most, and how many; `None` without samples (a file
/// from before they were taken).
pub fn summary(results: &SuiteResults) -> Option<String> {
    let mut ns = samples(results);
    if ns.is_empty() {
        return None;
    }
    ns.sort_by(f64::total_cmp);
    let at = |q: f64| quantile_sorted(&ns, q);
    Some(format!(
        "least {:.0} ns, quartiles {:.0} / {:.0} / {:.0} ns, most {:.0} ns ({} runs)",
        at(0.0),
        at(0.25),
        at(0.5),
        at(0.75),
        at(1.0),
        ns.len()
    ))
}

/// The console line; empty without samples.
pub fn render(results: &SuiteResults) -> String {
    summary(results).map_or_else(String::new, |s| {
        format!(
            "\nThe cores' round trip just before each run (how far apart they were; \
             `mote-bench core-distance`): {s}\n"
        )
    })
}
