//! How many measured runs each implementation makes of a scenario.
//!
//! Every implementation makes at least `--runs`. One whose run is short makes more, until its
//! runs are expected to take `--min-time` in all, up to `--max-runs`: a median of three runs
//! of a few milliseconds is a coin toss on a shared machine (a `parsum serial` run, the same
//! loop in the same binary for mote and tokio, takes 2.1 or 4.0 ms depending on the moment),
//! while fifteen of them cost well under a second. This is hyperfine's rule (a minimum number
//! of runs and a minimum time); an implementation with a slow start (the BEAM, the JVM)
//! reaches the time in its first runs, so it makes `--runs` and the suite grows by at most
//! `--min-time` per scenario and implementation.
//!
//! The count comes from the expected time of a run ([`estimate::run_ms`]), so the plan, its
//! expected duration and `--dry-run` know it before anything runs.

use super::estimate;
use super::model::Scenario;
use crate::impls::Impl;

/// The rule that sets how many measured runs each implementation makes of a scenario.
///
/// ```
/// use mote_bench::suite::runs::RunCount;
///
/// let count = RunCount { runs: 3, min_time_ms: 2_000.0, max_runs: 15 };
/// assert_eq!(count.describe(), "3-15 measured (short runs until they add up to 2 s)");
/// assert_eq!(RunCount::fixed(5).describe(), "5 measured");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunCount {
    /// The fewest measured runs, for every implementation.
    pub runs: u32,
    /// The time an implementation's measured runs of one scenario should add up to, ms (0: a
    /// fixed `runs`).
    pub min_time_ms: f64,
    /// The most measured runs the time may ask for (`runs` if that is more).
    pub max_runs: u32,
}

impl RunCount {
    /// Exactly `runs` measured runs for everyone.
    pub fn fixed(runs: u32) -> RunCount {
        RunCount {
            runs,
            min_time_ms: 0.0,
            max_runs: runs,
        }
    }

    /// The measured runs `imp` makes of `s`.
    pub fn measured(&self, s: &Scenario, imp: &Impl) -> u32 {
        let each = estimate::run_ms(s, imp).max(1.0);
        // Saturates for absurd ratios; the clamp bounds it anyway.
        let wanted = (self.min_time_ms / each).ceil() as u32;
        wanted.clamp(self.runs, self.max_runs.max(self.runs))
    }

    /// In words: `3 measured`, or `3-15 measured (short runs until they add up to 1 s)`.
    pub fn describe(&self) -> String {
        if self.min_time_ms > 0.0 && self.max_runs > self.runs {
            format!(
                "{}-{} measured (short runs until they add up to {} s)",
                self.runs,
                self.max_runs,
                self.min_time_ms / 1e3
            )
        } else {
            format!("{} measured", self.runs)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::spec::Size;

    fn scenario(workload: &str, variant: &str, size: Size) -> Scenario {
        Scenario::base_at(workload, variant, size)
    }

    const COUNT: RunCount = RunCount {
        runs: 3,
        min_time_ms: 1_000.0,
        max_runs: 15,
    };

    #[test]
    fn short_runs_are_made_until_they_add_up_to_the_time() {
        let s = scenario("parsum", "pool", Size::Full);
        let mote = Impl::mote();
        let each = estimate::run_ms(&s, &mote);
        assert!(
            each < 100.0,
            "a pool run is expected to be short: {each} ms"
        );
        let n = COUNT.measured(&s, &mote);
        assert!(n > COUNT.runs && n <= COUNT.max_runs, "{n} runs");
        // Enough for the time unless capped, and not one more than that.
        assert!(f64::from(n) * each >= COUNT.min_time_ms || n == COUNT.max_runs);
        assert!(f64::from(n - 1) * each < COUNT.min_time_ms);
    }

    #[test]
    fn long_runs_and_slow_starters_make_the_fewest() {
        let chain = scenario("chain", "int", Size::Full);
        assert_eq!(COUNT.measured(&chain, &Impl::mote()), 3);
        // The BEAM's start-up alone is most of the time.
        let pool = scenario("parsum", "pool", Size::Full);
        assert!(COUNT.measured(&pool, &Impl::named("elixir")) <= 3);
    }

    #[test]
    fn the_count_is_capped_and_never_under_runs() {
        let tiny = scenario("parsum", "serial", Size::Quick);
        assert_eq!(COUNT.measured(&tiny, &Impl::mote()), 15);
        let more = RunCount { runs: 20, ..COUNT };
        assert_eq!(more.measured(&tiny, &Impl::mote()), 20);
        assert_eq!(RunCount::fixed(2).measured(&tiny, &Impl::mote()), 2);
    }

    #[test]
    fn the_rule_reads_as_it_works() {
        assert_eq!(
            COUNT.describe(),
            "3-15 measured (short runs until they add up to 1 s)"
        );
        assert_eq!(RunCount::fixed(5).describe(), "5 measured");
    }
}
