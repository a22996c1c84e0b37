//! The task's cell (its state word and the pointer to the current incarnation's
//! allocation), the allocation (the body's functions, then the body), and the [`Runnable`]
//! that runs it. The state machine is described in the module docs of `rt::task`.

use std::marker::PhantomData;
use std::mem::{self, ManuallyDrop};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr::{self, NonNull};
use std::task::{Context, Poll, RawWaker, Waker};

use super::waker::WAKER_VTABLE;
use crate::rt::sync::{AtomicUsize, Ordering, UnsafeCell};

/// A `Runnable` exists for the incarnation (or must be made when the running poll ends).
pub(super) const SCHEDULED: usize = 1 << 0;
/// The body is being polled.
pub(super) const RUNNING: usize = 1 << 1;
/// The incarnation's body is live. Without it the cell is *completed*: the body is gone (or
/// there is none yet), and wakes do nothing. A zeroed cell (the process table's pages are
/// zeroed memory) is completed and holds no allocation, as [`TaskCell::new`] makes it.
pub(super) const LIVE: usize = 1 << 2;

/// How the scheduler takes a task that was woken (a type with no value: the one schedule
/// function every task of a runtime shares).
pub(crate) trait Schedule {
    /// Queues `runnable`; `woken_while_running` says it was woken during its own poll
    /// (a yield) rather than while idle.
    fn schedule(runnable: Runnable, woken_while_running: bool);

    /// Tests count frees with it: called when a task allocation of this schedule is freed.
    #[cfg(test)]
    fn freed() {}
}

/// What a task runs: a future that is also given its task's cell (the process's runner
/// finds its slot from it, see `Slot::of_task`, and marks the task completed before it
/// drops its future in place, see [`TaskCell::complete_in_poll`]).
pub(crate) trait TaskBody: Send + 'static {
    /// Polls the body, as [`Future::poll`](std::future::Future::poll). `cell` is the cell
    /// of the task that runs it.
    fn poll(self: Pin<&mut Self>, cell: &TaskCell, cx: &mut Context<'_>) -> Poll<()>;
}

/// What a task's body type provides, reached through its allocation's header.
pub(super) struct TaskVTable {
    /// Polls the body (pinned in the allocation).
    poll: unsafe fn(NonNull<Header>, &TaskCell, &mut Context<'_>) -> Poll<()>,
    /// Drops the body in place; a panic in its destructor is swallowed.
    drop_body: unsafe fn(NonNull<Header>),
    /// Frees the allocation (the body already dropped).
    dealloc: unsafe fn(NonNull<Header>),
    /// The runtime's [`Schedule::schedule`].
    schedule: fn(Runnable, bool),
}

/// The start of every task allocation: the body's functions (8 bytes).
#[repr(C)]
pub(super) struct Header {
    vtable: &'static TaskVTable,
}

/// The whole allocation: the header first (so a pointer to one is a pointer to the other),
/// then the body.
#[repr(C)]
struct Alloc<B> {
    header: Header,
    /// Dropped in place by `drop_body` (pinned values may be), never by the `Box`.
    body: std::cell::UnsafeCell<ManuallyDrop<B>>,
}

/// The bytes of the allocation of a task with body `B` (before malloc rounds it up).
pub(crate) const fn task_bytes<B>() -> usize {
    std::mem::size_of::<Alloc<B>>()
}

/// The vtable of bodies `B` scheduled by `S`: one `'static` constant per pair.
struct VTableOf<B, S>(PhantomData<(fn(B), S)>);

impl<B: TaskBody, S: Schedule> VTableOf<B, S> {
    const VTABLE: TaskVTable = TaskVTable {
        poll: poll::<B>,
        drop_body: drop_body::<B>,
        dealloc: dealloc::<B, S>,
        schedule: S::schedule,
    };
}

/// # Safety
/// `ptr` is a live `Alloc<B>` whose body is live, `cell` its task's cell, and this thread
/// has the right to poll it (the cell is `RUNNING` for it).
unsafe fn poll<B: TaskBody>(
    ptr: NonNull<Header>,
    cell: &TaskCell,
    cx: &mut Context<'_>,
) -> Poll<()> {
    let alloc = ptr.cast::<Alloc<B>>().as_ptr();
    // SAFETY: the caller's promise; the body never moves out of the allocation, so it stays
    // pinned until it is dropped in place.
    let body = unsafe { Pin::new_unchecked(&mut **(*alloc).body.get()) };
    body.poll(cell, cx)
}

/// # Safety
/// `ptr` is a live `Alloc<B>` whose body is live, this thread alone may touch it, and it is
/// never used again.
unsafe fn drop_body<B>(ptr: NonNull<Header>) {
    let alloc = ptr.cast::<Alloc<B>>().as_ptr();
    // A panicking destructor has still dropped the rest of the body (drop glue goes on
    // while unwinding), so swallowing its panic leaks nothing, and the runtime goes on.
    // SAFETY: the caller's promise.
    let _ = catch_unwind(AssertUnwindSafe(|| unsafe {
        ManuallyDrop::drop(&mut *(*alloc).body.get())
    }));
}

/// # Safety
/// `ptr` came from [`TaskCell::spawn`] with this `B`, its body is dropped, and nothing
/// refers to it any more.
unsafe fn dealloc<B, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the caller's promise; the box was made by `spawn`. `ManuallyDrop` keeps the
    // (dropped) body from being dropped again.
    drop(unsafe { Box::from_raw(ptr.cast::<Alloc<B>>().as_ptr()) });
    #[cfg(test)]
    S::freed();
}

