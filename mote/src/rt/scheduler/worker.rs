//! One worker thread's loop and its thread-local queues.

use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use async_task::Runnable;
use crossbeam_deque::Worker;

use super::lifo::LifoSlot;
use super::{Scheduler, INJECTOR_INTERVAL, MAX_LIFO_STREAK, WAKE_AT};

/// While a worker keeps a process with a backlog (see [`yield_with_backlog`]), it looks at
/// the global injector this many times less often than every [`INJECTOR_INTERVAL`] ticks:
/// the tasks it handed there are the other workers' to run, and each one it takes back
/// itself is a poll the backlog waits behind. Still often enough (about every 4,000 polls)
/// that a worker alone with a process fed from outside runs the rest now and then.
const BACKLOG_INJECTOR_FACTOR: u32 = 64;

/// How long a process with a backlog, alone on its worker, looks for the next message
/// before it parks (see [`alone_with_backlog`]): as long as an idle worker spins for work.
pub(crate) const BACKLOG_SPIN: std::time::Duration = super::SPIN;

/// The backlog from which a process may be kept (see [`yield_with_backlog`]): sixteen
/// budgets' worth. A pool's workers and a parent collecting its children's results have a
/// few queued; kept, they took their thread from processes that had work (`parsum pool`
/// ran three times slower).
const KEEP_BACKLOG: usize = 8192;

/// The most tasks a worker's queue may hold for a process to be kept (see
/// [`yield_with_backlog`]): handing many more to the injector (`million`'s main, behind
/// its own spawns) cost more than the wait it saved.
const KEEP_QUEUE: usize = 256;

/// The average poll of a worker from which a process that yields there with a backlog
/// keeps the worker (see [`yield_with_backlog`]): ten times a budget's worth of receives.
const LONG_POLL: Duration = Duration::from_micros(100);

/// The process the scheduler keeps for its backlog (its slot's address; 0: none), see
/// [`yield_with_backlog`]. A hint, read and written relaxed; a static, so that the look
/// every receive takes at it is one load (there is one scheduler per process).
static CONSUMER: CachePadded<AtomicUsize> = CachePadded::new(AtomicUsize::new(0));

/// The queues of the worker running on this thread.
struct Local {
    scheduler: *const Scheduler,
    queue: Worker<Runnable>,
    /// This worker's slot in the scheduler (which the watchdog may empty), kept here so a
    /// push reaches it through the one thread-local pointer.
    lifo: *const LifoSlot<Runnable>,
    /// A process that yielded with messages still queued, to run again next (after the
    /// LIFO slot's task): see [`yield_with_backlog`].
    resume: Cell<Option<Runnable>>,
    /// Set by [`yield_with_backlog`] around its wake: the yield that follows keeps the thread.
    backlog_yield: Cell<bool>,
    /// Whether there are other workers to hand tasks to.
    others: bool,
    /// This worker's number.
    index: usize,
    /// When the current window of polls began (every `PIN_BATCH` polls), and the worker's
    /// poll count then (see [`yield_with_backlog`]): one clock read per window, none per
    /// poll.
    window: Cell<(Instant, u32)>,
}

