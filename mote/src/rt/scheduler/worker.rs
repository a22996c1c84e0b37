//! One worker thread's loop and its thread-local queues.

use std::cell::Cell;
use std::ptr;

use async_task::Runnable;
use crossbeam_deque::Worker;

use super::lifo::LifoSlot;
use super::{Scheduler, INJECTOR_INTERVAL, MAX_LIFO_STREAK, WAKE_AT};

/// A worker's queue at least this long makes its spawns go to its spawn stack (see
/// [`schedule_spawned`]). Far beyond what message passing queues (a displaced task or a
/// few), so only spawning trees and loops reach it; low enough that the queue behind it
/// is a small part of a spawning tree.
const DEEP: usize = 256;
/// The most tasks a spawn stack holds: a depth-first walk of a tree of fan-out 10 needs
/// about 9 per level.
const STACK_MAX: usize = 128;
/// Every this many takes the worker looks at its queue before its spawn stack (a power of
/// two: the loop tests it with a mask).
const QUEUE_INTERVAL: u32 = 1024;
/// The most spawns of one poll that may go to the spawn stack (see [`schedule_spawned`]).
const TREE_FAN_OUT: u32 = 16;

/// The queues of the worker running on this thread.
struct Local {
    scheduler: *const Scheduler,
    queue: Worker<Runnable>,
    /// New processes spawned while `queue` is deep (see [`schedule_spawned`]), newest
    /// popped first. No other worker takes from it; the watchdog empties it into the
    /// injector if this worker stays inside one long poll.
    stack: Worker<Runnable>,
    /// Processes spawned by the task running now (see [`schedule_spawned`]).
    poll_spawns: Cell<u32>,
    /// This worker's slot in the scheduler (which the watchdog may empty), kept here so a
    /// push reaches it through the one thread-local pointer.
    lifo: *const LifoSlot<Runnable>,
}

thread_local! {
    /// Points at the `Local` on this worker's stack while its loop runs; null elsewhere.
    static LOCAL: Cell<*const Local> = const { Cell::new(ptr::null()) };
}

/// Queues a woken process task: on this worker's LIFO slot when called from a worker (the
/// task just woken is likely to want the data the running task just wrote), at the back of
/// its deque if the task yielded, and on the global injector from any other thread.
///
/// A task that lands in the deque wakes a sleeping worker only if the deque then holds two:
/// this worker runs a lone one soon (see the scheduler's module docs).
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
    if yielded {
        local.queue.push(runnable);
    } else {
        // SAFETY: the slot lives in the scheduler, which outlives its workers.
        match unsafe { &*local.lifo }.push(runnable) {
            None => return,
            Some(previous) => local.queue.push(previous),
        }
    }
    if local.queue.len() < WAKE_AT {
        return;
    }
    // SAFETY: the scheduler outlives its workers (it is held by the global runtime).
    unsafe { &*local.scheduler }.notify();
}

/// Queues a process just spawned on this worker: at the back of its queue, as Erlang does,
/// unless the queue is already [`DEEP`] and the spawner is one of a tree's (at most
/// [`TREE_FAN_OUT`] spawns so far in this poll); then on the worker's spawn stack, which
/// it runs before its queue, newest first.
///
/// A queue that deep is far more work than the workers can start soon, and growing it
/// breadth-first keeps every process of a spawning tree alive at once: `skynet`'s million
/// leaves all waited in the queues (a peak of 727,000 live processes). Run newest first,
/// a tree is walked depth-first, and a subtree's processes end before the next subtree's
/// are spawned. A poll that spawns more is a loop (`million`'s and `spawn`'s main), whose
/// children cannot run here before it ends anyway: they go to the queue as before, where
/// thieves take them by the batch. The stack holds at most [`STACK_MAX`].
#[inline]
pub(crate) fn schedule_spawned(runnable: Runnable) {
    let local = LOCAL.with(Cell::get);
    if !local.is_null() {
        // SAFETY: as in `schedule`.
        let local = unsafe { &*local };
        let spawns = local.poll_spawns.get();
        local.poll_spawns.set(spawns.saturating_add(1));
        // The queue's length last: its front is written by thieves.
        if spawns < TREE_FAN_OUT && local.stack.len() < STACK_MAX && local.queue.len() >= DEEP {
            local.stack.push(runnable);
            return;
        }
    }
    schedule(runnable, true);
}

