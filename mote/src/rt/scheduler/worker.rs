//! One worker thread's loop and its thread-local queues.

use std::cell::Cell;
use std::ptr;
use std::time::{Duration, Instant};

use crate::rt::task::Runnable;
use crossbeam_deque::Worker;

use super::distance::Distances;
use super::lifo::LifoSlot;
use super::{
    Look, Scheduler, BACKOFF_MAX, BACKOFF_MIN, INJECTOR_INTERVAL, MAX_LIFO_STREAK, NEAR_STEAL_PAYS,
    STEAL_PAYS, WAKE_AT,
};

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
    let mut thief = Thief::new(scheduler.stealers.len());
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
                // The streak's end lets the queue's tasks run first; with none queued the
                // task would be pushed only to be popped again at once (a locked
                // instruction and a deque round trip every fourth hop of a ping-pong).
                if local.queue.is_empty() && local.stack.is_empty() {
                    lifo_streak = 0;
                    return Some(task);
                }
                local.queue.push(task);
            }
            lifo_streak = 0;
            // The spawn stack before the queue, but every [`QUEUE_INTERVAL`]-th take the queue
            // first: a process that spawns its successor forever would starve it otherwise.
            if tick % QUEUE_INTERVAL == 0 {
                local.queue.pop().or_else(|| local.stack.pop())
            } else {
                local.stack.pop().or_else(|| local.queue.pop())
            }
        });
        let found = next.or_else(|| {
            find_work(
                scheduler,
                &local.queue,
                index,
                &mut pinned,
                runs,
                &mut thief,
            )
        });
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
/// sleeps. A worker whose last steal from another worker's queue did not pay waits first
/// (see [`Thief`]).
#[cold]
#[inline(never)]
fn find_work(
    scheduler: &Scheduler,
    queue: &Worker<Runnable>,
    me: usize,
    pinned: &mut Option<crossbeam_epoch::Guard>,
    runs: u32,
    thief: &mut Thief,
) -> Option<Runnable> {
    thief.judge(scheduler, me);
    if !thief.backoff.is_zero() {
        // Work from outside the workers is taken at once; only a migration waits.
        if let Some(task) = scheduler.injector.steal_batch_and_pop(queue).success() {
            return Some(task);
        }
        if scheduler.look(me) == Look::Work {
            unpin(pinned, runs);
            // Not a sleep of the scheduler's (this worker stays off the idle count, so
            // pushers wake nobody for it): the worker is as busy as one inside a poll, and
            // looks again within its longest wait.
            std::thread::sleep(thief.backoff);
        }
    }
    if let Some(task) = thief.took(scheduler.steal(queue, me, false), scheduler, me) {
        return Some(task);
    }
    if scheduler.spin(me) {
        return thief.took(scheduler.steal(queue, me, true), scheduler, me);
    }
    unpin(pinned, runs);
    scheduler.sleep(me);
    // Woken with every queue found empty in between: what the last steal said is stale.
    thief.forget();
    None
}

/// A worker's judgement of its steals from other workers' queues.
///
/// A steal moves tasks, and the cache lines of their state and mailboxes, to the thief's
/// core. It pays when the tasks have work to do, or when their owner could not get to them
/// (it is inside one long poll). It does not pay for tasks that each run for a few hundred
/// nanoseconds and are woken back on their old worker: 10,000 callers of one server are
/// woken by its replies on the server's worker; a thief took a batch, each sent its next
/// request back across and was woken on the server's worker again by the reply. The thief,
/// finding the victim's queue long again at once, stole batch after batch (1M calls: about
/// 40,000 steals, 30% of the calls began on one worker and ended on the other, the server
/// itself moved a dozen times), and its steals kept the victim's queue's lines and the
/// callers' state moving between the cores, which slowed the victim more than the stolen
/// work saved it: 290-300 ms on two cores against 207 on one.
///
/// So a steal is judged when the thief runs out of work again. It paid if the thief stayed
/// busy at least [`STEAL_PAYS`], or if no other worker finished a task meanwhile (an owner
/// inside one long poll, as a process spawning thousands of others in one go: its queue
/// would wait for it). From a victim whose core is near ([`Distances`]: lines move between
/// the two for little), [`NEAR_STEAL_PAYS`] per other worker is enough: there a thief that
/// took every batch of a fan-out's workers ran `parsum pool` in 0.6x the time, and a
/// server's callers cost their server little, while between far cores the same steals ran
/// `call` with 100 callers at up to 2.7 times the time. One that did not pay makes the worker
/// wait before its next steal from a peer: from [`BACKOFF_MIN`], doubling with each such
/// steal, up to [`longest_backoff`] ([`BACKOFF_MAX`] per other worker); one that paid
/// halves the wait (and below [`BACKOFF_MIN`] ends it). Halving rather than ending it at
/// once: a server's poll can keep its worker's counter still through a short steal, which
/// must not undo the wait built up.
pub(super) struct Thief {
    /// The last steal from a peer: when it happened, the other workers' task count then, and
    /// the victim.
    stole: Option<(Instant, u64, usize)>,
    /// How long to wait before the next steal from a peer.
    backoff: Duration,
    /// The other workers (at least 1).
    peers: u32,
    /// The longest wait ([`longest_backoff`] for this runtime's thread count).
    longest: Duration,
    /// How far each other worker's core is, from the thief's reads of its task counter.
    distances: Distances,
}

