//! The task's allocation (a header, then the future), its per-future-type functions, and
//! the [`Runnable`] that runs it. The state machine is described in the module docs of
//! `rt::task`.

use std::cell::UnsafeCell;
use std::future::Future;
use std::marker::PhantomData;
use std::mem::{self, ManuallyDrop};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll, RawWaker, Waker};

use super::waker::{drop_ref, WAKER_VTABLE};
use crate::rt::sync::{AtomicUsize, Ordering};

/// A `Runnable` exists for the task (or must be made when the running poll ends).
pub(super) const SCHEDULED: usize = 1 << 0;
/// The future is being polled.
pub(super) const RUNNING: usize = 1 << 1;
/// The future is gone; wakes do nothing.
pub(super) const COMPLETED: usize = 1 << 2;
/// One reference (a waker or the runnable): the count takes the bits above the flags.
pub(super) const REFERENCE: usize = 1 << 3;

/// How the scheduler takes a task that was woken (a type with no value: the one schedule
/// function every task of a runtime shares).
pub(crate) trait Schedule {
    /// Queues `runnable`; `woken_while_running` says it was woken during its own poll
    /// (a yield) rather than while idle.
    fn schedule(runnable: Runnable, woken_while_running: bool);

    /// Tests count frees with it: called when a task of this schedule is freed.
    #[cfg(test)]
    fn freed() {}
}

/// What a task's future type provides, reached through its header.
pub(super) struct TaskVTable {
    /// Polls the future (pinned in the allocation).
    poll: unsafe fn(NonNull<Header>, &mut Context<'_>) -> Poll<()>,
    /// Drops the future in place; a panic in its destructor is swallowed.
    drop_future: unsafe fn(NonNull<Header>),
    /// Frees the allocation (the future already dropped).
    dealloc: unsafe fn(NonNull<Header>),
    /// The runtime's [`Schedule::schedule`].
    pub(super) schedule: fn(Runnable, bool),
}

/// The start of every task allocation: 16 bytes.
#[repr(C)]
pub(super) struct Header {
    /// The flags and reference count (see the module docs of `rt::task`).
    pub(super) state: AtomicUsize,
    /// The functions of the future's type.
    pub(super) vtable: &'static TaskVTable,
}

/// The whole allocation: the header first (so a pointer to one is a pointer to the other),
/// then the future.
#[repr(C)]
struct Cell<F> {
    header: Header,
    /// Dropped in place by `drop_future` (pinned values may be), never by the `Box`.
    future: UnsafeCell<ManuallyDrop<F>>,
}

/// The bytes of the allocation of a task with future `F` (before malloc rounds it up).
pub(crate) const fn task_bytes<F>() -> usize {
    std::mem::size_of::<Cell<F>>()
}

/// The vtable of futures `F` scheduled by `S`: one `'static` constant per pair.
struct VTableOf<F, S>(PhantomData<(fn(F), S)>);

impl<F: Future<Output = ()>, S: Schedule> VTableOf<F, S> {
    const VTABLE: TaskVTable = TaskVTable {
        poll: poll::<F>,
        drop_future: drop_future::<F>,
        dealloc: dealloc::<F, S>,
        schedule: S::schedule,
    };
}

/// # Safety
/// `ptr` is a live `Cell<F>` whose future is live, and this thread has the right to poll it
/// (the task is `RUNNING` for it).
unsafe fn poll<F: Future<Output = ()>>(ptr: NonNull<Header>, cx: &mut Context<'_>) -> Poll<()> {
    let cell = ptr.cast::<Cell<F>>().as_ptr();
    // SAFETY: the caller's promise; the future never moves out of the allocation, so it
    // stays pinned until it is dropped in place.
    let future = unsafe { Pin::new_unchecked(&mut **(*cell).future.get()) };
    future.poll(cx)
}

/// # Safety
/// `ptr` is a live `Cell<F>` whose future is live, this thread alone may touch it, and it is
/// never used again.
unsafe fn drop_future<F>(ptr: NonNull<Header>) {
    let cell = ptr.cast::<Cell<F>>().as_ptr();
    // A panicking destructor has still dropped the rest of the future (drop glue goes on
    // while unwinding), so swallowing its panic leaks nothing, and the runtime goes on.
    // SAFETY: the caller's promise.
    let _ = catch_unwind(AssertUnwindSafe(|| unsafe {
        ManuallyDrop::drop(&mut *(*cell).future.get())
    }));
}

/// # Safety
/// `ptr` came from [`spawn`] with this `F`, its future is dropped, and nothing refers to it
/// any more.
unsafe fn dealloc<F, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the caller's promise; the box was made by `spawn`. `ManuallyDrop` keeps the
    // (dropped) future from being dropped again.
    drop(unsafe { Box::from_raw(ptr.cast::<Cell<F>>().as_ptr()) });
    #[cfg(test)]
    S::freed();
}