/// A task's permanent part: its state word and the pointer to the allocation of its
/// current (or last) incarnation. 16 bytes, kept in the process's table slot, which is
/// never freed and is reused for incarnation after incarnation; so a [`Waker`] is just the
/// cell's address with no reference count, and a [`Runnable`] too.
///
/// # Stale wakers
///
/// A waker does not keep an incarnation alive: it names the cell, not the incarnation.
/// A waker made for an incarnation that has ended (a timer's, a foreign receiver's) either
/// finds the cell completed (`LIVE` off) and does nothing, or, once the cell holds a new
/// incarnation,
/// wakes that one: a spurious poll, which every future must tolerate (the contract of
/// `Future::poll`) and mote's receive does (it parks again). It can never make a second
/// runnable, nor a runnable of a cell with no live body: a wake makes a runnable only from
/// an idle state (`LIVE`, neither `SCHEDULED` nor `RUNNING`), and only
/// [`TaskCell::spawn`] sets `LIVE` on a completed cell, after it wrote the new allocation
/// (published with the state's `Release`), together with the `SCHEDULED` of the runnable
/// it returns.
///
/// The price: the cell must outlive every waker and runnable made from it (process slots
/// are never freed; the tests leak their cells or keep them past every waker's last use).
pub(crate) struct TaskCell {
    /// `SCHEDULED`, `RUNNING`, `LIVE` (see the module docs of `rt::task`).
    state: AtomicUsize,
    /// The allocation of the current or last incarnation (null before the first): written
    /// by `spawn` while the cell is completed and no run is under way, read by whoever
    /// holds the run right (a runnable, or `RUNNING`).
    task: UnsafeCell<*mut Header>,
}

// SAFETY: `state` is atomic; `task` is written only by `spawn`, which the caller runs while
// nothing else uses the incarnation (no runnable, no run), and read only by the holder of
// the run right, after an `Acquire` of the state that the write was published by. The
// allocations it points at are of `Send` bodies (`TaskBody: Send`).
unsafe impl Sync for TaskCell {}
// SAFETY: as above; the cell owns a `Send` body.
unsafe impl Send for TaskCell {}

impl TaskCell {
    /// A cell with no incarnation (completed: wakes do nothing). All zeros.
    pub(crate) fn new() -> Self {
        TaskCell {
            state: AtomicUsize::new(0),
            task: UnsafeCell::new(ptr::null_mut()),
        }
    }

    /// Starts a new incarnation running `body`, scheduled by `S`, and returns its first
    /// runnable (not yet scheduled: the caller queues or runs it). The last incarnation's
    /// allocation (its body dropped when it completed) is freed here, on the spawning
    /// thread (see the slot's `task` field for why).
    ///
    /// # Safety
    /// The cell stays at this address for as long as any runnable or waker made from it is
    /// used, and the last incarnation is over: it completed and no run of it is under way
    /// (for a slot: the slot was recycled, which waits out the epoch pin held across every
    /// run, see `rt::scheduler::worker`).
    pub(crate) unsafe fn spawn<B: TaskBody, S: Schedule>(&self, body: B) -> Runnable {
        // Acquire: whatever the last incarnation's end did happens before we free it.
        let state = self.state.load(Ordering::Acquire);
        assert_eq!(state, 0, "a task cell reused before it completed");
        let alloc = Box::new(Alloc {
            header: Header {
                vtable: &VTableOf::<B, S>::VTABLE,
            },
            body: std::cell::UnsafeCell::new(ManuallyDrop::new(body)),
        });
        let new = Box::into_raw(alloc).cast::<Header>();
        // SAFETY: the caller's promise: no run and no runnable; and wakes read `task` only
        // after making a runnable, which they cannot while `LIVE` is off.
        let old = self
            .task
            .with_mut(|task| unsafe { mem::replace(&mut *task, new) });
        if let Some(old) = NonNull::new(old) {
            // SAFETY: the last incarnation completed, so its body is dropped, and nothing
            // else refers to the allocation (wakers refer to the cell).
            unsafe { (old.as_ref().vtable.dealloc)(old) };
        }
        // Release: a wake or run that sees LIVE (Acquire) sees the new allocation.
        self.state.store(LIVE | SCHEDULED, Ordering::Release);
        Runnable {
            cell: NonNull::from(self),
        }
    }