impl Thief {
    /// A thief among `workers` workers (itself included), with no steal to judge and no wait.
    fn new(workers: usize) -> Thief {
        let peers = workers.saturating_sub(1);
        Thief {
            stole: None,
            backoff: Duration::ZERO,
            peers: peers.max(1) as u32,
            longest: longest_backoff(peers),
            distances: Distances::new(workers),
        }
    }

    /// Forgets the last steal and the wait built up (the worker slept with every queue
    /// found empty: what they said is stale).
    fn forget(&mut self) {
        self.stole = None;
        self.backoff = Duration::ZERO;
    }

    /// Notes a steal from a peer (`from_peer`), passing the task on.
    #[inline]
    fn took(
        &mut self,
        found: Option<(Runnable, Option<usize>)>,
        scheduler: &Scheduler,
        me: usize,
    ) -> Option<Runnable> {
        let (task, victim) = found?;
        if let Some(victim) = victim {
            scheduler.count_steal(me);
            // First, before the other reads bring the victim's counter into this cache.
            self.distances
                .measure(victim, || scheduler.tasks_of(victim));
            self.stole = Some((Instant::now(), scheduler.others_tasks(me), victim));
        }
        Some(task)
    }

    /// The worker ran out of work: judges its last steal, if any.
    fn judge(&mut self, scheduler: &Scheduler, me: usize) {
        let Some((at, others, victim)) = self.stole.take() else {
            return;
        };
        let owners_ran = scheduler.others_tasks(me) != others;
        self.judged(at.elapsed(), owners_ran, victim);
    }

    /// Sets the wait after a steal from worker `victim` whose tasks kept the thief `busy`,
    /// while the other workers ran tasks of their own (`owners_ran`) or not.
    fn judged(&mut self, busy: Duration, owners_ran: bool, victim: usize) {
        let enough = enough_work(self.distances.is_near(victim), self.peers);
        self.backoff = next_backoff(self.backoff, paid(busy, owners_ran, enough), self.longest);
    }
}

/// How long a steal's tasks must keep the thief busy to pay: [`STEAL_PAYS`] from a far
/// victim, [`NEAR_STEAL_PAYS`] per other worker (`peers`) from a `near` one, never more
/// than from a far one.
fn enough_work(near: bool, peers: u32) -> Duration {
    if near {
        (NEAR_STEAL_PAYS * peers).min(STEAL_PAYS)
    } else {
        STEAL_PAYS
    }
}

/// Whether a steal paid: its tasks kept the thief `busy` for at least `enough` (see
/// [`enough_work`]), or the other workers ran no task meanwhile (`owners_ran` false: their
/// owner was inside a poll, and they would have waited for it).
fn paid(busy: Duration, owners_ran: bool, enough: Duration) -> bool {
    busy >= enough || !owners_ran
}

/// The wait before a thief's next steal from a peer, after a steal that `paid` or not,
/// given the wait before it and the longest wait.
fn next_backoff(backoff: Duration, paid: bool, longest: Duration) -> Duration {
    if !paid {
        return (backoff * 2).clamp(BACKOFF_MIN, longest);
    }
    let half = backoff / 2;
    if half < BACKOFF_MIN {
        Duration::ZERO
    } else {
        half
    }
}

