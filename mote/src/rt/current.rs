//! The current-process context: which process this thread is polling and, while a
//! process's future is being dropped because the process ended, why it ended.
//!
//! Only the runner ([`rt::runner`](crate::rt::runner)) sets it, around each poll; everything
//! else reads it: sends (whether the thread holds an epoch guard), `self_id`, a pool's job
//! reporting how its worker ended.

use std::cell::Cell;
use std::ptr;

use crate::rt::table::Slot;
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

thread_local! {
    /// The epoch guard the runner holds on its stack while it polls a process on this
    /// thread (see [`pinned`]), so that [`repin`] can move it forward; meaningful only while
    /// `CURRENT` is set (outside polls it is left pointing at the last poll's guard).
    static POLL_GUARD: Cell<*mut crossbeam_epoch::Guard> = const { Cell::new(ptr::null_mut()) };
    /// The epoch guard a scheduler worker holds across a batch of task runs (see
    /// [`worker_guard`]); null while it holds none, and on threads that are not workers.
    static WORKER_GUARD: Cell<*mut crossbeam_epoch::Guard> = const { Cell::new(ptr::null_mut()) };
    /// Calls to [`repin`] (weighted, see [`count_towards_repin`]) since the guard last
    /// moved forward.
    static SINCE_REPIN: Cell<u32> = const { Cell::new(0) };
    /// The slot of the process being polled on this thread.
    static CURRENT: Cell<*const Slot> = const { Cell::new(ptr::null()) };
    /// The exit reason of the process whose future is being dropped on this thread.
    static ENDING: Cell<Option<ExitReason>> = const { Cell::new(None) };
}

/// While a process's future is being dropped because the process ended, the reason it
/// ended with: lets state owned by the future (a pool's running job) report it.
pub(crate) fn ending_reason() -> Option<ExitReason> {
    ENDING.with(|e| {
        let reason = e.take();
        e.set(reason.clone());
        reason
    })
}

/// Whether this thread is polling a process, and so holds an epoch guard (see `Slot::send`).
#[inline]
pub(crate) fn pinned() -> bool {
    !polled().is_null()
}

/// The slot of the process being polled on this thread (null outside a process's poll).
#[inline]
pub(crate) fn polled() -> *const Slot {
    CURRENT.with(Cell::get)
}

/// The id of the process running on this thread, if any. Inline, as [`crate::self_id`].
#[inline]
pub(crate) fn current() -> Option<ProcessId> {
    let slot = CURRENT.with(Cell::get);
    // SAFETY: slots are never freed; a non-null CURRENT is the slot being polled.
    let slot = unsafe { slot.as_ref() }?;
    Some(slot.id())
}

/// The run group of the process running on this thread (0 outside any process): what a
/// process it spawns inherits.
pub(crate) fn run_group() -> u32 {
    let slot = CURRENT.with(Cell::get);
    // SAFETY: slots are never freed; a non-null CURRENT is the slot being polled.
    unsafe { slot.as_ref() }.map_or(0, Slot::run_group)
}

/// Lends the runner `guard`, the epoch pin this thread's scheduler worker holds across the
/// task runs of a batch, until [`drop_worker_guard`]: a process poll then uses it instead of
/// pinning and unpinning on its own. Pinning from unpinned (a locked instruction on the
/// thread's epoch word, a thread-local lookup, a collection every 128th time) was 4% of a
/// `server::call` round trip, which runs two process polls. The caller keeps `guard` where
/// it is and leaves it alone until `drop_worker_guard`.
#[inline]
pub(crate) fn lend_worker_guard(guard: &mut crossbeam_epoch::Guard) {
    WORKER_GUARD.with(|g| g.set(guard));
}

/// Takes back the guard of [`lend_worker_guard`], before it is dropped or moved.
#[inline]
pub(crate) fn drop_worker_guard() {
    WORKER_GUARD.with(|g| g.set(ptr::null_mut()));
}

/// The guard lent by [`lend_worker_guard`], if one is.
///
/// # Safety
/// The caller uses it only within one task run on this thread (the lender does not touch
/// it meanwhile), and makes no second `&mut` to it while it uses this one.
#[inline]
pub(crate) unsafe fn worker_guard<'a>() -> Option<&'a mut crossbeam_epoch::Guard> {
    let guard = WORKER_GUARD.with(Cell::get);
    // SAFETY: non-null, it points at the guard the worker lent and keeps alive unmoved until
    // it takes it back; the caller's promise covers exclusivity.
    unsafe { guard.as_mut() }
}

/// Makes `slot` the process this thread polls, until [`leave`]. The caller holds `guard`,
/// its epoch pin, for longer than that and leaves it alone until then (see [`pinned`] and
/// [`repin`]).
#[inline]
pub(crate) fn enter(slot: &'static Slot, guard: &mut crossbeam_epoch::Guard) {
    CURRENT.with(|c| c.set(slot));
    POLL_GUARD.with(|g| g.set(guard));
}

/// This thread polls no process any more.
#[inline]
pub(crate) fn leave() {
    crate::rt::poll_end::run();
    // POLL_GUARD is left dangling: it is only read while CURRENT is set (see `repin_now`).
    CURRENT.with(|c| c.set(ptr::null()));
}

