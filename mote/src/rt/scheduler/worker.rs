//! One worker thread's loop and its thread-local queues.

use std::cell::Cell;
use std::ptr;
use std::time::Instant;

use async_task::Runnable;
use crossbeam_deque::Worker;

use super::lifo::LifoSlot;
use super::sleepers::Duty;
use super::{Scheduler, INJECTOR_INTERVAL, MAX_LIFO_STREAK, WATCH_PERIOD};

/// The queues of the worker running on this thread.
struct Local {
    scheduler: *const Scheduler,
    queue: Worker<Runnable>,
    /// This worker's slot in the scheduler's array.
    lifo: *const LifoSlot<Runnable>,
    /// Owes a watcher before its next LIFO push ([`Duty::BeforeLifo`]).
    watcher_before_lifo: Cell<bool>,
}

thread_local! {
    /// Points at the `Local` on this worker's stack while its loop runs; null elsewhere.
    static LOCAL: Cell<*const Local> = const { Cell::new(ptr::null()) };
}

/// Queues a woken process task: on this worker's LIFO slot when called from a worker (the
/// task just woken is likely to want the data the running task just wrote), at the back of
/// its deque if the task yielded, and on the global injector from any other thread.
#[inline]
pub(crate) fn schedule(runnable: Runnable, yielded: bool) {
    let local = LOCAL.with(Cell::get);
    if local.is_null() {
        super::global::scheduler().inject(runnable);
        return;
    }
    // SAFETY: a non-null LOCAL points at the `Local` that `run` keeps alive on this thread's
    // stack for as long as the pointer is set.
    let local = unsafe { &*local };
    // SAFETY: the scheduler outlives its workers (it is held by the global runtime).
    let scheduler = unsafe { &*local.scheduler };
    if yielded {
        local.queue.push(runnable);
    } else {
        if local.watcher_before_lifo.get() {
            local.watcher_before_lifo.set(false);
            scheduler.sleepers.ensure_watcher();
        }
        // SAFETY: `lifo` points into the scheduler's array, alive as long as the scheduler.
        match unsafe { &*local.lifo }.push(runnable) {
            None => return,
            Some(previous) => local.queue.push(previous),
        }
    }
    scheduler.notify();
}

pub(super) fn run(scheduler: &Scheduler, index: usize, queue: Worker<Runnable>) {
    let lifo = &*scheduler.lifo[index];
    let local = Local {
        scheduler,
        queue,
        lifo,
        // Workers start awake, with no watcher yet.
        watcher_before_lifo: Cell::new(true),
    };
    LOCAL.with(|l| l.set(&local));
    let mut tick: u32 = 0;
    let mut lifo_streak = 0;
    // Owes a watcher before the next task it runs ([`Duty::BeforeRun`]).
    let mut watcher_before_run = false;
    let mut watch = Watch {
        seen: vec![0; scheduler.lifo.len()],
        at: Instant::now(),
    };
    // A task taken from a stuck LIFO slot, to run next.
    let mut rescued = None;
    loop {
        tick = tick.wrapping_add(1);
        let next = rescued.take().or_else(|| {
            if tick % INJECTOR_INTERVAL != 0 {
                return None;
            }
            // A busy worker looks too: the watcher only wakes when there is nothing to do,
            // and a worker woken often never waits out its timeout.
            watch
                .look(scheduler, index)
                .or_else(|| scheduler.injector.steal().success())
        });
        let next = next.or_else(|| {
            if lifo_streak < MAX_LIFO_STREAK {
                if let Some(task) = lifo.take() {
                    lifo_streak += 1;
                    return Some(task);
                }
            } else if let Some(task) = lifo.take() {
                local.queue.push(task);
            }
            lifo_streak = 0;
            local.queue.pop()
        });
        match next.or_else(|| scheduler.steal(&local.queue, index)) {
            Some(task) => {
                if watcher_before_run {
                    watcher_before_run = false;
                    scheduler.sleepers.ensure_watcher();
                }
                task.run();
                scheduler.count_task(index);
            }
            None => {
                rescued = watch.look(scheduler, index);
                if rescued.is_some() {
                    continue;
                }
                let woke = scheduler.sleep(index);
                local.watcher_before_lifo.set(woke.duty == Duty::BeforeLifo);
                watcher_before_run = woke.duty == Duty::BeforeRun;
                if woke.watched {
                    rescued = watch.look(scheduler, index);
                }
            }
        }
    }
}

/// A worker's looks at the other workers' LIFO slots.
struct Watch {
    /// Each worker's finished polls at the last look.
    seen: Vec<u64>,
    /// When that was.
    at: Instant,
}

impl Watch {
    /// If the last look was at least a watch period ago: a task from the LIFO slot of a
    /// worker that has finished no poll since, and a new look. Cheap otherwise (a clock
    /// reading).
    fn look(&mut self, scheduler: &Scheduler, me: usize) -> Option<Runnable> {
        let now = Instant::now();
        if now.duration_since(self.at) < WATCH_PERIOD {
            return None;
        }
        let stuck = scheduler.steal_stuck(me, &self.seen);
        scheduler.polls(&mut self.seen);
        self.at = now;
        stuck
    }
}
