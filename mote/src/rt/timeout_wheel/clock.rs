//! The clock of timeouts: ticks (milliseconds) since a fixed start.
//!
//! Every reading is the precise monotonic clock (the one `Instant` reads), or, for a
//! timeout being armed, a bound above it read from the time-stamp counter (below). A coarse
//! clock (`CLOCK_MONOTONIC_COARSE` plus its resolution) was tried for long timeouts, since
//! a precise read is about 6% of a `server::call` round trip; but in a virtual machine the
//! coarse clock can lag the precise one by more than its stated resolution (a delayed
//! kernel tick), and a timeout armed from it then fired early. A timeout that fires
//! early breaks the BEAM's promise. The counter has no such lag: it is what the kernel
//! itself reads for the precise clock.
//!
//! On Linux the reading is `clock_gettime(CLOCK_MONOTONIC)` itself (the clock `Instant` reads
//! there), kept as whole nanoseconds: `Instant::elapsed` and the `Duration` arithmetic
//! around it (a checked timespec subtraction, checked additions, millisecond splits) cost
//! as much again as the read, a further 3% of a one-caller `server::call`.
//!
//! A timeout armed soon after another on the same thread need not read that clock at all
//! ([`upper_nanos`], x86-64 Linux with the kernel's clock on the time-stamp counter): the
//! counter (`rdtsc`, half the cost of `clock_gettime` here, which reads it too) says that
//! less than [`SLACK_NANOS`] has passed since the thread's last precise reading, so that
//! reading plus the slack is no earlier than now, and the timeout armed from it is never
//! early, at most the slack (a quarter of a tick) late. The precise read was 8% of a
//! one-caller `server::call` (1M calls: 210 ms, 193 ms with no clock read at all, 199.5 ms
//! with the counter). What that rests on: the kernel keeps the counter in step across
//! processors and steady (it must, to read its own clock from it, which is why the fast
//! path is on only when the kernel's clocksource is `tsc`); the counter's rate, measured
//! once from two readings 20 ms apart, is assumed only to a factor of four; and each
//! later pair of a thread's precise readings checks that assumption, turning the fast path
//! off for good if the counter went back or ran slower.

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

/// How far above the precise clock [`upper_nanos`] may read: a timeout armed from it ends
/// up to this much late, never early.
const SLACK_NANOS: u64 = 250_000;

/// [`raw_nanos`] or a little more: a reading no earlier than the precise clock's now, and
/// at most [`SLACK_NANOS`] above it. From the time-stamp counter when this thread read the
/// precise clock less than a quarter of the slack ago (by the counter's measured rate: the
/// counter would have to run four times slower than measured for the slack to pass
/// meanwhile), else precise.
#[inline]
fn upper_nanos() -> u64 {
    #[cfg(all(target_os = "linux", target_arch = "x86_64", not(miri)))]
    {
        let window = tsc::WINDOW.load(std::sync::atomic::Ordering::Relaxed);
        // Neither 0 (not measured yet) nor `tsc::OFF`.
        if window.wrapping_add(1) > 1 {
            if let Some((tsc, nanos)) = tsc::LAST.with(std::cell::Cell::get) {
                if tsc::read().wrapping_sub(tsc) < window {
                    return nanos + SLACK_NANOS;
                }
            }
        }
        tsc::precise()
    }
    #[cfg(not(all(target_os = "linux", target_arch = "x86_64", not(miri))))]
    raw_nanos()
}

/// The time-stamp counter's side of [`upper_nanos`].
#[cfg(all(target_os = "linux", target_arch = "x86_64", not(miri)))]
mod tsc {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;

    use super::{raw_nanos, SLACK_NANOS};

    thread_local! {
        /// This thread's last precise reading, and the counter read just before it.
        pub(super) static LAST: Cell<Option<(u64, u64)>> = const { Cell::new(None) };
    }

    /// Counter ticks that take less than a quarter of [`SLACK_NANOS`] at the measured rate;
    /// 0 while not measured yet, [`OFF`] once the counter is not to be used. It moves only
    /// from 0 (to a window or to `OFF`) and from a window to `OFF`, so off is for good.
    pub(super) static WINDOW: AtomicU64 = AtomicU64::new(0);
    /// [`WINDOW`]'s value once the counter proved unusable (see [`check`]).
    pub(super) const OFF: u64 = u64::MAX;

    /// How long apart the two readings that measure the counter's rate are, at least.
    const MEASURE_NANOS: u64 = 20_000_000;

    /// The counter.
    #[inline]
    pub(super) fn read() -> u64 {
        // SAFETY: `rdtsc` exists on every x86-64 processor and has no side effect.
        unsafe { core::arch::x86_64::_rdtsc() }
    }

