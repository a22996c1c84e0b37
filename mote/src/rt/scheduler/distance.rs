//! How far another worker's core is, as a thief measures it: how long a read of a cache line
//! that worker has just written takes.
//!
//! A steal moves tasks, and the lines of their state and mailboxes, between two cores; what
//! that costs depends on how far apart the cores are, and that is not fixed. On the 2-core
//! virtual machine the suite runs on, two threads passing a line back and forth took about
//! 30 ns a round trip at some moments, 80 or 190 ns at others and 450 to 850 ns at others, the host
//! moving the two virtual CPUs between the hyperthreads of one core, the cores of one cache
//! and cores further apart every few seconds (docs/results.md, "How far apart the two cores
//! are"). Near, a thief that takes a server's callers or a fan-out's workers costs their
//! owner little and runs them in parallel (`parsum pool` in 0.59-0.66x the time of a thief
//! that waits, `call` with 100 callers 0.84x); far, steals like these ran `call` with 100
//! callers at up to 2.7 times the time, both cores busy with each other's lines. So a thief
//! judges a steal by what it cost ([`super::worker`]'s `Thief`), and this tells it the price.
//!
//! The measure is the read of the victim's task counter that the thief makes anyway right
//! after a steal, timed. It counts only when the counter moved since this thief last read
//! it: the victim wrote the line meanwhile, so this read had to fetch it from the victim's
//! cache. A worker is *near* while each of the last [`WINDOW`] such reads took at most
//! [`NEAR`]: a delay (an interrupt, the clock's own cost) only lengthens a read, so one long
//! read among them means the cores may have moved apart, and the thief goes back to its
//! careful rule until [`WINDOW`] short ones in a row say otherwise.

use std::time::{Duration, Instant};

/// The most a read of a line the victim just wrote may take for the victim to count as near
/// (the clock's two readings included, about 20-40 ns here): a core of the same cache or
/// a hyperthread of the same core answers in 30-70 ns, one further away in 150-200 ns.
pub(super) const NEAR: Duration = Duration::from_nanos(110);

/// How many reads in a row must be short for a worker to count as near.
pub(super) const WINDOW: usize = 4;

/// A thief's record of the other workers' distance.
pub(super) struct Distances {
    workers: Box<[Distance]>,
}

/// What a thief knows of one other worker.
#[derive(Clone, Copy)]
struct Distance {
    /// Its task counter when this thief last read it.
    seen: u64,
    /// The last [`WINDOW`] timed reads, in nanoseconds; `u32::MAX` where none was made yet.
    reads: [u32; WINDOW],
    /// Where the next read goes in `reads`.
    next: usize,
}

impl Distances {
    /// Nothing known of any of `workers` workers: each counts as far.
    pub(super) fn new(workers: usize) -> Distances {
        Distances {
            workers: vec![
                Distance {
                    seen: 0,
                    reads: [u32::MAX; WINDOW],
                    next: 0,
                };
                workers
            ]
            .into_boxed_slice(),
        }
    }

    /// Reads worker `victim`'s task counter with `read`, timed, and keeps the time if the
    /// counter moved since this thief's last read.
    #[inline]
    pub(super) fn measure(&mut self, victim: usize, read: impl FnOnce() -> u64) {
        let start = Instant::now();
        let tasks = read();
        let took = start.elapsed();
        self.record(victim, tasks, took);
    }

    /// Keeps `took`, the time a read of worker `victim`'s task counter that found `tasks`
    /// took, if the counter moved since the last read (a read of an unchanged counter may
    /// have been served from this thief's own cache).
    pub(super) fn record(&mut self, victim: usize, tasks: u64, took: Duration) {
        let Some(worker) = self.workers.get_mut(victim) else {
            return;
        };
        if tasks == worker.seen {
            return;
        }
        worker.seen = tasks;
        worker.reads[worker.next] = took.as_nanos().min(u128::from(u32::MAX)) as u32;
        worker.next = (worker.next + 1) % WINDOW;
    }

    /// Whether each of the last [`WINDOW`] kept reads of worker `victim`'s counter took at
    /// most [`NEAR`].
    pub(super) fn is_near(&self, victim: usize) -> bool {
        self.workers.get(victim).is_some_and(|worker| {
            worker
                .reads
                .iter()
                .all(|&ns| u128::from(ns) <= NEAR.as_nanos())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHORT: Duration = Duration::from_nanos(40);
    const LONG: Duration = Duration::from_nanos(180);

    #[test]
    fn a_worker_is_far_until_a_window_of_short_reads() {
        let mut d = Distances::new(2);
        assert!(!d.is_near(1), "nothing measured yet");
        for tasks in 1..WINDOW as u64 {
            d.record(1, tasks, SHORT);
            assert!(!d.is_near(1), "{tasks} short reads of {WINDOW}");
        }
        d.record(1, WINDOW as u64, SHORT);
        assert!(d.is_near(1));
        assert!(!d.is_near(0), "each worker on its own");
    }

    #[test]
    fn one_long_read_makes_a_worker_far_for_a_window() {
        let mut d = Distances::new(2);
        let mut tasks = 0;
        let mut read = |d: &mut Distances, took| {
            tasks += 1;
            d.record(0, tasks, took);
        };
        for _ in 0..WINDOW {
            read(&mut d, SHORT);
        }
        assert!(d.is_near(0));
        read(&mut d, LONG);
        for _ in 0..WINDOW {
            assert!(!d.is_near(0));
            read(&mut d, SHORT);
        }
        assert!(d.is_near(0), "the long read left the window");
        read(&mut d, NEAR);
        assert!(d.is_near(0), "NEAR itself is near");
    }

    #[test]
    fn a_read_of_an_unmoved_counter_is_not_kept() {
        let mut d = Distances::new(1);
        for tasks in 1..=WINDOW as u64 {
            d.record(0, tasks, SHORT);
        }
        assert!(d.is_near(0));
        // The victim ran nothing since: the line may have come from this core's own cache,
        // so even a long read says nothing (and a short one would have said nothing either).
        d.record(0, WINDOW as u64, LONG);
        assert!(d.is_near(0));
        d.record(0, WINDOW as u64 + 1, LONG);
        assert!(!d.is_near(0));
    }

    #[test]
    fn an_unknown_worker_is_far_and_ignored() {
        let mut d = Distances::new(1);
        d.record(5, 1, SHORT);
        assert!(!d.is_near(5));
    }

    #[test]
    fn measure_times_the_read() {
        let mut d = Distances::new(1);
        for tasks in 1..=WINDOW as u64 {
            d.measure(0, || {
                std::thread::sleep(Duration::from_micros(50));
                tasks
            });
        }
        assert!(!d.is_near(0), "each read took at least 50 us");
    }
}