/// Frees the task whose last reference was just dropped: drops the future first if it is
/// still there (an idle task nobody can wake any more).
///
/// # Safety
/// The reference count of the task at `ptr` has just reached zero, with `Acquire` ordering
/// (it saw every other reference's last use).
pub(super) unsafe fn destroy(ptr: NonNull<Header>) {
    // SAFETY: the last reference was ours, so the header is live and ours alone.
    let header = unsafe { ptr.as_ref() };
    let vtable = header.vtable;
    if header.state.load(Ordering::Relaxed) & COMPLETED == 0 {
        // SAFETY: not completed, so the future is live; no one else can reach it.
        unsafe { (vtable.drop_future)(ptr) };
    }
    // SAFETY: the future is gone and no reference is left.
    unsafe { (vtable.dealloc)(ptr) };
}

/// Allocates the task of `future`, scheduled by `S`, and returns its first runnable (not
/// yet scheduled: the caller queues or runs it).
pub(crate) fn spawn<F, S>(future: F) -> Runnable
where
    F: Future<Output = ()> + Send + 'static,
    S: Schedule,
{
    let cell = Box::new(Cell {
        header: Header {
            // The runnable returned is the one reference, and the task is scheduled.
            state: AtomicUsize::new(SCHEDULED | REFERENCE),
            vtable: &VTableOf::<F, S>::VTABLE,
        },
        future: UnsafeCell::new(ManuallyDrop::new(future)),
    });
    let ptr = NonNull::from(Box::leak(cell)).cast::<Header>();
    Runnable { ptr }
}

/// The right to run a task once: it exists while the task is `SCHEDULED` (and not
/// `RUNNING`), holds one reference, and is one pointer wide (the LIFO slot keeps it as
/// one, through [`Runnable::into_raw`]).
pub(crate) struct Runnable {
    ptr: NonNull<Header>,
}

// SAFETY: a runnable's future is `Send` (see `spawn`), and the header is atomics and a
// `'static` table of functions.
unsafe impl Send for Runnable {}

impl Runnable {
    /// A runnable for the task at `ptr`, taking over one reference.
    ///
    /// # Safety
    /// `ptr` is a task that is `SCHEDULED`, not `RUNNING` and not `COMPLETED`, for which no
    /// other runnable exists, and the caller gives up one reference to it.
    pub(super) unsafe fn from_header(ptr: NonNull<Header>) -> Self {
        Runnable { ptr }
    }

    /// A new waker of the task (one more reference).
    pub(crate) fn waker(&self) -> Waker {
        // SAFETY: the runnable's reference keeps the task live while the clone is made.
        unsafe { Waker::from_raw(super::waker::clone_waker(self.ptr.as_ptr() as *const ())) }
    }

    /// The runnable as one pointer (its reference goes with it).
    pub(crate) fn into_raw(self) -> NonNull<()> {
        let ptr = self.ptr.cast();
        mem::forget(self);
        ptr
    }

    /// The runnable turned into a pointer by [`Runnable::into_raw`].
    ///
    /// # Safety
    /// `ptr` came from `into_raw`, and is turned back once.
    pub(crate) unsafe fn from_raw(ptr: NonNull<()>) -> Self {
        Runnable { ptr: ptr.cast() }
    }

