//! The process scheduler: a small work-stealing executor for process tasks.
//!
//! Processes are mote's own tasks (`rt::task`) rather than tokio tasks because tokio's task
//! cell is aligned to 128 bytes and a tokio task plus a channel costs about 1.1 KB per idle
//! process; a process task holds just a 16-byte header and the future (measurements in
//! `docs/design.md`). Tokio still does IO and timers: every worker thread enters a tokio
//! runtime handle, so sockets, timers and `tokio::spawn` work inside processes, driven by
//! that runtime's own threads.
//!
//! Each worker owns a FIFO deque (crossbeam-deque) plus a one-task LIFO slot: a process woken
//! by the one running (the receiver of a message just sent) runs next on the same thread,
//! while its cache lines are warm. At most [`MAX_LIFO_STREAK`] LIFO runs happen in a row, so
//! two processes playing ping-pong cannot starve the rest of the queue (with nothing queued
//! and the spawn stack empty, the streak's end runs the slot's task at once: there is nothing
//! to be fair to). Idle workers cannot steal from the slot; a task that waits there behind a
//! long poll is moved to the global injector by the watchdog (`watchdog.rs`, with the slot's
//! handshake in `lifo.rs`), which wakes an idle worker for it. A task that yields (its
//! receive budget ran out) goes to the back of the deque. Idle workers steal from the global
//! injector and from each other, then spin for a while ([`SPIN`]) and only then sleep on a
//! condition variable.
//!
//! A process spawned on a worker whose queue is already deep goes to the worker's *spawn
//! stack* instead (a LIFO deque run before the queue, newest first), so that a spawning tree
//! is walked depth-first rather than having all its leaves queued at once (see
//! `worker::schedule_spawned`). Idle workers never take from another worker's stack (with
//! the queue that deep they have plenty to steal, and looking at the stacks in the idle
//! loop cost `million` time); the watchdog moves the tasks of a stack whose owner stays
//! inside one long poll to the injector.
//!
//! Waking a sleeping thread costs a system call in the waker and tens of microseconds before
//! the sleeper runs, far more than a message hop, so the scheduler wakes one only for work
//! its owner cannot soon get to, and moves a process to another thread only for the same:
//!
//! - A task that goes to a worker's queue (displaced from the LIFO slot by a newer one, or
//!   yielding) wakes a sleeper only if the queue then holds two tasks or more. The one task
//!   is the owner's next but few: the owner never sleeps with its queue non-empty, and if
//!   it stays inside one long poll the watchdog wakes a sleeper for the task, as it does for
//!   one in the LIFO slot.
//! - A thief takes at once from the injector and from a queue of two or more, but takes the
//!   only task of another worker's queue only once it has sat there [`STEAL_GRACE`]: in a
//!   request/reply exchange of three processes on two threads the displaced one is run by
//!   its owner within a microsecond, while migrating it costs the cache misses of its state
//!   and of every message after (the `workers steal` benchmark ran three times slower with
//!   eager stealing and sleeping).
//! - A thief whose last steal did not pay (the tasks ran briefly, while their owner kept
//!   finishing tasks of its own) waits before it steals again, up to [`BACKOFF_MAX`]
//!   per other worker (`worker::Thief`): tasks woken back onto their owner's worker, as a
//!   server's callers are, went back and forth between the threads on every message.
//!   What "briefly" means depends on how far apart the two cores are, which the thief
//!   measures (`distance.rs`): from a near worker, whose lines cost little to move, a
//!   batch of short tasks pays ([`NEAR_STEAL_PAYS`]); from a far one it must run
//!   [`STEAL_PAYS`].
//! - Spinning before sleeping ([`SPIN`], at most half the workers at a time) catches the
//!   work that comes back soon without the wake-up's system call; sleepers are still woken
//!   as before for work that is plenty (a queue of two, the injector).

mod distance;
pub(crate) mod global;
mod lifo;
mod sleepers;
mod watchdog;
mod worker;

