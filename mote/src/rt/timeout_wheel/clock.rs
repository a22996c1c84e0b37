//! The clock of timeouts: ticks (milliseconds) since a fixed start.
//!
//! Every reading is the precise monotonic clock (the one `Instant` reads). A coarse clock
//! (`CLOCK_MONOTONIC_COARSE` plus its resolution) was tried for long timeouts, since a
//! precise read is about 6% of a `server::call` round trip; but in a virtual machine the
//! coarse clock can lag the precise one by more than its stated resolution (a delayed
//! kernel tick), and a timeout armed from it then fired early. A timeout that fires
//! early breaks the BEAM's promise, so the 4% stays.
//!
//! On Linux the reading is `clock_gettime(CLOCK_MONOTONIC)` itself (the clock `Instant` reads
//! there), kept as whole nanoseconds: `Instant::elapsed` and the `Duration` arithmetic
//! around it (a checked timespec subtraction, checked additions, millisecond splits) cost
//! as much again as the read, a further 3% of a one-caller `server::call`.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// When tick 0 began: the raw reading (nanoseconds, see [`raw_nanos`]) and, taken after it,
/// the same moment as an `Instant`, for the driver's sleeps. The `Instant` is no earlier than
/// the raw reading, so the driver, waking at [`instant_of`] a tick, finds that tick passed.
fn start() -> &'static (u64, Instant) {
    static START: OnceLock<(u64, Instant)> = OnceLock::new();
    START.get_or_init(|| {
        let raw = raw_nanos();
        (raw, Instant::now())
    })
}

/// The monotonic clock in nanoseconds from an arbitrary origin: the raw `CLOCK_MONOTONIC`
/// reading, which a u64 holds for 584 years of uptime.
#[cfg(target_os = "linux")]
#[inline]
fn raw_nanos() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a timespec we own, for the call to write; CLOCK_MONOTONIC exists on
    // every Linux, so the call cannot fail (std's `Instant::now` relies on the same).
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// Elsewhere: nanoseconds since a process-wide `Instant` (taken on first use).
#[cfg(not(target_os = "linux"))]
#[inline]
fn raw_nanos() -> u64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    let elapsed = ORIGIN.get_or_init(Instant::now).elapsed();
    elapsed
        .as_secs()
        .saturating_mul(1_000_000_000)
        .saturating_add(u64::from(elapsed.subsec_nanos()))
}

/// Nanoseconds since tick 0 began.
#[inline]
fn elapsed_nanos() -> u64 {
    let origin = start().0;
    raw_nanos().saturating_sub(origin)
}

const NANOS_PER_TICK: u64 = 1_000_000;

/// The last tick that has fully passed.
pub(super) fn now_tick() -> u64 {
    elapsed_nanos() / NANOS_PER_TICK
}

/// The first tick at or after `duration` from now: once it has passed by [`now_tick`], so
/// has the deadline. `None` if that tick does not fit in a `u64` (about 584 million years
/// from the start, up to `Duration::MAX`): such a deadline is never reached, and the
/// caller waits without limit.
pub(crate) fn deadline_tick(duration: Duration) -> Option<u64> {
    deadline_and_now(duration).map(|(deadline, _)| deadline)
}

/// Durations up to this many seconds (about 34 years) take the nanosecond arithmetic; longer
/// ones, the `Duration` arithmetic (a u64 of nanoseconds would overflow).
const FAST_SECS: u64 = 1 << 30;

/// [`deadline_tick`] and [`now_tick`] from one clock read.
#[inline]
pub(super) fn deadline_and_now(duration: Duration) -> Option<(u64, u64)> {
    let elapsed = elapsed_nanos();
    Some((deadline_at(elapsed, duration)?, elapsed / NANOS_PER_TICK))
}

/// The first tick at or after `duration` past `elapsed` nanoseconds from the start.
#[inline]
fn deadline_at(elapsed: u64, duration: Duration) -> Option<u64> {
    if duration.as_secs() < FAST_SECS && elapsed < 1 << 63 {
        // No overflow: `elapsed` below 2^63 (292 years of uptime), the duration below
        // 2^60 nanoseconds.
        let at = elapsed + duration.as_secs() * 1_000_000_000 + u64::from(duration.subsec_nanos());
        // Rounded up: a deadline inside a tick is due once that whole tick has passed.
        return Some(at.div_ceil(NANOS_PER_TICK));
    }
    let at = Duration::from_nanos(elapsed).checked_add(duration)?;
    millis_floor(at)?.checked_add(u64::from(at.subsec_nanos() % 1_000_000 != 0))
}

/// When `tick` begins; `None` if the clock cannot represent it (the driver then sleeps
/// until told of an earlier tick).
pub(super) fn instant_of(tick: u64) -> Option<Instant> {
    start().1.checked_add(Duration::from_millis(tick))
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

    /// The nanosecond arithmetic gives the ticks the `Duration` arithmetic gives, rounding
    /// up inside a tick, on both sides of the length where one hands over to the other.
    #[test]
    fn the_fast_deadline_is_the_duration_arithmetic() {
        let by_duration = |elapsed: u64, d: Duration| {
            let at = Duration::from_nanos(elapsed).checked_add(d)?;
            millis_floor(at)?.checked_add(u64::from(at.subsec_nanos() % 1_000_000 != 0))
        };
        let fast = Duration::from_secs(FAST_SECS);
        for elapsed in [
            0,
            1,
            999_999,
            1_000_000,
            1_000_001,
            123_456_789_012,
            (1 << 63) - 1,
        ] {
            for d in [
                Duration::ZERO,
                Duration::from_nanos(1),
                Duration::from_micros(300),
                Duration::from_millis(1),
                Duration::from_secs(5),
                Duration::new(5, 999_999),
                fast - Duration::from_nanos(1),
                fast,
                fast + Duration::from_nanos(1),
            ] {
                assert_eq!(
                    deadline_at(elapsed, d),
                    by_duration(elapsed, d),
                    "{elapsed} ns + {d:?}"
                );
            }
        }
        assert_eq!(deadline_at(0, Duration::from_nanos(1)), Some(1));
        assert_eq!(deadline_at(2_000_000, Duration::from_millis(3)), Some(5));
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
