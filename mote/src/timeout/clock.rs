//! The clock of timeouts: ticks (milliseconds) since a fixed start.
//!
//! Arming a call's timeout needs the time, and a precise clock read was about 4% of a
//! `server::call` round trip (`mote-bench run --workload call`, with and without it). On
//! Linux a long timeout reads `CLOCK_MONOTONIC_COARSE` instead (the time at the last kernel
//! tick, a few nanoseconds to read) and adds that clock's resolution, so it still never
//! fires early; short ones, where a few milliseconds matter, read the precise clock. The
//! driver always reads the precise clock.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

struct Start {
    /// When tick 0 began.
    at: Instant,
    #[cfg(target_os = "linux")]
    raw: linux::Raw,
}

fn start() -> &'static Start {
    static START: OnceLock<Start> = OnceLock::new();
    START.get_or_init(|| {
        // The raw reading first: raw time since it is then never behind `Instant` time
        // since `at`, so the driver, woken at `instant_of(tick)`, finds that tick passed.
        #[cfg(target_os = "linux")]
        let raw = linux::Raw::now();
        Start {
            at: Instant::now(),
            #[cfg(target_os = "linux")]
            raw,
        }
    })
}

/// The last tick that has fully passed.
pub(super) fn now_tick() -> u64 {
    millis_floor(elapsed_precise())
}

/// The first tick at or after `duration` from now (`None`: beyond any tick): once it has
/// passed by [`now_tick`], so has the deadline.
pub(super) fn deadline_tick(duration: Duration) -> Option<u64> {
    #[cfg(target_os = "linux")]
    let elapsed = linux::elapsed_for(duration);
    #[cfg(not(target_os = "linux"))]
    let elapsed = elapsed_precise();
    let at = elapsed.checked_add(duration)?;
    Some(millis_floor(at) + u64::from(at.subsec_nanos() % 1_000_000 != 0))
}

/// When `tick` begins.
pub(super) fn instant_of(tick: u64) -> Instant {
    start().at + Duration::from_millis(tick)
}

fn elapsed_precise() -> Duration {
    #[cfg(target_os = "linux")]
    return linux::Raw::now().since(&start().raw);
    #[cfg(not(target_os = "linux"))]
    return start().at.elapsed();
}

/// Whole milliseconds (not `as_millis`: its 128-bit division shows in a call's profile).
fn millis_floor(d: Duration) -> u64 {
    d.as_secs() * 1000 + u64::from(d.subsec_millis())
}

#[cfg(target_os = "linux")]
mod linux {
    use std::sync::OnceLock;
    use std::time::Duration;

    /// A reading of `CLOCK_MONOTONIC` (the clock `Instant` reads on Linux) or of its coarse
    /// variant, in nanoseconds.
    pub(super) struct Raw(u64);

    impl Raw {
        pub(super) fn now() -> Raw {
            Raw(read(libc::CLOCK_MONOTONIC).expect("CLOCK_MONOTONIC is always there"))
        }

        pub(super) fn since(&self, earlier: &Raw) -> Duration {
            Duration::from_nanos(self.0.saturating_sub(earlier.0))
        }
    }

    /// The time since the start, for a deadline `duration` away: from the coarse clock
    /// plus its resolution (never behind the precise time) when the duration dwarfs that
    /// resolution, else from the precise clock.
    pub(super) fn elapsed_for(duration: Duration) -> Duration {
        let start = &super::start().raw;
        match coarse_resolution() {
            Some(res) if duration >= res * 64 => {
                let coarse = read(libc::CLOCK_MONOTONIC_COARSE).map(Raw);
                match coarse {
                    Some(now) => now.since(start) + res,
                    None => Raw::now().since(start),
                }
            }
            _ => Raw::now().since(start),
        }
    }

    /// The coarse clock's resolution, if it has a usable one.
    fn coarse_resolution() -> Option<Duration> {
        static RESOLUTION: OnceLock<Option<Duration>> = OnceLock::new();
        *RESOLUTION.get_or_init(|| {
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
            let ok = unsafe { libc::clock_getres(libc::CLOCK_MONOTONIC_COARSE, &mut ts) } == 0;
            let res = Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32);
            (ok && !res.is_zero() && res <= Duration::from_millis(20)).then_some(res)
        })
    }

    fn read(clock: libc::clockid_t) -> Option<u64> {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
        let ok = unsafe { libc::clock_gettime(clock, &mut ts) } == 0;
        ok.then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
    }
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
            // And not absurdly late: the coarse clock adds at most its resolution.
            assert!(tick <= now_tick() + ms + 1 + 25, "{ms} ms: tick {tick}");
        }
        assert_eq!(deadline_tick(Duration::MAX), None);
    }

    #[test]
    fn the_driver_wakes_into_the_tick_it_slept_for() {
        let tick = now_tick() + 2;
        std::thread::sleep(instant_of(tick).saturating_duration_since(Instant::now()));
        assert!(now_tick() >= tick);
    }
}
