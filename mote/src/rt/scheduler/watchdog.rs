//! The watchdog: a thread that frees a task stuck in a busy worker's LIFO slot (like Go's
//! sysmon retaking a P from a long-running goroutine).
//!
//! A process woken by the running one waits in that worker's LIFO slot, which idle workers
//! cannot steal from, and no idle worker is woken for it (that would be a system call per
//! message). If the waker then computes for long without waiting, the woken process would
//! wait for it although another worker is idle. The BEAM would run it at once.
//!
//! So while any worker is awake, the watchdog looks at each worker's
//! task counter (bumped after every poll, already kept for the metrics: nothing new on the
//! hop's path) and LIFO slot. A worker whose counter has not moved since the last look
//! while the same task has sat in its slot all along is inside one long poll; if another
//! worker sleeps, the watchdog takes that task (the slot's handshake in `lifo.rs`) and puts
//! it on the global injector, which wakes a sleeper to run it. Likewise a worker inside
//! one long poll with a task in its queue (one alone wakes no sleeper when pushed, see the
//! scheduler's module docs): the watchdog wakes a sleeper, which steals it; and one with
//! tasks on its spawn stack, which no other worker takes: the watchdog moves them to the
//! global injector. The looks come every
//! [`INTERVAL`] at first and back off, doubling up to [`MAX_INTERVAL`] while they move
//! nothing, so a task is moved after at most about two of the longest intervals of waiting
//! (and after a few milliseconds when the watchdog has just moved one). Message ping-pong, whose polls are short, triggers it
//! only when the OS takes the worker's CPU away for a millisecond or more; moving the task
//! to an idle worker is then a gain too.
//!
//! The watchdog parks when every worker sleeps (no idle CPU cost), and the first worker
//! to wake unparks it: the watchdog sets `parked` then reads the idle count, a worker
//! lowers the idle count then reads `parked`, with a `SeqCst` fence between on each side,
//! so one sees the other (checked by the loom model below).

use std::sync::OnceLock;
use std::thread::Thread;
use std::time::Duration;

use crate::rt::sync::{fence, AtomicBool, Ordering};

use super::Scheduler;

/// The watchdog's first interval between looks, and its interval after it moved a task.
const INTERVAL: Duration = Duration::from_millis(1);

/// The longest interval: each look that moves nothing doubles the interval up to this, so
/// a busy runtime with nothing stuck pays about 60 wake-ups a second, not a thousand.
/// Each wake-up takes a CPU from a worker on a machine with as many CPUs as workers: at
/// a fixed 1 ms, a million-message burst took 15% longer and the `workers steal`
/// benchmark 60% (2 cores).
const MAX_INTERVAL: Duration = Duration::from_millis(16);

/// The watchdog's parking state, shared with the workers.
#[derive(Default)]
pub(super) struct Watchdog {
    parking: Parking,
    thread: OnceLock<Thread>,
}

impl Watchdog {
    /// Called by a worker after it left its sleep (and lowered the idle count): unparks the
    /// watchdog if it parked.
    #[inline]
    pub(super) fn worker_awake(&self) {
        if self.parking.should_unpark() {
            if let Some(thread) = self.thread.get() {
                thread.unpark();
            }
        }
    }
}

/// The handshake between a parking watchdog and a waking worker, apart from the thread
/// handles (so that loom can check it).
#[derive(Default)]
struct Parking {
    parked: AtomicBool,
}

impl Parking {
    /// The watchdog's side: if `all_idle`, parks (with `park`, which may return spuriously)
    /// until a worker that woke since clears `parked`.
    fn park_while_idle(&self, all_idle: impl Fn() -> bool, park: impl Fn()) {
        if !all_idle() {
            return;
        }
        self.parked.store(true, Ordering::Relaxed);
        // Orders the store before the look at the idle count: pairs with the worker's fence.
        fence(Ordering::SeqCst);
        if all_idle() {
            // A worker that wakes after our look sees `parked`, clears it and unparks us
            // (an unpark before the park is kept, so it cannot be lost).
            while self.parked.load(Ordering::Acquire) {
                park();
            }
        } else {
            self.parked.store(false, Ordering::Relaxed);
        }
    }

    /// The worker's side, after it lowered the idle count: whether it must unpark the
    /// watchdog (it cleared `parked`).
    #[inline]
    fn should_unpark(&self) -> bool {
        // Orders the idle count's decrement before the look at `parked`.
        fence(Ordering::SeqCst);
        self.parked.load(Ordering::Relaxed) && self.parked.swap(false, Ordering::AcqRel)
    }
}

/// The watchdog thread's loop (never returns).
pub(super) fn run(scheduler: &Scheduler) {
    let watchdog = &scheduler.watchdog;
    let _ = watchdog.thread.set(std::thread::current());
    let workers = scheduler.lifos.len();
    // Per worker: its task count, its slot's task and whether its queue and its spawn stack
    // held a task, at the last look.
    let mut last: Vec<(u64, *mut (), bool, bool)> =
        vec![(0, std::ptr::null_mut(), false, false); workers];
    let mut interval = INTERVAL;
    loop {
        watchdog
            .parking
            .park_while_idle(|| scheduler.sleepers.idle() == workers, std::thread::park);
        std::thread::sleep(interval);
        interval = (interval * 2).min(MAX_INTERVAL);
        let someone_sleeps = scheduler.sleepers.idle() > 0;
        for (index, last) in last.iter_mut().enumerate() {
            let now = (
                scheduler.stats[index].tasks.load(Ordering::Relaxed),
                scheduler.lifos[index].peek(),
                !scheduler.stealers[index].is_empty(),
                !scheduler.stacks[index].is_empty(),
            );
            // The owner has run no task since the last look and its queue held a task at
            // both looks: the same task, waiting behind one long poll. Wake a sleeper to
            // steal it.
            if someone_sleeps && now.2 && now.0 == last.0 && last.2 {
                scheduler.notify();
                interval = INTERVAL;
            }
            // Likewise tasks on its spawn stack, which no idle worker takes: move them all
            // to the injector (whose pushes wake sleepers).
            if someone_sleeps && now.3 && now.0 == last.0 && last.3 {
                while let Some(task) = scheduler.stacks[index].steal().success() {
                    scheduler.inject(task);
                }
                interval = INTERVAL;
            }
            if someone_sleeps && !now.1.is_null() && (now.0, now.1) == (last.0, last.1) {
                // Stuck behind a poll that has lasted since the last look. If the owner is at
                // its slot right now (it just finished the poll), leave the task to it.
                if let Ok(Some(task)) = scheduler.lifos[index].steal() {
                    scheduler.inject(task);
                    interval = INTERVAL;
                }
            }
            *last = now;
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::rt::sync::AtomicUsize;
    use loom::sync::Arc;
    use loom::thread;

    /// The one worker wakes (lowers the idle count) while the watchdog decides to park: the
    /// watchdog always ends up running (a missed unpark leaves it parked forever, which loom
    /// reports as a deadlock). Fails without the worker's fence.
    #[test]
    fn loom_watchdog_never_misses_a_waking_worker() {
        loom::model(|| {
            let parking = Arc::new(Parking::default());
            let idle = Arc::new(AtomicUsize::new(1));
            let watchdog = {
                let (parking, idle) = (Arc::clone(&parking), Arc::clone(&idle));
                thread::spawn(move || {
                    parking.park_while_idle(|| idle.load(Ordering::Relaxed) == 1, thread::park)
                })
            };
            idle.fetch_sub(1, Ordering::SeqCst);
            if parking.should_unpark() {
                watchdog.thread().unpark();
            }
            watchdog.join().unwrap();
        });
    }
}