/// Called by a process whose receive budget ran out with messages still queued, with
/// `wake` waking its own task. Normally the task goes to the back of this worker's queue.
/// But where the worker's polls are long (at least [`LONG_POLL`] on average, over the last
/// `PIN_BATCH` or fewer, this one included), so that a task at the back of its queue would
/// wait long for its next turn, a process with [`KEEP_BACKLOG`] messages or more queued
/// keeps the worker from then on, while its backlog lasts: it runs again next, and the tasks queued here go to the global injector,
/// where the other workers take them.
///
/// A consumer behind its senders is the one process whose progress frees memory and whose
/// delay they cannot make up for. At the back of a queue of senders whose polls are long
/// (a loop of sends never yields), it got one poll of a budget's worth of messages per
/// round of them, and the senders on both threads buried it (the `fanin` benchmark: 0.2 s
/// when the receiver happened to have a thread to itself, up to 1 s and its whole 10M
/// messages queued when it did not). Processes among short polls (a chain's relays, each
/// with a backlog of its own) yield as before: keeping one of them only moves the others
/// about (`chain` ran 10% slower when any process behind a slow round of its queue was
/// kept). With one worker (nothing to hand over) every process
/// yields as before.
///
/// `consumer` names the process (its table slot's address): the scheduler remembers the
/// one it keeps (see [`alone_with_backlog`]).
#[inline]
pub(crate) fn yield_with_backlog(consumer: usize, backlog: usize, wake: impl FnOnce()) {
    let local = LOCAL.with(Cell::get);
    if local.is_null() {
        wake();
        return;
    }
    // SAFETY: see `schedule`.
    let local = unsafe { &*local };
    let kept = is_consumer(consumer);
    if local.others && (kept || (backlog >= KEEP_BACKLOG && local.queue.len() <= KEEP_QUEUE)) {
        // The polls this worker ran lately, the one running now included, took this long
        // on average: long ones are what a process queued behind them waits for.
        let (since, at) = local.window.get();
        // SAFETY: the scheduler outlives its workers.
        let scheduler = unsafe { &*local.scheduler };
        let polls = scheduler.stats[local.index].tasks.load(Ordering::Relaxed) as u32;
        let long_polls = since.elapsed() >= LONG_POLL * (polls.wrapping_sub(at) + 1);
        if kept || long_polls {
            if !kept {
                CONSUMER.store(consumer, Ordering::Relaxed);
            }
            // Read when the task is queued again, after its poll returns (async-task
            // queues a task that woke itself while running only then); the worker clears
            // it after each run, in case `wake` was not the task's own waker.
            local.backlog_yield.set(true);
        }
    }
    wake();
}

/// Whether `consumer` is the process last kept by [`yield_with_backlog`] and nothing else
/// waits on this worker: then, finding its mailbox empty, it looks again for up to
/// [`BACKLOG_SPIN`] before it parks, since its senders are likely still sending. Parked,
/// its next sender would wake it onto that sender's thread, behind the sender's own long
/// poll, and this thread, idle, would take up senders too: both threads sending, the
/// receiver waiting (half the `fanin` runs spent most of their time so after the keeping
/// above alone). One process at a time (the last kept) has this: a heuristic, read and
/// written relaxed; [`backlog_ended`] clears it when its wait finds nothing.
#[inline]
pub(crate) fn alone_with_backlog(consumer: usize) -> bool {
    let local = LOCAL.with(Cell::get);
    if local.is_null() {
        return false;
    }
    // SAFETY: see `schedule`.
    let local = unsafe { &*local };
    is_consumer(consumer)
        // SAFETY: the slot lives in the scheduler, which outlives its workers.
        && unsafe { &*local.lifo }.peek().is_null()
        && local.queue.is_empty()
}

/// Whether `consumer` is the process last kept by [`yield_with_backlog`] (a relaxed load of
/// a line written only when that changes).
#[inline]
pub(crate) fn is_consumer(consumer: usize) -> bool {
    CONSUMER.load(Ordering::Relaxed) == consumer
}

/// `consumer` waited [`BACKLOG_SPIN`] for a message in vain: its stream has stopped.
#[cold]
pub(crate) fn backlog_ended(consumer: usize) {
    if CONSUMER.load(Ordering::Relaxed) == consumer {
        CONSUMER.store(0, Ordering::Relaxed);
    }
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
    schedule_inner(runnable, yielded, false);
}

/// [`schedule`] for a process task woken by async-task: `woke_itself` when it woke itself
/// while running (a yield), which [`yield_with_backlog`] may have asked to keep here.
#[inline]
pub(crate) fn schedule_woken(runnable: Runnable, woke_itself: bool) {
    schedule_inner(runnable, woke_itself, woke_itself);
}