    /// The allocation of the current incarnation.
    ///
    /// # Safety
    /// The caller holds the run right (a runnable, or `RUNNING`), acquired with the state.
    unsafe fn header(&self) -> NonNull<Header> {
        // SAFETY: the caller's promise: `spawn` wrote it before publishing the state we
        // acquired, and nobody writes it while a run right exists.
        let ptr = self.task.with(|task| unsafe { *task });
        // SAFETY: a run right exists only for a spawned incarnation.
        unsafe { NonNull::new_unchecked(ptr) }
    }

    /// A waker of the cell's task (no reference count: see "Stale wakers").
    ///
    /// # Safety
    /// The cell outlives every use of the waker.
    pub(crate) unsafe fn waker(&self) -> Waker {
        // SAFETY: the static vtable's functions take a cell pointer, which the caller keeps
        // live.
        unsafe {
            Waker::from_raw(RawWaker::new(
                ptr::from_ref(self).cast::<()>(),
                &WAKER_VTABLE,
            ))
        }
    }

    /// Whether `waker` wakes this cell's task.
    pub(crate) fn is_waker(&self, waker: &Waker) -> bool {
        ptr::eq(waker.data(), ptr::from_ref(self).cast::<()>())
            && ptr::eq(waker.vtable(), &WAKER_VTABLE)
    }

    /// Wakes the task: schedules it if idle, has the poll under way schedule it again if
    /// running, and does nothing if it is scheduled already or completed.
    pub(crate) fn wake(&self) {
        let mut state = self.state.load(Ordering::Acquire);
        loop {
            if state & LIVE == 0 {
                return;
            }
            // Already scheduled: the write of the same value still orders what we did
            // before waking before the poll that the runnable will make. Running: the poll
            // under way schedules it again when it ends. Idle: a new runnable.
            let new = state | SCHEDULED;
            match self
                .state
                .compare_exchange_weak(state, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break,
                Err(now) => state = now,
            }
        }
        if state & (SCHEDULED | RUNNING) == 0 {
            // SAFETY: we made the incarnation SCHEDULED from idle, so the run right is ours
            // (no runnable exists, and none can complete it before ours runs), acquired
            // with the state that `spawn` published the allocation with.
            let header = unsafe { self.header() };
            // SAFETY: as above: the header is live while the run right is ours.
            let schedule = unsafe { header.as_ref() }.vtable.schedule;
            schedule(
                Runnable {
                    cell: NonNull::from(self),
                },
                false,
            );
        }
    }

    /// Called by a body during its poll, before it drops what it owns in place: the task is
    /// completed (`LIVE` off) from now on: wakes do nothing, and the task will not drop the body (nor
    /// poll it again). This is the runner's "process ended" mark, kept in the cell rather
    /// than in 8 more bytes of every task.
    ///
    /// # Safety
    /// Called from the body's own poll (the caller holds `RUNNING`).
    pub(crate) unsafe fn complete_in_poll(&self) {
        self.state.fetch_and(!LIVE, Ordering::AcqRel);
    }
}

/// The cells of tests are dropped (the process table's never are): the last incarnation's
/// allocation goes with them, its body first if it had not completed.
impl Drop for TaskCell {
    fn drop(&mut self) {
        let state = self.state.load(Ordering::Acquire);
        let ptr = self.task.with(|task| {
            // SAFETY: `&mut self`: nothing else uses the cell.
            unsafe { *task }
        });
        if let Some(ptr) = NonNull::new(ptr) {
            // SAFETY: the allocation is the cell's; with `&mut self` no runnable or waker
            // of it is in use (the contract of `spawn`).
            unsafe {
                let vtable = ptr.as_ref().vtable;
                if state & LIVE != 0 {
                    (vtable.drop_body)(ptr);
                }
                (vtable.dealloc)(ptr);
            }
        }
    }
}

/// The right to run a task once: it exists while the task is `SCHEDULED` (and not
/// `RUNNING`), and is one pointer (to the task's cell; the LIFO slot keeps it as one,
/// through [`Runnable::into_raw`]).
pub(crate) struct Runnable {
    cell: NonNull<TaskCell>,
}

// SAFETY: a runnable's body is `Send` (see `TaskBody`), and the cell is `Sync`.
unsafe impl Send for Runnable {}

impl Runnable {
    /// The runnable as one pointer (its run right goes with it).
    pub(crate) fn into_raw(self) -> NonNull<()> {
        let ptr = self.cell.cast();
        mem::forget(self);
        ptr
    }

