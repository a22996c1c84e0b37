//! The clock of timeouts: ticks (milliseconds) since a fixed start.
//!
//! Every reading is the precise monotonic clock (`Instant`). A coarse clock
//! (`CLOCK_MONOTONIC_COARSE` plus its resolution) was tried for long timeouts, since a
//! precise read is about 6% of a `server::call` round trip; but in a virtual machine the
//! coarse clock can lag the precise one by more than its stated resolution (a delayed
//! kernel tick), and a timeout armed from it then fired early. A timeout that fires
//! early breaks the BEAM's promise, so the 4% stays.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// When tick 0 began.
fn start() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

/// The last tick that has fully passed.
pub(super) fn now_tick() -> u64 {
    // A u64 of milliseconds lasts 584 million years from the start.
    millis_floor(start().elapsed()).unwrap_or(u64::MAX)
}

/// The first tick at or after `duration` from now: once it has passed by [`now_tick`], so
/// has the deadline. `None` if that tick does not fit in a `u64` (about 584 million years
/// from the start, up to `Duration::MAX`): such a deadline is never reached, and the
/// caller waits without limit.
pub(crate) fn deadline_tick(duration: Duration) -> Option<u64> {
    deadline_and_now(duration).map(|(deadline, _)| deadline)
}

/// [`deadline_tick`] and [`now_tick`] from one clock read.
pub(super) fn deadline_and_now(duration: Duration) -> Option<(u64, u64)> {
    let elapsed = start().elapsed();
    let at = elapsed.checked_add(duration)?;
    let deadline = millis_floor(at)?.checked_add(u64::from(at.subsec_nanos() % 1_000_000 != 0))?;
    Some((deadline, millis_floor(elapsed).unwrap_or(u64::MAX)))
}

/// When `tick` begins; `None` if the clock cannot represent it (the driver then sleeps
/// until told of an earlier tick).
pub(super) fn instant_of(tick: u64) -> Option<Instant> {
    start().checked_add(Duration::from_millis(tick))
}

/// Whole milliseconds, `None` past `u64::MAX` (not `as_millis`: its 128-bit division shows
/// in a call's profile).
fn millis_floor(d: Duration) -> Option<u64> {
    d.as_secs()
        .checked_mul(1000)?
        .checked_add(u64::from(d.subsec_millis()))
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn deadlines_are_never_early_and_round_up_to_a_tick() {
        for ms in [0u64, 1, 3, 10, 250, 1_000, 5_000] {
            let duration = Duration::from_millis(ms) + Duration::from_micros(300);
            let before = now_tick();
            let tick = deadline_tick(duration).unwrap();
            // At least `duration` after the tick that had passed before arming.
            assert!(tick > before + ms, "{ms} ms: tick {tick}, before {before}");
            // And at most two ticks past the whole milliseconds: the 300 µs plus the
            // fraction of the current tick, rounded up.
            assert!(tick <= now_tick() + ms + 2, "{ms} ms: tick {tick}");
        }
        assert_eq!(deadline_tick(Duration::MAX), None);
    }

    #[test]
    fn a_deadline_beyond_a_u64_of_milliseconds_is_no_deadline() {
        // These wrapped to a tick in the past, which fired at once.
        for duration in [
            Duration::from_millis(u64::MAX),
            Duration::from_secs(u64::MAX / 1000 + 1),
            Duration::from_secs(u64::MAX),
        ] {
            assert_eq!(deadline_tick(duration), None, "{duration:?}");
        }
        // The largest that fits is a deadline, far away.
        let far = Duration::from_millis(u64::MAX / 2);
        assert!(deadline_tick(far).unwrap() > now_tick() + u64::MAX / 4);
    }

    #[test]
    fn the_driver_wakes_into_the_tick_it_slept_for() {
        let tick = now_tick() + 2;
        std::thread::sleep(
            instant_of(tick)
                .unwrap()
                .saturating_duration_since(Instant::now()),
        );
        assert!(now_tick() >= tick);
    }
}
