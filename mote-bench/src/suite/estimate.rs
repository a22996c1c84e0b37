//! How long a suite will take: the expected time of every planned run, from the workloads'
//! expected full-size times ([`crate::workloads::spec::Expect`], measured on the 2-core
//! reference machine) scaled by the run's share of the full work, plus each implementation's
//! start-up cost. Printed before the suite starts, then corrected as runs finish by how fast
//! this machine has been so far.

use super::model::Scenario;
use crate::catalog;
use crate::impls::Impl;
use crate::peers;

/// Start-up and tear-down of a `mote-bench run` child, ms.
const IN_PROCESS_STARTUP_MS: f64 = 15.0;
/// Start-up assumed for an implementation the tables do not know, ms.
const UNKNOWN_STARTUP_MS: f64 = 1_000.0;

fn startup_ms(imp: &Impl) -> f64 {
    if imp.in_process() {
        IN_PROCESS_STARTUP_MS
    } else {
        peers::find_impl(imp.base()).map_or(UNKNOWN_STARTUP_MS, |(p, _)| p.startup_ms)
    }
}

/// The expected time of one run of `s` on `imp`, ms. An implementation the workload's spec
/// has no figure for is assumed as slow as its slowest one.
pub fn run_ms(s: &Scenario, imp: &Impl) -> f64 {
    let Some(entry) = catalog::find(&s.workload) else {
        return startup_ms(imp);
    };
    let spec = entry.spec;
    let full = spec
        .expected_full_ms(imp.base(), &s.variant)
        .unwrap_or_else(|| spec.expect.iter().map(|e| e.ms).fold(0.0, f64::max));
    startup_ms(imp) + full * spec.work_vs_full(&s.params)
}

/// What is left of `total_ms` after `done_ms` of it, at the pace seen so far: `elapsed_ms`
/// of real time for `done_ms` of expected time. Before anything finished, the estimate as it
/// stands.
pub fn remaining_ms(total_ms: f64, done_ms: f64, elapsed_ms: f64) -> f64 {
    let left = (total_ms - done_ms).max(0.0);
    if done_ms > 0.0 && elapsed_ms > 0.0 {
        left * elapsed_ms / done_ms
    } else {
        left
    }
}

/// A duration for people: `45 s`, `7 min`, `1 h 05 min`.
pub fn human(ms: f64) -> String {
    let s = (ms / 1e3).round() as u64;
    match s {
        0..=89 => format!("{s} s"),
        90..=3599 => format!("{} min", (s + 30) / 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600 + 30) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::params::Params;
    use crate::workloads::spec::Size;

    fn scenario(workload: &str, variant: &str, size: Size) -> Scenario {
        Scenario::base_at(workload, variant, size)
    }

    #[test]
    fn a_run_costs_its_share_of_the_full_time_plus_start_up() {
        let spec = catalog::find("chain").unwrap().spec;
        let full = scenario("chain", "int", Size::Full);
        let mote_full = spec.expected_full_ms("mote", "int").unwrap();
        assert_eq!(
            run_ms(&full, &Impl::mote()),
            IN_PROCESS_STARTUP_MS + mote_full
        );
        // Standard chain is 3,000 x 3,000: 9 % of the full 10,000 x 10,000.
        let standard = scenario("chain", "int", Size::Standard);
        let want = IN_PROCESS_STARTUP_MS + mote_full * 0.09;
        assert!((run_ms(&standard, &Impl::mote()) - want).abs() < 1e-9);
        // A style costs what its base does.
        let styled = Impl::tokio().with_style("tail_first");
        assert_eq!(run_ms(&full, &styled), run_ms(&full, &Impl::tokio()));
    }

    #[test]
    fn peers_pay_their_start_up_and_variants_their_own_figure() {
        let spec = catalog::find("chain").unwrap().spec;
        let elixir = peers::find_impl("elixir").unwrap().0.startup_ms;
        let list = scenario("chain", "list20", Size::Full);
        assert_eq!(
            run_ms(&list, &Impl::named("elixir")),
            elixir + spec.expected_full_ms("elixir", "list20").unwrap()
        );
        assert!(spec.expected_full_ms("elixir", "list20") > spec.expected_full_ms("elixir", "int"));
    }

    #[test]
    fn unknown_implementations_are_assumed_slow() {
        let s = scenario("ring", "-", Size::Full);
        let slowest = catalog::find("ring")
            .unwrap()
            .spec
            .expect
            .iter()
            .map(|e| e.ms)
            .fold(0.0, f64::max);
        assert_eq!(
            run_ms(&s, &Impl::named("clojure")),
            UNKNOWN_STARTUP_MS + slowest
        );
        let mut odd = s.clone();
        odd.workload = "nope".into();
        odd.params = Params::default();
        assert_eq!(run_ms(&odd, &Impl::mote()), IN_PROCESS_STARTUP_MS);
    }

    #[test]
    fn the_remaining_time_follows_the_pace_so_far() {
        assert_eq!(remaining_ms(100.0, 0.0, 0.0), 100.0);
        // Half done in twice the expected time: the other half takes twice as long too.
        assert_eq!(remaining_ms(100.0, 50.0, 100.0), 100.0);
        assert_eq!(remaining_ms(100.0, 120.0, 10.0), 0.0);
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(human(4_400.0), "4 s");
        assert_eq!(human(400_000.0), "7 min");
        assert_eq!(human(3_900_000.0), "1 h 05 min");
    }
}
