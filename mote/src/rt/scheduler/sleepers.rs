//! How idle workers sleep and how new work wakes one: the protocol that must never lose a
//! wake-up (a worker asleep while work waits), checked by a loom model below.
//!
//! A sleeper counts itself idle, then looks for work, then waits; a notifier makes its work
//! visible, then looks at the idle count and wakes one sleeper if there is any. Both sides
//! write one thing and then read the other's, with `SeqCst` ordering in between (the
//! notifier's fence, the sleeper's fence after its increment), so at least one of them
//! sees the other: either the sleeper finds the work, or the notifier finds the sleeper.
//! The notifier wakes under the lock the sleeper holds from its increment until it waits,
//! so the wake cannot fall between the sleeper's look and its wait.

use crate::rt::sync::{fence, AtomicU64, AtomicUsize, Condvar, Mutex, Ordering};

pub(crate) struct Sleepers {
    idle: AtomicUsize,
    lock: Mutex<()>,
    wakeup: Condvar,
    /// Wake-ups issued, for the metrics: written only under `lock`.
    wakeups: AtomicU64,
}

impl Sleepers {
    pub(crate) fn new() -> Self {
        Sleepers {
            idle: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wakeup: Condvar::new(),
            wakeups: AtomicU64::new(0),
        }
    }

    /// Wakes one sleeping worker if there is one. Called after making work visible.
    #[inline]
    pub(crate) fn notify(&self) {
        fence(Ordering::SeqCst);
        if self.idle.load(Ordering::Relaxed) != 0 {
            let _guard = self.lock.lock();
            // The lock orders the writers: a load and a store, no locked instruction.
            let wakeups = self.wakeups.load(Ordering::Relaxed);
            self.wakeups.store(wakeups + 1, Ordering::Relaxed);
            self.wakeup.notify_one();
        }
    }

    /// Wake-ups sent so far: calls of [`Sleepers::notify`] that found a worker counted idle
    /// (asleep, or about to sleep and perhaps finding the work itself).
    pub(crate) fn wakeups(&self) -> u64 {
        self.wakeups.load(Ordering::Relaxed)
    }

    /// How many workers are asleep or about to sleep (for the watchdog).
    pub(crate) fn idle(&self) -> usize {
        self.idle.load(Ordering::SeqCst)
    }

    /// Blocks the calling worker until there may be work: returns at once if `has_work`
    /// finds some after this worker counted itself idle. May return spuriously; callers
    /// look for work again. If it does wait, `asleep` runs just before and `awake` (with
    /// what `asleep` returned) just after (the metrics' sleep time).
    pub(crate) fn sleep<T>(
        &self,
        has_work: impl FnOnce() -> bool,
        asleep: impl FnOnce() -> T,
        awake: impl FnOnce(T),
    ) {
        let guard = self.lock.lock();
        self.idle.fetch_add(1, Ordering::SeqCst);
        // Orders the increment before the look at the work (an RMW alone orders it only
        // on some hardware): pairs with the notifier's fence.
        fence(Ordering::SeqCst);
        let guard = if has_work() {
            guard
        } else {
            let token = asleep();
            let guard = self.wakeup.wait(guard);
            awake(token);
            guard
        };
        self.idle.fetch_sub(1, Ordering::SeqCst);
        drop(guard);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicBool;
    use loom::sync::Arc;
    use loom::thread;

    /// A worker that finds no work goes to sleep while another thread queues work and
    /// notifies: the worker always ends up running it (a lost wake-up would leave it asleep
    /// forever, which loom reports as a deadlock).
    #[test]
    fn loom_no_lost_wakeup() {
        loom::model(|| {
            let sleepers = Arc::new(Sleepers::new());
            let work = Arc::new(AtomicBool::new(false));
            let worker = {
                let (sleepers, work) = (Arc::clone(&sleepers), Arc::clone(&work));
                thread::spawn(move || {
                    while !work.load(Ordering::Acquire) {
                        sleepers.sleep(|| work.load(Ordering::Acquire), || (), |()| ());
                    }
                })
            };
            work.store(true, Ordering::Release);
            sleepers.notify();
            worker.join().unwrap();
        });
    }

    /// The scheduler's rule for worker queues: a push wakes a sleeper only once the queue
    /// holds [`WAKE_AT`](super::super::WAKE_AT) tasks, and a sleeper stays up for another
    /// worker's queue only if it holds that many (a lone task is its owner's to run). Here
    /// the owner pushes two tasks, notifying by the rule with `notify_at`, and then stays
    /// inside a long poll (it never runs its queue): the other worker, looking for work or
    /// asleep, must take one (a queue the sleeper was not woken for but does not wait on
    /// would leave it asleep forever, which loom reports as a deadlock).
    fn queued_tasks_wake_a_sleeper(notify_at: usize) {
        use super::super::WAKE_AT;
        loom::model(move || {
            let sleepers = Arc::new(Sleepers::new());
            // The owner's queue length.
            let queue = Arc::new(AtomicUsize::new(0));
            let thief = {
                let (sleepers, queue) = (Arc::clone(&sleepers), Arc::clone(&queue));
                thread::spawn(move || loop {
                    let n = queue.load(Ordering::Acquire);
                    if n >= WAKE_AT {
                        if queue
                            .compare_exchange(n, n - 1, Ordering::AcqRel, Ordering::Acquire)
                            .is_ok()
                        {
                            return;
                        }
                        continue;
                    }
                    sleepers.sleep(|| queue.load(Ordering::Acquire) >= WAKE_AT, || (), |()| ());
                })
            };
            for _ in 0..2 {
                if queue.fetch_add(1, Ordering::Release) + 1 >= notify_at {
                    sleepers.notify();
                }
            }
            thief.join().unwrap();
        });
    }

    /// With `WAKE_AT + 1` instead (the push wakes at one task more than the sleeper looks
    /// for), loom reports the deadlock. That variant is not kept as a `should_panic` test:
    /// loom's deadlock panic aborts the test process.
    #[test]
    fn loom_a_second_queued_task_wakes_a_sleeper() {
        queued_tasks_wake_a_sleeper(super::super::WAKE_AT);
    }

    /// Two workers asleep, two pieces of work, each notified: both run.
    #[test]
    fn loom_two_workers_two_notifies() {
        loom::model(|| {
            let sleepers = Arc::new(Sleepers::new());
            let work = Arc::new(AtomicUsize::new(0));
            let workers: Vec<_> = (0..2)
                .map(|_| {
                    let (sleepers, work) = (Arc::clone(&sleepers), Arc::clone(&work));
                    thread::spawn(move || loop {
                        let n = work.load(Ordering::Acquire);
                        if n > 0 {
                            if work
                                .compare_exchange(n, n - 1, Ordering::AcqRel, Ordering::Acquire)
                                .is_ok()
                            {
                                return;
                            }
                            continue;
                        }
                        sleepers.sleep(|| work.load(Ordering::Acquire) > 0, || (), |()| ());
                    })
                })
                .collect();
            for _ in 0..2 {
                work.fetch_add(1, Ordering::Release);
                sleepers.notify();
            }
            workers.into_iter().for_each(|w| w.join().unwrap());
        });
    }
}