/// How many [`repin`] calls move the poll's epoch forward once.
const REPIN_EVERY: u32 = 64;

/// How many [`repin_after_sends`] calls count as one [`repin`] call: a send costs a few
/// nanoseconds, a move of the guard a `SeqCst` fence, so sends move it 16 times less often
/// than spawns (every 1024; the send loop's count is one thread-local add per send).
const SENDS_PER_REPIN: u32 = 16;

/// Called by operations a process may repeat many times in one poll (spawning): every
/// [`REPIN_EVERY`] calls, moves the poll's epoch guard forward.
///
/// A guard held for a whole poll is what makes a pinned send cheap, but a poll that runs
/// long (a loop spawning a million short-lived processes) would hold the global epoch back
/// for all of it, and with it the recycling of every slot freed meanwhile: the dead
/// processes' tasks and slots would pile up until the poll ends. Moving forward is sound
/// here because no runtime code keeps a slot reached under the guard across a call back
/// into the process's code: a send or link uses the target's slot and lets go of it before
/// returning. The guard moves only when it is the thread's only one (crossbeam's `repin`).
#[inline]
pub(crate) fn repin() {
    count_towards_repin(SENDS_PER_REPIN, false);
}

/// Called after each send from a process: every [`REPIN_EVERY`] × [`SENDS_PER_REPIN`]
/// sends, moves the poll's epoch guard forward, as [`repin`] does for spawns. A poll that
/// sends a message to each of a million waiting processes (which end as they receive it)
/// would otherwise keep every one of them from being recycled until it ends: their mailbox
/// blocks and deferred releases piled up to a third of the `million` benchmark's peak
/// memory. Sound for the same reason as [`repin`]: a send lets go of the target's slot
/// before it returns.
///
/// `sends` is 1 for a send queued at once, and a batch's length for the sends the outbox
/// gathered and queued together (see `rt::outbox`): a poll whose sends all go to one
/// receiver that never waits gathers every one of them, and must still move its guard.
#[inline]
pub(crate) fn repin_after_sends(sends: u32) {
    count_towards_repin(sends, true);
}

/// Counts `weight` towards the next move of the poll's guard; `sends` says the calls are
/// sends (see [`repin_now`]).
#[inline]
fn count_towards_repin(weight: u32, sends: bool) {
    const DUE: u32 = REPIN_EVERY * SENDS_PER_REPIN;
    let due = SINCE_REPIN.with(|n| {
        let calls = n.get() + weight;
        n.set(if calls >= DUE { 0 } else { calls });
        calls >= DUE
    });
    if due {
        repin_now(sends);
    }
}

thread_local! {
    /// The poll under way at this thread's last [`repin_now`]: its process's slot, and that
    /// process's poll count then.
    static LAST_REPIN: Cell<(*const Slot, u64)> = const { Cell::new((ptr::null(), 0)) };
}

/// Moves the poll's guard forward; after a run of sends within one poll (`sends`, and the
/// same poll under way at the thread's last move: a long sending poll), also collects.
#[cold]
fn repin_now(sends: bool) {
    if !pinned() {
        return;
    }
    let polled = polled();
    // SAFETY: slots are never freed; `pinned` says a process is being polled, so `polled`
    // is its slot.
    let polls = unsafe { &*polled }.work_counts().1;
    let one_poll = LAST_REPIN.with(|last| last.replace((polled, polls))) == (polled, polls);
    let guard = POLL_GUARD.with(Cell::get);
    // SAFETY: a process is being polled on this thread (`pinned`), so `enter` set the
    // pointer to the guard the runner keeps alive on its stack and does not touch until
    // after `leave` (the contract of `enter`); we are inside that poll, on its thread.
    if let Some(guard) = unsafe { guard.as_mut() } {
        guard.repin();
        // And collects (crossbeam's `flush`: this thread's deferred frees to the global
        // queue, then the expired ones run here), so that the processes a long sending poll
        // ends are recycled on its own thread too, not only by the thread that ran them.
        // In `million` the other worker ran each woken process and then also recycled it,
        // freeing its first mailbox block into the allocator's bin that main's next send
        // allocated from: both threads' malloc and free contended on it (free 20% of the
        // thief's samples, malloc 29% of main's, in the send loop), and the thief fell
        // behind. Recycling here, main frees blocks where it allocates them next. Deferred
        // drops could already run inside a poll (crossbeam-deque flushes when a push grows
        // a worker's queue), so leftover messages see no new context. Only for a sending
        // poll: a spawning one (`spawn`: a million children that end at once) ran 1.46x
        // slower recycling its children itself (5 interleaved rounds), and sends spread
        // over many short polls need no help (`call`, whose caller's and server's sends
        // alternate on one thread, came out 1.06-1.08x slower in three sets collecting
        // whenever the same process was polled at the last move).
        if sends && one_poll {
            guard.flush();
        }
    }
}

/// Runs `drop_future` with `reason` as the [`ending_reason`], and returns the reason then
/// (`Killed` if a destructor took it away).
pub(crate) fn while_ending(reason: ExitReason, drop_future: impl FnOnce()) -> ExitReason {
    ENDING.with(|e| e.set(Some(reason)));
    drop_future();
    ENDING.with(Cell::take).unwrap_or(ExitReason::Killed)
}