use std::sync::atomic::{fence, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::rt::task::{Runnable, Schedule};
use crossbeam_deque::{Injector, Stealer, Worker};
use crossbeam_utils::CachePadded;

use lifo::LifoSlot;
use sleepers::Sleepers;
use watchdog::Watchdog;

pub(crate) use worker::{schedule, schedule_spawned};

/// Consecutive runs from the LIFO slot before the worker takes from its queue instead.
const MAX_LIFO_STREAK: u32 = 3;
/// How long a worker that found no work looks again before it sleeps. Longer than a
/// message hop and a little computation (work that comes back within it costs no wake-up),
/// short next to a time slice (an idle runtime burns little): 5 to 100 us all ran the
/// `workers steal` benchmark at the same speed.
const SPIN: Duration = Duration::from_micros(20);
/// How long the only task in another worker's queue must wait there before a thief takes it
/// (tasks beyond the first, and the injector's, are taken at once). Several message hops:
/// a busy owner runs such a task within a few of them, sooner than a migration pays off.
const STEAL_GRACE: Duration = Duration::from_micros(2);
/// A task pushed into a worker's queue wakes a sleeper only if the queue then holds this
/// many, and a worker stays awake (and steals at once) for another worker's queue only if
/// it holds this many: one alone is its owner's next but few. Both sides must use the same
/// number, or a sleeper could miss work it was not woken for (the loom model in
/// `sleepers.rs`).
const WAKE_AT: usize = 2;
/// A steal from another worker's queue pays if the tasks it brought kept the thief busy at
/// least this long (or their owner ran no task meanwhile); one that does not makes the
/// thief wait before its next ([`worker::Thief`]). Longer than a batch of short tasks takes
/// (a steal takes up to 32; a caller's poll is a few hundred nanoseconds on the thief's cold
/// cache): 20 to 100 us ran `call` with 10,000 callers equally fast.
const STEAL_PAYS: Duration = Duration::from_micros(50);
/// What a steal from a *near* worker (one whose core answers a read of a line it just wrote
/// within [`distance::NEAR`]) must keep the thief busy for to pay, per other worker, at most
/// [`STEAL_PAYS`]: a batch of 32 short tasks (a fan-out's workers, a server's callers) takes
/// 5-10 us. Per other worker because what it bounds is how often thieves together take from
/// one victim (as [`BACKOFF_MAX`]); from 25 workers on it is [`STEAL_PAYS`] itself.
const NEAR_STEAL_PAYS: Duration = Duration::from_micros(2);
/// The first wait of a thief whose steal did not pay.
const BACKOFF_MIN: Duration = Duration::from_micros(16);
/// The longest wait of a thief whose steals do not pay, per other worker
/// (`worker::longest_backoff`): with one peer, also how much longer, at most, a task
/// queued behind a poll that outlasts it waits than it would without the waits (the
/// watchdog's first look comes after a millisecond too); with more, the thieves' waits
/// overlap so that one of them looks about as often. 256 us instead left `call` with
/// 10,000 callers 10% slower than this on two cores.
const BACKOFF_MAX: Duration = Duration::from_millis(1);
/// Every this many ticks a worker looks at the global injector first, so tasks woken from
/// outside (timers, IO, other threads) are not starved by local work.
const INJECTOR_INTERVAL: u32 = 61;

pub(crate) struct Scheduler {
    injector: Injector<Runnable>,
    stealers: Vec<Stealer<Runnable>>,
    /// Per worker: the thieves' end of its spawn stack (see `worker::schedule_spawned`).
    stacks: Vec<Stealer<Runnable>>,
    sleepers: Sleepers,
    /// Per worker: how long it slept and how many tasks it ran, for the metrics.
    stats: Box<[CachePadded<WorkerStats>]>,
    /// When the workers started: a worker's busy time is its life less its sleep.
    started: Instant,
    /// Per worker: its LIFO slot, here rather than on its stack so the watchdog can free a
    /// task stuck behind a long poll.
    lifos: Box<[CachePadded<LifoSlot<Runnable>>]>,
    watchdog: Watchdog,
    /// Workers spinning in [`Scheduler::spin`] now: at most half of them spin at a time.
    spinning: CachePadded<AtomicUsize>,
}

/// One worker's record, written by that worker alone and read by anyone.
///
/// The sleep time changes only when the worker falls asleep and wakes, so keeping it costs
/// nothing on the path that runs tasks (timing each task run would cost two clock reads per
/// message in a ping-pong). `seq` is a sequence lock over `asleep_at` and `slept_ns`: odd
/// while the worker changes them; a reader retries if it was odd or changed under the read.
#[derive(Default)]
struct WorkerStats {
    seq: AtomicU64,
    /// Nanoseconds since `started` when the worker fell asleep; 0 while it is awake.
    asleep_at: AtomicU64,
    /// Nanoseconds slept in total, up to its last wake-up.
    slept_ns: AtomicU64,
    /// Tasks run (polls of processes).
    tasks: AtomicU64,
    /// Times the worker fell asleep (blocked on the condition variable).
    sleeps: AtomicU64,
    /// Steals from other workers' queues that brought a task (each moves a batch).
    steals: AtomicU64,
    /// Times the worker spun looking for work (see [`Scheduler::spin`]).
    spins: AtomicU64,
}

/// A worker's figures, as [`Scheduler::worker_stats`] reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WorkerSnapshot {
    /// Time the worker spent awake (running tasks or looking for them) since it started.
    pub(crate) busy: Duration,
    /// Tasks it has run.
    pub(crate) tasks: u64,
    /// Tasks waiting in its queue (others can steal them).
    pub(crate) queued: usize,
    /// Times it fell asleep.
    pub(crate) sleeps: u64,
    /// Steals from other workers' queues that brought a task.
    pub(crate) steals: u64,
    /// Times it spun looking for work.
    pub(crate) spins: u64,
}