    /// A precise reading, remembered with the counter read just before it: the counter
    /// then says how long ago, at least, the reading was taken (a later read of the
    /// precise clock would be no earlier than it).
    #[inline(never)]
    pub(super) fn precise() -> u64 {
        let tsc = read();
        let nanos = raw_nanos();
        let after = read();
        if let Some((tsc0, nanos0)) = LAST.with(Cell::get) {
            check(tsc0, nanos0, after, nanos);
        }
        LAST.with(|l| l.set(Some((tsc, nanos))));
        if WINDOW.load(Ordering::Relaxed) == 0 {
            measure(tsc, nanos, after);
        }
        nanos
    }

    /// Measures the counter's rate from the first reading and one at least
    /// [`MEASURE_NANOS`] later, and turns the fast path on, if the counter is [`usable`].
    /// The rate is measured low, whatever the thread was preempted for between reads:
    /// from the counter read after the first precise reading (`after`) to the one read
    /// before the second (`tsc`), fewer ticks than passed between the two readings.
    #[cold]
    fn measure(tsc: u64, nanos: u64, after: u64) {
        static FIRST: OnceLock<Option<(u64, u64)>> = OnceLock::new();
        let first = FIRST.get_or_init(|| usable().then_some((after, nanos)));
        let w = match *first {
            None => OFF,
            Some((_, nanos0)) if nanos < nanos0 + MEASURE_NANOS => return,
            Some((after0, nanos0)) => window(after0, nanos0, tsc, nanos).unwrap_or(OFF),
        };
        // Only from "not measured yet": a window another thread measured, or `OFF`, stays.
        let _ = WINDOW.compare_exchange(0, w, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Whether the kernel reads its own clock from the counter, and the processor says the
    /// counter runs at a constant rate and through sleep states.
    ///
    /// The processor's word is CPUID's "invariant TSC" bit (leaf 0x8000_0007, EDX bit 8),
    /// the bit from which Linux sets both `constant_tsc` and `nonstop_tsc` in
    /// `/proc/cpuinfo`, which this read before: that file is several KiB per core, read
    /// into a heap string by the first worker that armed a timeout, two pages of peak RSS
    /// in a small program (see docs/design.md "Baseline memory").
    pub(super) fn usable() -> bool {
        const POWER_LEAF: u32 = 0x8000_0007;
        const INVARIANT_TSC: u32 = 1 << 8;
        source_is_tsc()
            && core::arch::x86_64::__cpuid(0x8000_0000).eax >= POWER_LEAF
            && core::arch::x86_64::__cpuid(POWER_LEAF).edx & INVARIANT_TSC != 0
    }

    /// The file naming the kernel's current clock source.
    pub(super) const CLOCK_SOURCE: &str =
        "/sys/devices/system/clocksource/clocksource0/current_clocksource";

    /// Whether the kernel's clock source is the counter. Read into a buffer on the stack:
    /// `read_to_string` sizes its heap buffer by the file's stated size, a page for a
    /// sysfs file. A sysfs attribute comes whole in one read; a short or failed read only
    /// turns the fast path off.
    fn source_is_tsc() -> bool {
        use std::io::Read;
        let mut buf = [0u8; 16];
        let len = std::fs::File::open(CLOCK_SOURCE)
            .and_then(|mut file| file.read(&mut buf))
            .unwrap_or(0);
        buf[..len].trim_ascii() == b"tsc"
    }

    /// Counter ticks in a quarter of [`SLACK_NANOS`], at the rate of two readings.
    pub(super) fn window(tsc0: u64, nanos0: u64, tsc: u64, nanos: u64) -> Option<u64> {
        let ticks = u128::from(tsc.checked_sub(tsc0)?);
        let nanos = u128::from(nanos.checked_sub(nanos0)?);
        let w = ticks * u128::from(SLACK_NANOS / 4) / nanos.max(1);
        u64::try_from(w).ok().filter(|w| *w > 0 && *w != OFF)
    }

    /// Turns the fast path off for good if a thread's precise readings show the counter
    /// went back, or ran slower than the window assumes (a quarter of the measured rate):
    /// `nanos - nanos0` passed between the earlier reading (taken after the counter read
    /// `tsc0`) and the later one (taken before the counter read `tsc_after`), so at most
    /// `tsc_after - tsc0` ticks, which the window says take at most that many ticks times
    /// `SLACK_NANOS / window` nanoseconds. A thread preempted between the reads stretches
    /// both sides alike.
    fn check(tsc0: u64, nanos0: u64, tsc_after: u64, nanos: u64) {
        let window = WINDOW.load(Ordering::Relaxed);
        if window != 0 && window != OFF && !keeps_pace(window, tsc0, nanos0, tsc_after, nanos) {
            WINDOW.store(OFF, Ordering::Relaxed);
        }
    }

    /// Whether the counter ran at least at the rate `window` assumes between two readings
    /// (see [`check`]).
    pub(super) fn keeps_pace(
        window: u64,
        tsc0: u64,
        nanos0: u64,
        tsc_after: u64,
        nanos: u64,
    ) -> bool {
        let Some(ticks) = tsc_after.checked_sub(tsc0) else {
            return false;
        };
        let passed = nanos.saturating_sub(nanos0);
        u128::from(passed) * u128::from(window) <= u128::from(ticks) * u128::from(SLACK_NANOS)
    }
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
    deadline_at(elapsed_nanos(), duration)
}

/// Durations up to this many seconds (about 34 years) take the nanosecond arithmetic; longer
/// ones, the `Duration` arithmetic (a u64 of nanoseconds would overflow).
const FAST_SECS: u64 = 1 << 30;

/// [`deadline_tick`] and [`now_tick`] from one reading, for a timeout being armed: from
/// [`upper_nanos`], so the deadline may be up to [`SLACK_NANOS`] later than
/// `deadline_tick`'s and the tick no earlier than the one that has passed (it only ever
/// serves to tell that a tick has not passed yet).
#[inline]
pub(super) fn deadline_and_now(duration: Duration) -> Option<(u64, u64)> {
    let origin = start().0;
    let elapsed = upper_nanos().saturating_sub(origin);
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

    /// A timeout's reading is never below the precise clock, nor more than the slack above
    /// it, whether it comes from the counter or not; on a machine whose kernel clock is the
    /// counter, most come from the counter once its rate is measured.
    #[test]
    fn a_timeouts_reading_is_never_early_and_at_most_the_slack_late() {
        // Two precise readings more than the measuring span apart measure the rate.
        let _ = upper_nanos();
        std::thread::sleep(Duration::from_millis(25));
        let _ = upper_nanos();
        let mut from_counter = 0;
        // Few under miri, which runs without the counter and reads its clock slowly.
        let rounds = if cfg!(miri) { 100 } else { 200_000 };
        for _ in 0..rounds {
            let before = raw_nanos();
            let reading = upper_nanos();
            let after = raw_nanos();
            assert!(reading >= before, "{reading} is below {before}");
            assert!(
                reading <= after + SLACK_NANOS,
                "{reading} is above {after} + slack"
            );
            from_counter += u32::from(reading > after);
        }
        #[cfg(all(target_os = "linux", target_arch = "x86_64", not(miri)))]
        if tsc::usable() {
            assert!(
                from_counter > rounds / 2,
                "{from_counter} of {rounds} from the counter"
            );
        }
        let _ = from_counter;
    }

    /// CPUID's invariant-TSC bit says what the kernel's `constant_tsc` and `nonstop_tsc`
    /// flags say (the kernel sets both from it).
    #[cfg(all(target_os = "linux", target_arch = "x86_64", not(miri)))]
    #[test]
    fn cpuid_agrees_with_the_kernels_flags() {
        let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
            return;
        };
        let first = info.lines().find(|l| l.starts_with("flags")).unwrap_or("");
        let has = |flag| first.split_whitespace().any(|w| w == flag);
        let kernel = has("constant_tsc") && has("nonstop_tsc");
        let clocksource =
            std::fs::read_to_string(tsc::CLOCK_SOURCE).is_ok_and(|s| s.trim() == "tsc");
        assert_eq!(tsc::usable(), kernel && clocksource);
    }

    /// The rate is measured from two readings; a counter that went back, or ran slower
    /// than a quarter of the measured rate, turns the fast path off.
    #[cfg(all(target_os = "linux", target_arch = "x86_64", not(miri)))]
    #[test]
    fn the_counters_window_and_its_check() {
        // 2.6 ticks a nanosecond: a quarter of the slack is 62.5 us, 162,500 ticks.
        let w = tsc::window(1_000, 5_000, 1_000 + 26_000_000, 5_000 + 10_000_000).unwrap();
        assert_eq!(w, 162_500);
        assert_eq!(tsc::window(1_000, 0, 999, 10_000_000), None, "went back");
        assert_eq!(tsc::window(0, 0, 0, 10_000_000), None, "stood still");
        // The window's promise: `w` ticks take less than the slack, so ticks come at least
        // at w / SLACK a nanosecond (a quarter of the measured rate).
        let ms = 1_000_000;
        assert!(
            tsc::keeps_pace(w, 0, 0, 2_600_000, ms),
            "at the measured rate"
        );
        assert!(tsc::keeps_pace(w, 0, 0, 650_000, ms), "at a quarter of it");
        assert!(!tsc::keeps_pace(w, 0, 0, 649_000, ms), "slower");
        assert!(!tsc::keeps_pace(w, 10, 0, 9, ms), "went back");
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