/// The longest wait of a thief among `peers` other workers: [`BACKOFF_MAX`] for each.
///
/// What the wait bounds is the time until *some* thief looks at a victim's queue again
/// (a task behind a long poll waits that much longer), and the rate at which thieves
/// whose steals do not pay pull tasks and their cache lines away from the victim. With
/// `peers` thieves waiting independently, one looks about every `longest / peers`: so
/// each waits up to `peers` times [`BACKOFF_MAX`], and both stay as they were sized on two
/// cores (one peer). A fixed 1 ms let 15 thieves each take a batch of a server's callers
/// every millisecond: `call` with 10,000 callers took 533 ms at 16 threads against 357 at
/// one (raw tokio about 400 at every count).
fn longest_backoff(peers: usize) -> Duration {
    BACKOFF_MAX * peers.max(1) as u32
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_steal_pays_only_if_the_owners_ran_nothing_meanwhile() {
        let short = STEAL_PAYS / 4;
        assert!(
            !paid(short, true, STEAL_PAYS),
            "short, owners busy with their own tasks"
        );
        assert!(
            paid(short, false, STEAL_PAYS),
            "short, but the owners were stuck in a poll"
        );
        assert!(paid(STEAL_PAYS, true, STEAL_PAYS), "long enough");
    }

    #[test]
    fn from_a_near_worker_a_batch_of_short_tasks_pays() {
        let batch = Duration::from_micros(6);
        assert!(!paid(batch, true, enough_work(false, 1)), "far");
        assert!(paid(batch, true, enough_work(true, 1)), "near, one peer");
        assert!(
            !paid(Duration::from_nanos(500), true, enough_work(true, 1)),
            "near, but a single short task"
        );
        assert!(
            !paid(batch, true, enough_work(true, 15)),
            "near, but fifteen thieves share the victim"
        );
        assert_eq!(enough_work(true, 15), NEAR_STEAL_PAYS * 15);
        assert_eq!(
            enough_work(true, 1000),
            STEAL_PAYS,
            "never more than from a far worker"
        );
    }

    #[test]
    fn a_thief_judges_a_steal_by_its_victims_distance() {
        // Worker 1's thief; worker 0 answered its last reads quickly.
        let mut thief = Thief::new(2);
        assert_eq!(thief.peers, 1);
        let batch = Duration::from_micros(6);
        thief.judged(batch, true, 0);
        assert_eq!(thief.backoff, BACKOFF_MIN, "nothing measured yet: far");
        for tasks in 1..=super::super::distance::WINDOW as u64 {
            thief.distances.record(0, tasks, Duration::from_nanos(40));
        }
        thief.judged(batch, true, 0);
        assert_eq!(thief.backoff, Duration::ZERO, "near: the batch paid");
        thief.distances.record(0, 1_000, Duration::from_nanos(400));
        thief.judged(batch, true, 0);
        assert_eq!(thief.backoff, BACKOFF_MIN, "one slow read: far again");
        assert_eq!(Thief::new(1).peers, 1, "one worker steals from nobody");
    }

    #[test]
    fn steals_that_do_not_pay_double_the_wait_up_to_its_cap() {
        let mut backoff = Duration::ZERO;
        let mut seen = Vec::new();
        for _ in 0..20 {
            backoff = next_backoff(backoff, false, BACKOFF_MAX);
            seen.push(backoff);
        }
        assert_eq!(seen[0], BACKOFF_MIN);
        assert_eq!(seen[1], BACKOFF_MIN * 2);
        assert!(seen.windows(2).all(|w| w[1] >= w[0]));
        assert_eq!(*seen.last().unwrap(), BACKOFF_MAX);
    }

    #[test]
    fn the_longest_wait_grows_with_the_thieves() {
        assert_eq!(longest_backoff(1), BACKOFF_MAX, "two workers: as sized");
        assert_eq!(
            longest_backoff(0),
            BACKOFF_MAX,
            "one worker steals from nobody"
        );
        assert_eq!(longest_backoff(15), BACKOFF_MAX * 15);
        let mut backoff = Duration::ZERO;
        for _ in 0..40 {
            backoff = next_backoff(backoff, false, longest_backoff(15));
        }
        assert_eq!(
            backoff,
            BACKOFF_MAX * 15,
            "unpaid steals reach the scaled cap"
        );
    }

    #[test]
    fn a_steal_that_pays_halves_the_wait_and_ends_a_short_one() {
        assert_eq!(
            next_backoff(BACKOFF_MAX, true, BACKOFF_MAX),
            BACKOFF_MAX / 2
        );
        assert_eq!(
            next_backoff(BACKOFF_MIN * 2, true, BACKOFF_MAX),
            BACKOFF_MIN
        );
        assert_eq!(next_backoff(BACKOFF_MIN, true, BACKOFF_MAX), Duration::ZERO);
        assert_eq!(
            next_backoff(Duration::ZERO, true, BACKOFF_MAX),
            Duration::ZERO
        );
        // An occasional paid steal among many that do not (a server's poll keeping its
        // worker's counter still) leaves most of the wait in place.
        let mut backoff = BACKOFF_MAX;
        for _ in 0..10 {
            backoff = next_backoff(
                next_backoff(next_backoff(backoff, true, BACKOFF_MAX), false, BACKOFF_MAX),
                false,
                BACKOFF_MAX,
            );
        }
        assert_eq!(backoff, BACKOFF_MAX);
    }
}