#[inline(always)]
fn schedule_inner(runnable: Runnable, yielded: bool, may_keep: bool) {
    let local = LOCAL.with(Cell::get);
    if local.is_null() {
        super::global::scheduler().inject(runnable);
        return;
    }
    // SAFETY: a non-null LOCAL points at the `Local` that `run` keeps alive on this thread's
    // stack for as long as the pointer is set.
    let local = unsafe { &*local };
    if yielded {
        if may_keep && local.backlog_yield.replace(false) {
            keep_with_backlog(local, runnable);
            return;
        }
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

/// The second half of [`yield_with_backlog`]: the task goes to `resume`, the queue's tasks
/// to the injector (a sleeper is woken for them).
#[cold]
fn keep_with_backlog(local: &Local, runnable: Runnable) {
    // SAFETY: the scheduler outlives its workers (it is held by the global runtime).
    let scheduler = unsafe { &*local.scheduler };
    if !local.queue.is_empty() {
        while let Some(task) = local.queue.pop() {
            scheduler.injector.push(task);
        }
        scheduler.notify();
    }
    if let Some(previous) = local.resume.replace(Some(runnable)) {
        // Not reached: the one task that yields here ran from `resume` or elsewhere, and
        // `resume` is emptied before each run. Kept safe all the same.
        local.queue.push(previous);
    }
}

pub(super) fn run(scheduler: &Scheduler, index: usize, queue: Worker<Runnable>) {
    let lifo: &LifoSlot<Runnable> = &scheduler.lifos[index];
    let local = Local {
        scheduler,
        queue,
        lifo,
        resume: Cell::new(None),
        backlog_yield: Cell::new(false),
        others: scheduler.stealers.len() > 1,
        index,
        window: Cell::new((Instant::now(), 0)),
    };
    LOCAL.with(|l| l.set(&local));
    let mut tick: u32 = 0;
    let mut lifo_streak = 0;
    // The epoch pin lent to the task runs of a batch, and the runs so far.
    let mut pinned: Option<crossbeam_epoch::Guard> = None;
    let mut runs: u32 = 0;
    loop {
        tick = tick.wrapping_add(1);
        let injector_due = tick % INJECTOR_INTERVAL == 0
            && (tick % (INJECTOR_INTERVAL * BACKLOG_INJECTOR_FACTOR) == 0 || !local.has_resume());
        let next = if injector_due {
            scheduler.injector.steal().success()
        } else {
            None
        };
        let mut resumed = false;
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
            if let Some(task) = local.resume.take() {
                resumed = true;
                return Some(task);
            }
            local.queue.pop()
        });
        if !resumed {
            // Another task runs first: the kept one waits in the queue, where the watchdog
            // and idle workers can see it, and its next yield with a backlog keeps it again.
            if let Some(task) = local.resume.take() {
                local.queue.push(task);
            }
        }
        let found = next.or_else(|| find_work(scheduler, &local.queue, index, &mut pinned, runs));
        if let Some(task) = found {
            let guard = pinned.get_or_insert_with(crossbeam_epoch::pin);
            crate::rt::current::lend_worker_guard(guard);
            task.run();
            local.backlog_yield.set(false);
            crate::rt::current::drop_worker_guard();
            scheduler.count_task(index);
            runs = runs.wrapping_add(1);
            if runs % PIN_BATCH == 0 {
                unpin(&mut pinned, runs);
                // A new window of poll lengths (see `yield_with_backlog`), in a branch taken
                // anyway: no cost per poll.
                local.window.set((Instant::now(), runs));
            }
        }
    }
}

impl Local {
    fn has_resume(&self) -> bool {
        // A `Cell<Option<_>>` cannot be looked into; take and put back (two moves).
        let task = self.resume.take();
        let has = task.is_some();
        self.resume.set(task);
        has
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