impl Scheduler {
    /// Starts `workers` threads, each with the tokio handle entered.
    pub(crate) fn start(workers: usize, tokio: tokio::runtime::Handle) -> Arc<Scheduler> {
        let locals: Vec<Worker<Runnable>> = (0..workers).map(|_| Worker::new_fifo()).collect();
        let stacks: Vec<Worker<Runnable>> = (0..workers).map(|_| Worker::new_lifo()).collect();
        let scheduler = Arc::new(Scheduler {
            injector: Injector::new(),
            stealers: locals.iter().map(Worker::stealer).collect(),
            stacks: stacks.iter().map(Worker::stealer).collect(),
            sleepers: Sleepers::new(),
            stats: (0..workers).map(|_| CachePadded::default()).collect(),
            started: Instant::now(),
            lifos: {
                // Before any worker runs, so every owner uses the fence the thief expects.
                let membarrier = lifo::membarrier_available();
                (0..workers)
                    .map(|_| CachePadded::new(LifoSlot::new(membarrier)))
                    .collect()
            },
            watchdog: Watchdog::default(),
            spinning: CachePadded::default(),
        });
        if workers > 1 {
            let scheduler = Arc::clone(&scheduler);
            std::thread::Builder::new()
                .name("mote-watchdog".into())
                .spawn(move || watchdog::run(&scheduler))
                .expect("spawning mote's watchdog thread");
        }
        for (index, (local, stack)) in locals.into_iter().zip(stacks).enumerate() {
            let scheduler = Arc::clone(&scheduler);
            let tokio = tokio.clone();
            std::thread::Builder::new()
                .name(format!("mote-worker-{index}"))
                .spawn(move || {
                    let _tokio = tokio.enter();
                    worker::run(&scheduler, index, local, stack);
                })
                .expect("spawning a mote worker thread");
        }
        scheduler
    }

    /// Queues a task from a thread that is not one of our workers.
    pub(crate) fn inject(&self, runnable: Runnable) {
        self.injector.push(runnable);
        self.notify();
    }

    /// Wakes one sleeping worker if there is one. Called after making work stealable.
    #[inline]
    pub(crate) fn notify(&self) {
        self.sleepers.notify();
    }

    /// Whether worker `me` must not sleep: the injector or its own queue holds a task, or
    /// another worker's queue holds two or more (one alone is its owner's to run, see the
    /// module docs). The sleep protocol pairs this look with [`Scheduler::notify`], which
    /// pushers call exactly in these cases.
    fn has_work(&self, me: usize) -> bool {
        self.look(me) == Look::Work
    }

    /// What worker `me` finds in one pass over the queues: [`Scheduler::has_work`]'s answer,
    /// and if that is no, whether another worker's queue holds a lone task (for the spin's
    /// steal grace).
    fn look(&self, me: usize) -> Look {
        if !self.injector.is_empty() {
            return Look::Work;
        }
        let mut found = Look::Nothing;
        for (i, s) in self.stealers.iter().enumerate() {
            let queued = s.len();
            if queued >= WAKE_AT || (i == me && queued > 0) {
                return Look::Work;
            }
            if queued > 0 {
                found = Look::PeerTask;
            }
        }
        found
    }

