//! How idle workers sleep and how new work wakes one: the protocol that must never lose a
//! wake-up (a worker asleep while work waits), checked by the loom models below.
//!
//! A sleeper counts itself idle, then looks for work, then waits; a notifier makes its work
//! visible, then looks at the idle count and wakes one sleeper if there is any. Both sides
//! write one thing and then read the other's, with `SeqCst` ordering in between (the
//! notifier's fence, the sleeper's fence after its increment), so at least one of them
//! sees the other: either the sleeper finds the work, or the notifier finds the sleeper.
//! The notifier wakes under the lock the sleeper holds from its increment until it waits,
//! so the wake cannot fall between the sleeper's look and its wait.
//!
//! A task in a worker's LIFO slot is not announced (a wake-up per message would cost the
//! message round trip most of its speed), so no notify covers it. Instead, while any worker
//! is awake and another sleeps, one sleeper is the *watcher*: it sleeps with a timeout, and
//! on each timeout looks for a LIFO slot whose owner has been stuck in one poll since the
//! previous look, and takes that task. The others sleep without a timeout, so an idle
//! scheduler makes no wake-ups at all. Who watches is decided under the lock, where the
//! idle count is exact: a sleeper becomes the watcher if there is none and some worker is
//! awake. A worker that leaves its sleep while other workers sleep and there is no watcher
//! (it was the watcher, or the first worker woken in an idle scheduler) owes one, its
//! [`Duty`]: it wakes a sleeper (which then finds some worker awake and watches) before it
//! runs a task if other workers are awake, since one of them may already be stuck, and
//! otherwise before its first LIFO push, since until then nothing can be stuck behind it.

use std::time::Duration;

use crate::rt::sync::{fence, AtomicUsize, Condvar, Mutex, Ordering};

pub(crate) struct Sleepers {
    idle: AtomicUsize,
    /// All the workers, awake or asleep.
    workers: usize,
    lock: Mutex<State>,
    wakeup: Condvar,
}

/// What the lock guards besides the wait itself.
struct State {
    /// A sleeper is waiting with a timeout, to look at the LIFO slots.
    watcher: bool,
}

/// What a worker that left [`Sleepers::sleep`] owes the others: a watcher, if there was
/// none while others sleep. It calls [`Sleepers::ensure_watcher`] at the moment named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Duty {
    /// Nothing: there is a watcher, or no worker sleeps.
    None,
    /// Before its first LIFO push (it is the only worker awake).
    BeforeLifo,
    /// Before it runs its next task (other workers are awake).
    BeforeRun,
}

/// How a worker left [`Sleepers::sleep`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Woke {
    /// It was the watcher and its timeout ran out: time to look at the LIFO slots.
    pub(crate) watched: bool,
    pub(crate) duty: Duty,
}

impl Sleepers {
    pub(crate) fn new(workers: usize) -> Self {
        Sleepers {
            idle: AtomicUsize::new(0),
            workers,
            lock: Mutex::new(State { watcher: false }),
            wakeup: Condvar::new(),
        }
    }

    /// Wakes one sleeping worker if there is one. Called after making work visible.
    #[inline]
    pub(crate) fn notify(&self) {
        fence(Ordering::SeqCst);
        if self.idle.load(Ordering::Relaxed) != 0 {
            let _guard = self.lock.lock();
            self.wakeup.notify_one();
        }
    }

    /// Wakes a sleeper if some worker sleeps and none watches: it finds the caller awake
    /// and becomes the watcher (or finds work). The caller's [`Duty`].
    #[cold]
    pub(crate) fn ensure_watcher(&self) {
        let state = self.lock.lock();
        if !state.watcher && self.idle.load(Ordering::Relaxed) != 0 {
            self.wakeup.notify_one();
        }
        drop(state);
    }

