//! The wakers of every task: one static `RawWakerVTable` whose functions touch only the
//! task's header (see "One waker vtable" in the module docs of `rt::task`).

use std::ptr::NonNull;
use std::task::{RawWaker, RawWakerVTable};

use super::raw::{destroy, Header, Runnable, COMPLETED, REFERENCE, RUNNING, SCHEDULED};
use crate::rt::sync::Ordering;

/// The vtable of every task's wakers. A `static` (not a `const`), so that all wakers of a
/// task have the same vtable address and `Waker::will_wake` holds between them.
pub(super) static WAKER_VTABLE: RawWakerVTable =
    RawWakerVTable::new(clone_waker, wake, wake_by_ref, drop_ref);

/// The task's header.
///
/// # Safety
/// `ptr` is a task with a reference the caller holds.
unsafe fn header<'a>(ptr: *const ()) -> &'a Header {
    // SAFETY: the caller's promise.
    unsafe { &*(ptr as *const Header) }
}

/// # Safety
/// `ptr` is a task with a reference the caller holds (which keeps it live meanwhile).
pub(super) unsafe fn clone_waker(ptr: *const ()) -> RawWaker {
    // Relaxed, as for `Arc`: the new reference comes from one the caller holds.
    // SAFETY: the caller's promise.
    let before = unsafe { header(ptr) }
        .state
        .fetch_add(REFERENCE, Ordering::Relaxed);
    if before > isize::MAX as usize {
        // A count that large means leaked wakers; overflowing it would free a live task.
        std::process::abort();
    }
    RawWaker::new(ptr, &WAKER_VTABLE)
}

/// # Safety
/// `ptr` is a task with a reference the caller holds; the reference is given up.
unsafe fn wake(ptr: *const ()) {
    // A wake by value is rare in mote (the slot keeps its waker and wakes by reference), so
    // it is the wake by reference and the drop, not a third transition to model-check.
    // SAFETY: the caller's promise.
    unsafe {
        wake_by_ref(ptr);
        drop_ref(ptr);
    }
}

/// # Safety
/// `ptr` is a task with a reference the caller holds.
unsafe fn wake_by_ref(ptr: *const ()) {
    // SAFETY: the caller's promise.
    let header = unsafe { header(ptr) };
    let mut state = header.state.load(Ordering::Acquire);
    loop {
        if state & COMPLETED != 0 {
            return;
        }
        let new = if state & SCHEDULED != 0 {
            // Already scheduled: the write of the same value still orders what we did before
            // waking before the poll that the runnable will make.
            state
        } else if state & RUNNING != 0 {
            // The poll under way schedules it again when it ends.
            state | SCHEDULED
        } else {
            // Idle: a new runnable, with a reference of its own.
            (state | SCHEDULED) + REFERENCE
        };
        match header
            .state
            .compare_exchange_weak(state, new, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => break,
            Err(now) => state = now,
        }
    }
    if state & (SCHEDULED | RUNNING) == 0 {
        if state > isize::MAX as usize {
            std::process::abort();
        }
        // SAFETY: we made the task SCHEDULED (it was neither scheduled nor running, so no
        // runnable exists) and took a reference for the runnable.
        let runnable = unsafe { Runnable::from_header(NonNull::new_unchecked(ptr as *mut Header)) };
        (header.vtable.schedule)(runnable, false);
    }
}

/// Drops one reference; the last frees the task.
///
/// # Safety
/// `ptr` is a task with a reference the caller holds and gives up.
pub(super) unsafe fn drop_ref(ptr: *const ()) {
    // AcqRel: our uses of the task happen before the free (Release), and the freeing
    // thread sees every other reference's uses (Acquire).
    // SAFETY: the caller's promise.
    let before = unsafe { header(ptr) }
        .state
        .fetch_sub(REFERENCE, Ordering::AcqRel);
    if before & !(REFERENCE - 1) == REFERENCE {
        // SAFETY: that was the last reference.
        unsafe { destroy(NonNull::new_unchecked(ptr as *mut Header)) };
    }
}