    /// Called by worker `me` when it found no work: spins for up to [`SPIN`] looking for
    /// some, and says whether to steal now. Returns false at once if half the workers are
    /// spinning already (the rest sleep).
    fn spin(&self, me: usize) -> bool {
        let most = (self.stealers.len() / 2).max(1);
        // Relaxed: a heuristic cap (a worker over it only sleeps sooner), not a protocol.
        if self.spinning.fetch_add(1, Ordering::Relaxed) >= most {
            self.spinning.fetch_sub(1, Ordering::Relaxed);
            return false;
        }
        bump(&self.stats[me].spins);
        let found = self.spin_for_work(me);
        self.spinning.fetch_sub(1, Ordering::Relaxed);
        found
    }

    fn spin_for_work(&self, me: usize) -> bool {
        let start = Instant::now();
        // Since when some other worker's queue has held a task, without a look between
        // finding them all empty.
        let mut waiting_since: Option<Instant> = None;
        let mut spins: u32 = 0;
        loop {
            let look = self.look(me);
            if look == Look::Work || !self.lifos[me].peek().is_null() {
                return true;
            }
            // The clock is read only every few looks while nothing waits (a look is a few
            // loads of lines that are in cache until someone pushes).
            if look == Look::PeerTask {
                let now = Instant::now();
                let since = *waiting_since.get_or_insert(now);
                if now - since >= STEAL_GRACE {
                    return true;
                }
                if now - start >= SPIN {
                    return false;
                }
            } else {
                waiting_since = None;
                if spins % 16 == 15 && start.elapsed() >= SPIN {
                    return false;
                }
            }
            spins = spins.wrapping_add(1);
            std::hint::spin_loop();
        }
    }

    /// Blocks the calling worker (number `me`) until there may be work.
    fn sleep(&self, me: usize) {
        // Hand this thread's deferred slot recycling to the global queue before sleeping,
        // so dead processes' slots (and their queued messages) do not wait on an idle thread.
        crossbeam_epoch::pin().flush();
        let stats = &self.stats[me];
        self.sleepers.sleep(
            // The flush above may have woken a process into this worker's own LIFO slot
            // (a deferred drop that fails a call, say): not sleeping on it.
            || self.has_work(me) || !self.lifos[me].peek().is_null(),
            || {
                bump(&stats.sleeps);
                // Never 0, which means awake.
                let asleep_at = self.nanos().max(1);
                stats.write(|| stats.asleep_at.store(asleep_at, Ordering::Relaxed));
                asleep_at
            },
            |asleep_at| {
                let total =
                    stats.slept_ns.load(Ordering::Relaxed) + self.nanos().saturating_sub(asleep_at);
                stats.write(|| {
                    stats.slept_ns.store(total, Ordering::Relaxed);
                    stats.asleep_at.store(0, Ordering::Relaxed);
                });
            },
        );
        self.watchdog.worker_awake();
    }

    fn nanos(&self) -> u64 {
        self.started.elapsed().as_nanos().min(u64::MAX as u128) as u64
    }

    /// Counts a task run by worker `me`.
    #[inline]
    fn count_task(&self, me: usize) {
        bump(&self.stats[me].tasks);
    }

    /// Counts a steal from another worker's queue by worker `me`.
    fn count_steal(&self, me: usize) {
        bump(&self.stats[me].steals);
    }

    /// Wake-ups of sleeping workers so far (each a system call in the thread that woke one).
    pub(crate) fn wakeups(&self) -> u64 {
        self.sleepers.wakeups()
    }

    /// The time since the workers started, and each worker's figures as of then, in worker
    /// order (one clock reading for all, so no worker was busy longer than that time).
    pub(crate) fn worker_stats(&self) -> (Duration, Vec<WorkerSnapshot>) {
        let now = self.nanos();
        let workers = self
            .stats
            .iter()
            .zip(self.stealers.iter().zip(&self.stacks))
            .map(|(stats, (stealer, stack))| {
                let (asleep_at, slept) = stats.read();
                let sleeping = if asleep_at != 0 {
                    now.saturating_sub(asleep_at)
                } else {
                    0
                };
                WorkerSnapshot {
                    busy: Duration::from_nanos(now.saturating_sub(slept + sleeping)),
                    tasks: stats.tasks.load(Ordering::Relaxed),
                    queued: stealer.len() + stack.len(),
                    sleeps: stats.sleeps.load(Ordering::Relaxed),
                    steals: stats.steals.load(Ordering::Relaxed),
                    spins: stats.spins.load(Ordering::Relaxed),
                }
            })
            .collect();
        (Duration::from_nanos(now), workers)
    }