    /// Polls the future once. Returns whether the task was woken during the poll, in which
    /// case it has been scheduled again (with `woken_while_running`).
    pub(crate) fn run(self) -> bool {
        let ptr = self.ptr;
        // The reference moves to this poll (and on to a new runnable, or is dropped).
        mem::forget(self);
        // SAFETY: our reference keeps the header live.
        let header = unsafe { ptr.as_ref() };
        // SCHEDULED -> RUNNING in one instruction: a runnable's task is SCHEDULED and not
        // RUNNING (or COMPLETED), so flipping both bits clears one and sets the other.
        // Acquire: the poll sees what the waker did before waking.
        let before = header
            .state
            .fetch_xor(SCHEDULED | RUNNING, Ordering::AcqRel);
        debug_assert_eq!(before & (SCHEDULED | RUNNING | COMPLETED), SCHEDULED);
        // The poll's waker borrows our reference.
        // SAFETY: the static vtable's functions all take a task pointer with a reference.
        let waker = ManuallyDrop::new(unsafe {
            Waker::from_raw(RawWaker::new(ptr.as_ptr() as *const (), &WAKER_VTABLE))
        });
        let mut cx = Context::from_waker(&waker);
        let unwinding = CompleteOnUnwind(ptr);
        // SAFETY: RUNNING is ours, so is the future (live: not COMPLETED).
        let poll = unsafe { (header.vtable.poll)(ptr, &mut cx) };
        mem::forget(unwinding);
        match poll {
            Poll::Ready(()) => {
                // SAFETY: RUNNING is still ours; the future is not used again.
                unsafe { complete(ptr) };
                false
            }
            Poll::Pending => {
                // Release: the next poll (maybe on another thread) sees this one's writes.
                let before = header.state.fetch_and(!RUNNING, Ordering::AcqRel);
                if before & SCHEDULED != 0 {
                    // Woken during the poll: the waker left it to us to schedule it, and
                    // our reference goes to the new runnable.
                    (header.vtable.schedule)(Runnable { ptr }, true);
                    true
                } else {
                    // SAFETY: the poll's reference, given up.
                    unsafe { drop_ref(ptr.as_ptr() as *const ()) };
                    false
                }
            }
        }
    }
}

/// Drops the future of a task that is `RUNNING` (or `SCHEDULED` for an unpolled runnable)
/// for the caller, marks it `COMPLETED` and drops the caller's reference.
///
/// # Safety
/// The caller holds the task's run right (RUNNING, or an unrun runnable) and one reference,
/// and gives up both.
unsafe fn complete(ptr: NonNull<Header>) {
    // SAFETY: the caller's reference keeps the header live.
    let header = unsafe { ptr.as_ref() };
    // SAFETY: the run right makes the future ours; it is not used again.
    unsafe { (header.vtable.drop_future)(ptr) };
    // RUNNING (if set) off, COMPLETED on. A SCHEDULED left over (a wake during the last
    // poll, or an unrun runnable's) means nothing once COMPLETED is set: wakes look at
    // COMPLETED first, and no runnable is made again.
    let before = header.state.load(Ordering::Relaxed);
    let flip = COMPLETED | (before & RUNNING);
    header.state.fetch_xor(flip, Ordering::AcqRel);
    // SAFETY: the caller's reference, given up.
    unsafe { drop_ref(ptr.as_ptr() as *const ()) };
}

/// Completes the task if a poll unwinds (see the module docs of `rt::task`, "Panics").
struct CompleteOnUnwind(NonNull<Header>);

impl Drop for CompleteOnUnwind {
    fn drop(&mut self) {
        // SAFETY: only alive during a poll, which holds RUNNING and a reference.
        unsafe { complete(self.0) };
    }
}

impl Drop for Runnable {
    /// A runnable dropped unrun (the runtime shutting down, a queue dropped): its future is
    /// dropped now, and the task completes.
    fn drop(&mut self) {
        // SAFETY: the runnable's right to run and its reference, given up.
        unsafe { complete(self.ptr) };
    }
}
