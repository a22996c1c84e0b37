//! How far apart two of the machine's cores are now: the round trip of one cache line
//! between two threads, each waiting for the other's write.
//!
//! On a virtual machine this is not fixed. On the suite's 2-core machine it was about 30 ns
//! at some moments (two hyperthreads of one core), 80 ns at others (two cores of one
//! cache) and 190 ns or 450 to 850 ns at others, changing every few seconds as the host
//! moved the virtual CPUs; and every runtime's speed at work that crosses between threads
//! follows it (raw
//! tokio's `parsum pool` ran in about 20 ms or 40 ms, mote's scheduler judges its steals by
//! it). `mote-bench core-distance` samples it, and the suite samples it just before every
//! run (`RunRecord::core_round_trip_ns`), so a run's figures can be read beside it.

use std::hint::spin_loop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest a sample takes: past it the sample ends early, with the round trips made.
pub const LIMIT: Duration = Duration::from_millis(100);

/// What the calling thread writes to end the echo thread early.
const STOP: u64 = u64::MAX;

/// The mean round trip of a cache line between two threads over `trips` round trips (or as
/// many as fit in [`LIMIT`]): the calling thread writes an odd number, a second thread
/// answers with the next even one.
///
/// The two threads spin: with fewer than two cores free, one waits for the other's time
/// slice and the figure says so (milliseconds, not nanoseconds), and [`LIMIT`] keeps that
/// wait short.
///
/// ```
/// use mote_bench::harness::core_distance::round_trip;
///
/// let took = round_trip(1_000);
/// assert!(took > std::time::Duration::ZERO);
/// ```
pub fn round_trip(trips: u64) -> Duration {
    if trips == 0 {
        return Duration::ZERO;
    }
    let line = Arc::new(AtomicU64::new(0));
    let echo = {
        let line = Arc::clone(&line);
        std::thread::spawn(move || {
            let mut answered = 0;
            loop {
                let seen = line.load(Ordering::Acquire);
                if seen == STOP {
                    return;
                }
                if seen == 2 * answered + 1 {
                    answered += 1;
                    line.store(2 * answered, Ordering::Release);
                } else {
                    spin_loop();
                }
            }
        })
    };
    let start = Instant::now();
    let mut made = 0;
    while made < trips {
        line.store(2 * made + 1, Ordering::Release);
        while line.load(Ordering::Acquire) != 2 * made + 2 {
            spin_loop();
        }
        made += 1;
        // The clock every 64 round trips: reading it costs about a short round trip.
        if made % 64 == 0 && start.elapsed() >= LIMIT {
            break;
        }
    }
    let took = start.elapsed();
    line.store(STOP, Ordering::Release);
    echo.join().expect("the echo thread does not panic");
    Duration::from_nanos((took.as_nanos() / u128::from(made)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_trip_takes_time_and_ends() {
        let took = round_trip(1_000);
        assert!(took > Duration::ZERO);
        assert!(took < Duration::from_secs(1), "{took:?} a round trip");
    }

    #[test]
    fn a_sample_ends_at_its_limit() {
        let start = Instant::now();
        let took = round_trip(u64::MAX / 4);
        let spent = start.elapsed();
        assert!(took > Duration::ZERO);
        assert!(spent >= LIMIT, "{spent:?}");
        assert!(spent < LIMIT * 20, "{spent:?}: the limit did not end it");
    }

    #[test]
    fn no_trips_is_no_time() {
        assert_eq!(round_trip(0), Duration::ZERO);
    }
}