// Never inlined into the thread's closure: whether the compiler inlined it there changed
// with unrelated code elsewhere in the crate, and inlined, `parsum pool` took 19 ms instead
// of 13 (interleaved runs of both builds).
#[inline(never)]
pub(super) fn run(
    scheduler: &Scheduler,
    index: usize,
    queue: Worker<Runnable>,
    stack: Worker<Runnable>,
) {
    let lifo: &LifoSlot<Runnable> = &scheduler.lifos[index];
    let local = Local {
        scheduler,
        queue,
        stack,
        poll_spawns: Cell::new(0),
        lifo,
    };
    LOCAL.with(|l| l.set(&local));
    let mut tick: u32 = 0;
    let mut lifo_streak = 0;
    // The epoch pin lent to the task runs of a batch, and the runs so far.
    let mut pinned: Option<crossbeam_epoch::Guard> = None;
    let mut runs: u32 = 0;
    loop {
        tick = tick.wrapping_add(1);
        let next = if tick % INJECTOR_INTERVAL == 0 {
            scheduler.injector.steal().success()
        } else {
            None
        };
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
            // The spawn stack before the queue, but every [`QUEUE_INTERVAL`]-th take the queue
            // first: a process that spawns its successor forever would starve it otherwise.
            if tick % QUEUE_INTERVAL != 0 {
                if let Some(task) = local.stack.pop() {
                    return Some(task);
                }
            }
            local.queue.pop().or_else(|| local.stack.pop())
        });
        let found = next.or_else(|| find_work(scheduler, &local.queue, index, &mut pinned, runs));
        if let Some(task) = found {
            let guard = pinned.get_or_insert_with(crossbeam_epoch::pin);
            crate::rt::current::lend_worker_guard(guard);
            local.poll_spawns.set(0);
            task.run();
            crate::rt::current::drop_worker_guard();
            scheduler.count_task(index);
            runs = runs.wrapping_add(1);
            if runs % PIN_BATCH == 0 {
                unpin(&mut pinned, runs);
            }
        }
    }
}

/// Worker `me`'s queues are empty: steals, or spins and then steals, or sleeps (and returns
/// `None` to look again). Out of line, so that the loop around a message hop stays small.
/// It lets go of the worker's epoch pin before sleeping: a worker asleep pinned would hold
/// back the epoch, and so the recycling of every slot freed meanwhile, for as long as it
/// sleeps.
#[cold]
#[inline(never)]
fn find_work(
    scheduler: &Scheduler,
    queue: &Worker<Runnable>,
    me: usize,
    pinned: &mut Option<crossbeam_epoch::Guard>,
    runs: u32,
) -> Option<Runnable> {
    if let Some(task) = scheduler.steal(queue, me, false) {
        return Some(task);
    }
    if scheduler.spin(me) {
        return scheduler.steal(queue, me, true);
    }
    unpin(pinned, runs);
    scheduler.sleep(me);
    None
}

/// How many task runs one epoch pin of a worker spans (see `current::lend_worker_guard`).
/// A process poll used to pin and unpin on its own; a guard held longer only delays the
/// recycling of what is freed meanwhile by the few runs left in its batch.
const PIN_BATCH: u32 = 32;

/// Drops the worker's pin, if it holds one. Every fourth batch it first hands its deferred
/// frees to the global queue and collects some (`Guard::flush`): a pin made only once a
/// batch would reach crossbeam's own collection (every 128th pin) 32 times less often than
/// a pin per poll did, and slots freed by exiting processes would pile up.
#[inline]
fn unpin(pinned: &mut Option<crossbeam_epoch::Guard>, runs: u32) {
    if let Some(guard) = pinned.take() {
        if runs % (4 * PIN_BATCH) == 0 {
            guard.flush();
        }
        drop(guard);
    }
}