    /// The runnable turned into a pointer by [`Runnable::into_raw`].
    ///
    /// # Safety
    /// `ptr` came from `into_raw`, and is turned back once.
    pub(crate) unsafe fn from_raw(ptr: NonNull<()>) -> Self {
        Runnable { cell: ptr.cast() }
    }

    /// Polls the body once. Returns whether the task was woken during the poll, in which
    /// case it has been scheduled again (with `woken_while_running`).
    pub(crate) fn run(self) -> bool {
        let ptr = self.cell;
        // The run right moves to this poll (and on to a new runnable, or ends).
        mem::forget(self);
        // SAFETY: the cell outlives its runnables (the contract of `spawn`).
        let cell = unsafe { ptr.as_ref() };
        // SCHEDULED -> RUNNING in one instruction: a runnable's task is SCHEDULED and not
        // RUNNING (and LIVE), so flipping both bits clears one and sets the other.
        // Acquire: the poll sees what the waker did before waking.
        let before = cell.state.fetch_xor(SCHEDULED | RUNNING, Ordering::AcqRel);
        debug_assert_eq!(before, LIVE | SCHEDULED);
        // SAFETY: the run right is ours (RUNNING), acquired just above.
        let header = unsafe { cell.header() };
        // SAFETY: the static vtable's functions take a cell pointer; the cell outlives the
        // poll, and the waker is only borrowed (its drop would do nothing anyway).
        let waker = ManuallyDrop::new(unsafe { cell.waker() });
        let mut cx = Context::from_waker(&waker);
        let unwinding = CompleteOnUnwind(ptr);
        // SAFETY: RUNNING is ours; the body is live (LIVE).
        let poll = unsafe { (header.as_ref().vtable.poll)(header, cell, &mut cx) };
        mem::forget(unwinding);
        match poll {
            Poll::Ready(()) => {
                // SAFETY: RUNNING is still ours; the body is not used again.
                unsafe { complete(ptr) };
                false
            }
            Poll::Pending => {
                // Release: the next poll (maybe on another thread) sees this one's writes.
                // RUNNING is set (ours), so subtracting it clears it: one `lock xadd`,
                // where a `fetch_and` whose result is used compiles to a CAS loop.
                let before = cell.state.fetch_sub(RUNNING, Ordering::AcqRel);
                if before & (SCHEDULED | LIVE) == SCHEDULED | LIVE {
                    // Woken during the poll: the waker left it to us to schedule it.
                    // SAFETY: as in `wake`, the header is live while we hold the run right.
                    let schedule = unsafe { header.as_ref() }.vtable.schedule;
                    schedule(Runnable { cell: ptr }, true);
                    true
                } else {
                    if before & LIVE == 0 {
                        // A body that marked itself completed and still returned Pending:
                        // completed all the same (what it owns is gone).
                        cell.state.swap(0, Ordering::AcqRel);
                    }
                    false
                }
            }
        }
    }
}

/// Drops the body of a task that is `RUNNING` (or `SCHEDULED` for an unrun runnable) for
/// the caller, unless the body marked itself completed, and marks it completed.
///
/// # Safety
/// The caller holds the task's run right (RUNNING, or an unrun runnable) and gives it up.
unsafe fn complete(ptr: NonNull<TaskCell>) {
    // SAFETY: the cell outlives its run rights.
    let cell = unsafe { ptr.as_ref() };
    // Relaxed: only our own thread clears LIVE while we hold the run right.
    if cell.state.load(Ordering::Relaxed) & LIVE != 0 {
        // SAFETY: the run right makes the body ours, and it is live; it is not used again.
        unsafe {
            let header = cell.header();
            (header.as_ref().vtable.drop_body)(header);
        }
    }
    // Every flag off: RUNNING, LIVE, and SCHEDULED (a wake during the last poll, or an
    // unrun runnable's, means nothing any more). A swap, not a plain store: loom found a
    // plain store letting the next `spawn` read a wake's earlier compare-exchange (state
    // `LIVE | RUNNING | SCHEDULED`) after it. Release: the next `spawn` in this cell
    // (Acquire) sees the body's drop.
    cell.state.swap(0, Ordering::AcqRel);
}

/// Completes the task if a poll unwinds (see the module docs of `rt::task`, "Panics").
struct CompleteOnUnwind(NonNull<TaskCell>);

impl Drop for CompleteOnUnwind {
    fn drop(&mut self) {
        // SAFETY: only alive during a poll, which holds RUNNING.
        unsafe { complete(self.0) };
    }
}

impl Drop for Runnable {
    /// A runnable dropped unrun (the runtime shutting down, a queue dropped): its body is
    /// dropped now, and the task completes.
    fn drop(&mut self) {
        // SAFETY: the runnable's run right, given up.
        unsafe { complete(self.cell) };
    }
}