    /// Blocks the calling worker until there may be work: returns at once if `has_work`
    /// finds some after this worker counted itself idle. May return spuriously; callers
    /// look for work again. If it does wait, `asleep` runs just before and `awake` (with
    /// what `asleep` returned) just after (the metrics' sleep time). A watcher waits
    /// `watch_period` at most.
    pub(crate) fn sleep<T>(
        &self,
        has_work: impl FnOnce() -> bool,
        asleep: impl FnOnce() -> T,
        awake: impl FnOnce(T),
        watch_period: Duration,
    ) -> Woke {
        let mut state = self.lock.lock();
        let idle = self.idle.fetch_add(1, Ordering::SeqCst) + 1;
        // Orders the increment before the look at the work (an RMW alone orders it only
        // on some hardware): pairs with the notifier's fence.
        fence(Ordering::SeqCst);
        let mut watched = false;
        if !has_work() {
            let token = asleep();
            if !state.watcher && idle < self.workers {
                // Some worker is awake (every sleeper counts itself under this lock), and it
                // may fill its LIFO slot and then compute for a long time.
                state.watcher = true;
                let (guard, timed_out) = self.wakeup.wait_timeout(&self.lock, state, watch_period);
                state = guard;
                state.watcher = false;
                watched = timed_out;
            } else {
                state = self.wakeup.wait(state);
            }
            awake(token);
        }
        let idle = self.idle.fetch_sub(1, Ordering::SeqCst) - 1;
        let duty = if state.watcher || idle == 0 {
            Duty::None
        } else if idle + 1 < self.workers {
            Duty::BeforeRun
        } else {
            Duty::BeforeLifo
        };
        drop(state);
        Woke { watched, duty }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicBool;
    use loom::sync::Arc;
    use loom::thread;

    use crate::rt::scheduler::lifo::{LifoSlot, RawTask};
    use std::ptr::NonNull;

    /// Loom does not model time; the timed waits time out at once.
    const PERIOD: Duration = Duration::from_millis(1);

    /// A worker that finds no work goes to sleep while another thread queues work and
    /// notifies: the worker always ends up running it (a lost wake-up would leave it asleep
    /// forever, which loom reports as a deadlock).
    #[test]
    fn loom_no_lost_wakeup() {
        loom::model(|| {
            // One worker: it never watches (no other worker is ever awake).
            let sleepers = Arc::new(Sleepers::new(1));
            let work = Arc::new(AtomicBool::new(false));
            let worker = {
                let (sleepers, work) = (Arc::clone(&sleepers), Arc::clone(&work));
                thread::spawn(move || {
                    while !work.load(Ordering::Acquire) {
                        sleepers.sleep(|| work.load(Ordering::Acquire), || (), |()| (), PERIOD);
                    }
                })
            };
            work.store(true, Ordering::Release);
            sleepers.notify();
            worker.join().unwrap();
        });
    }

    /// Two workers asleep, two pieces of work, each notified: both run.
    #[test]
    fn loom_two_workers_two_notifies() {
        loom::model(|| {
            let sleepers = Arc::new(Sleepers::new(2));
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
                        sleepers.sleep(|| work.load(Ordering::Acquire) > 0, || (), |()| (), PERIOD);
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

    /// A stand-in task: the slot only moves its pointer.
    struct Task;

    impl RawTask for Task {
        fn into_raw(self) -> NonNull<()> {
            NonNull::dangling()
        }
        unsafe fn from_raw(_: NonNull<()>) -> Self {
            Task
        }
    }

    /// Two workers and work queued from outside. Whoever takes the work wakes a process into
    /// its LIFO slot and then computes until that process has run, without ever yielding
    /// (the case of `woken_process_runs_while_its_waker_computes`). The other worker must
    /// end up watching and take the task: one asleep without a timeout meanwhile would never
    /// come back (a lost wake-up; loom reports the owner's endless wait). Either may be
    /// asleep without a timeout when the work comes, since both were idle before it, which
    /// is where a worker owes a watcher ([`Duty`]).
    #[test]
    fn loom_stuck_lifo_task_is_taken_by_the_idle_worker() {
        loom::model(|| {
            let sleepers = Arc::new(Sleepers::new(2));
            let injected = Arc::new(AtomicBool::new(false));
            let slots = Arc::new([LifoSlot::<Task>::new(true), LifoSlot::new(true)]);
            let ran = Arc::new(AtomicBool::new(false));
            let workers: Vec<_> = (0..2)
                .map(|me| {
                    let (sleepers, injected, slots, ran) = (
                        Arc::clone(&sleepers),
                        Arc::clone(&injected),
                        Arc::clone(&slots),
                        Arc::clone(&ran),
                    );
                    thread::spawn(move || {
                        // Workers start awake, so as if woken with no watcher around.
                        let mut woke = Woke {
                            watched: false,
                            duty: Duty::BeforeLifo,
                        };
                        loop {
                            if injected.swap(false, Ordering::AcqRel) {
                                if woke.duty != Duty::None {
                                    sleepers.ensure_watcher();
                                }
                                assert!(slots[me].push(Task).is_none());
                                while !ran.load(Ordering::Acquire) {
                                    thread::yield_now();
                                }
                                return;
                            }
                            // A watcher's look after its timeout (here every slot counts as
                            // stuck: the owner's poll counter is not modelled).
                            if woke.watched && slots[1 - me].steal().is_some() {
                                ran.store(true, Ordering::Release);
                                return;
                            }
                            woke = sleepers.sleep(
                                || injected.load(Ordering::Acquire),
                                || (),
                                |()| (),
                                PERIOD,
                            );
                        }
                    })
                })
                .collect();
            // An RMW, not a store: loom orders a plain store only partially against the
            // workers' concurrent swaps, and would let a worker's look after its fence miss
            // the work in ways no total modification order allows (a false lost wake-up).
            injected.swap(true, Ordering::AcqRel);
            sleepers.notify();
            workers.into_iter().for_each(|w| w.join().unwrap());
        });
    }
}
