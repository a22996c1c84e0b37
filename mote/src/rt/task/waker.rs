//! The wakers of every task: one static `RawWakerVTable` whose data is the task's cell
//! (see "One waker vtable" in the module docs of `rt::task`). No reference count: the cell
//! outlives every waker (process slots are never freed), so a clone is a copy and a drop
//! does nothing.

use std::task::{RawWaker, RawWakerVTable};

use super::raw::TaskCell;

/// The vtable of every task's wakers. A `static` (not a `const`), so that all wakers of a
/// task have the same vtable address and `Waker::will_wake` holds between them.
pub(super) static WAKER_VTABLE: RawWakerVTable =
    RawWakerVTable::new(clone_waker, wake, wake, drop_waker);

/// # Safety
/// `ptr` is a live task cell (every waker's data is, see `TaskCell::waker`).
unsafe fn clone_waker(ptr: *const ()) -> RawWaker {
    RawWaker::new(ptr, &WAKER_VTABLE)
}

/// Wakes by value and by reference alike: a waker owns nothing to give up.
///
/// # Safety
/// `ptr` is a live task cell.
unsafe fn wake(ptr: *const ()) {
    // SAFETY: the caller's promise.
    unsafe { &*ptr.cast::<TaskCell>() }.wake();
}

/// Nothing to do: the waker holds no reference.
fn drop_waker(_: *const ()) {}