    /// Tasks run so far by worker `index` (a relaxed read of the counter it bumps after
    /// every poll).
    fn tasks_of(&self, index: usize) -> u64 {
        self.stats[index].tasks.load(Ordering::Relaxed)
    }

    /// Tasks run so far by every worker but `me` (relaxed reads of counters each worker
    /// bumps after every poll).
    fn others_tasks(&self, me: usize) -> u64 {
        (0..self.stats.len())
            .filter(|&i| i != me)
            .map(|i| self.tasks_of(i))
            .fold(0u64, u64::wrapping_add)
    }

    /// Tasks waiting in the global queue (woken from outside the workers).
    pub(crate) fn injected(&self) -> usize {
        self.injector.len()
    }

    /// Finds work for an idle worker: the injector first, then the other workers' queues,
    /// passing over a queue that holds one task unless `any` (the thief has seen it wait
    /// [`STEAL_GRACE`]).
    ///
    /// The task comes with where it was found: the other worker's number for its queue (a
    /// migration, which [`worker::Thief`] judges afterwards), `None` for the injector.
    fn steal(
        &self,
        local: &Worker<Runnable>,
        me: usize,
        any: bool,
    ) -> Option<(Runnable, Option<usize>)> {
        loop {
            let mut retry = false;
            match self.injector.steal_batch_and_pop(local) {
                crossbeam_deque::Steal::Success(r) => return Some((r, None)),
                crossbeam_deque::Steal::Retry => retry = true,
                crossbeam_deque::Steal::Empty => {}
            }
            let n = self.stealers.len();
            for offset in 1..n {
                let index = (me + offset) % n;
                let victim = &self.stealers[index];
                if !any && victim.len() < WAKE_AT {
                    continue;
                }
                match victim.steal_batch_and_pop(local) {
                    crossbeam_deque::Steal::Success(r) => return Some((r, Some(index))),
                    crossbeam_deque::Steal::Retry => retry = true,
                    crossbeam_deque::Steal::Empty => {}
                }
            }
            if !retry {
                return None;
            }
        }
    }
}

/// Adds one to a counter of a worker's record, by that worker (its only writer: a load and a
/// store, no locked instruction).
#[inline]
fn bump(counter: &AtomicU64) {
    counter.store(counter.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

impl WorkerStats {
    /// The writer's half of the sequence lock (the worker alone writes): `seq` is odd while
    /// `change` runs.
    fn write(&self, change: impl FnOnce()) {
        let seq = self.seq.load(Ordering::Relaxed);
        self.seq.store(seq.wrapping_add(1), Ordering::Relaxed);
        // A reader that sees any of the change then sees `seq` odd or moved on.
        fence(Ordering::Release);
        change();
        self.seq.store(seq.wrapping_add(2), Ordering::Release);
    }

    /// `(asleep_at, slept_ns)`, consistent with each other; `asleep_at` is 0 while the
    /// worker is awake.
    fn read(&self) -> (u64, u64) {
        loop {
            let before = self.seq.load(Ordering::Acquire);
            let asleep_at = self.asleep_at.load(Ordering::Relaxed);
            let slept = self.slept_ns.load(Ordering::Relaxed);
            fence(Ordering::Acquire);
            if before % 2 == 0 && self.seq.load(Ordering::Relaxed) == before {
                return (asleep_at, slept);
            }
            std::hint::spin_loop();
        }
    }
}

/// The outcome of [`Scheduler::look`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Look {
    /// Something this worker must run or steal now.
    Work,
    /// Only a lone task in another worker's queue (its owner's to run first).
    PeerTask,
    /// Nothing queued anywhere.
    Nothing,
}

/// The schedule of every process task: a wake while the task was idle queues it as a
/// process woken (the LIFO slot on a worker), one during its own poll as a yield.
pub(crate) struct ProcessSchedule;

impl Schedule for ProcessSchedule {
    #[inline]
    fn schedule(runnable: Runnable, woken_while_running: bool) {
        schedule(runnable, woken_while_running);
    }
}
