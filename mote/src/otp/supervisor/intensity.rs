//! Restart intensity: at most `max` restarts within any `period`; one more is a failure the
//! supervisor cannot handle, so it gives up and ends (Erlang's `intensity`/`period`).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The restarts of the last `period`, oldest first.
#[derive(Debug, Clone)]
pub(crate) struct RestartIntensity {
    max: u32,
    period: Duration,
    restarts: VecDeque<Instant>,
}

impl RestartIntensity {
    pub(crate) fn new(max: u32, period: Duration) -> Self {
        RestartIntensity {
            max,
            period,
            restarts: VecDeque::new(),
        }
    }

    /// Records a restart at `now` (never earlier than the last one). Returns false if it is
    /// one too many: more than `max` restarts within the `period` ending at `now`.
    pub(crate) fn record(&mut self, now: Instant) -> bool {
        self.restarts.push_back(now);
        while let Some(&oldest) = self.restarts.front() {
            if now.duration_since(oldest) > self.period {
                self.restarts.pop_front();
            } else {
                break;
            }
        }
        self.restarts.len() <= self.max as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a model that keeps every restart and counts those in the window.
        #[test]
        fn matches_a_window_count(
            max in 0u32..6,
            period_ms in 1u64..50,
            gaps in proptest::collection::vec(0u64..30, 1..60),
        ) {
            let period = Duration::from_millis(period_ms);
            let start = Instant::now();
            let mut intensity = RestartIntensity::new(max, period);
            let mut all = Vec::new();
            let mut now = start;
            for gap in gaps {
                now += Duration::from_millis(gap);
                all.push(now);
                let in_window = all.iter().filter(|&&t| now.duration_since(t) <= period).count();
                prop_assert_eq!(intensity.record(now), in_window <= max as usize);
                // Memory stays bounded by the window, not the history.
                prop_assert!(intensity.restarts.len() == in_window);
            }
        }
    }

    #[test]
    fn the_fourth_restart_within_the_period_is_one_too_many() {
        let t = Instant::now();
        let mut i = RestartIntensity::new(3, Duration::from_secs(5));
        assert!(i.record(t));
        assert!(i.record(t + Duration::from_secs(1)));
        assert!(i.record(t + Duration::from_secs(2)));
        assert!(!i.record(t + Duration::from_secs(3)));
        // Later, the old ones have left the window.
        let mut i = RestartIntensity::new(1, Duration::from_secs(5));
        assert!(i.record(t));
        assert!(i.record(t + Duration::from_secs(6)));
    }
}
