//! The watchdog: a thread that frees a task stuck in a busy worker's LIFO slot (like Go's
//! sysmon retaking a P from a long-running goroutine).
//!
//! A process woken by the running one waits in that worker's LIFO slot, which idle workers
//! cannot steal from, and no idle worker is woken for it (that would be a system call per
//! message). If the waker then computes for long without waiting, the woken process would
//! wait for it although another worker is idle. The BEAM would run it at once.
//!
//! So while any worker is awake, the watchdog looks every [`INTERVAL`] at each worker's
//! task counter (bumped after every poll, already kept for the metrics: nothing new on the
//! hop's path) and LIFO slot. A worker whose counter has not moved since the last look
//! while the same task has sat in its slot all along is inside one long poll; if another
//! worker sleeps, the watchdog takes that task (the slot's handshake in `lifo.rs`) and puts
//! it on the global injector, which wakes a sleeper to run it. A task is so moved at most
//! after two intervals of waiting; message ping-pong never triggers it, as its polls are
//! short.
//!
//! The watchdog parks when every worker sleeps (no idle CPU cost), and the first worker
//! to wake unparks it: the watchdog sets `parked` then reads the idle count, a worker
//! lowers the idle count then reads `parked`, both `SeqCst`, so one sees the other.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::thread::Thread;
use std::time::Duration;

use super::Scheduler;

/// How often the watchdog looks: a task waits at most about twice this behind a long poll.
const INTERVAL: Duration = Duration::from_millis(1);

/// The watchdog's parking state, shared with the workers.
#[derive(Default)]
pub(super) struct Watchdog {
    parked: AtomicBool,
    thread: OnceLock<Thread>,
}

impl Watchdog {
    /// Called by a worker after it left its sleep: unparks the watchdog if it parked.
    #[inline]
    pub(super) fn worker_awake(&self) {
        if self.parked.load(Ordering::SeqCst) && self.parked.swap(false, Ordering::SeqCst) {
            if let Some(thread) = self.thread.get() {
                thread.unpark();
            }
        }
    }
}

/// The watchdog thread's loop (never returns).
pub(super) fn run(scheduler: &Scheduler) {
    let watchdog = &scheduler.watchdog;
    let _ = watchdog.thread.set(std::thread::current());
    let workers = scheduler.lifos.len();
    // Per worker: its task count and its slot's task at the last look.
    let mut last: Vec<(u64, *mut ())> = vec![(0, std::ptr::null_mut()); workers];
    loop {
        if scheduler.sleepers.idle() == workers {
            watchdog.parked.store(true, Ordering::SeqCst);
            if scheduler.sleepers.idle() == workers {
                // A worker that wakes after our look clears `parked` and unparks us (an
                // unpark before the park is kept, so it cannot be lost).
                while watchdog.parked.load(Ordering::SeqCst) {
                    std::thread::park();
                }
            } else {
                watchdog.parked.store(false, Ordering::SeqCst);
            }
        }
        std::thread::sleep(INTERVAL);
        let someone_sleeps = scheduler.sleepers.idle() > 0;
        for (index, last) in last.iter_mut().enumerate() {
            let now = (
                scheduler.stats[index].tasks.load(Ordering::Relaxed),
                scheduler.lifos[index].peek(),
            );
            if someone_sleeps && !now.1.is_null() && now == *last {
                // Stuck behind a poll that has lasted since the last look. If the owner is at
                // its slot right now (it just finished the poll), leave the task to it.
                if let Ok(Some(task)) = scheduler.lifos[index].steal() {
                    scheduler.inject(task);
                }
            }
            *last = now;
        }
    }
}
