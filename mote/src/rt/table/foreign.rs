//! Wakers of receives polled from inside nested futures (not with the process task's own
//! waker): rare, so they live in one global map instead of costing every slot 24 bytes, and
//! away from the slot's signals lock, so a message can be pushed while that lock is held.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::LazyLock;
use std::task::Waker;

use parking_lot::Mutex;

static WAKERS: LazyLock<Mutex<HashMap<u32, Waker>>> = LazyLock::new(Default::default);
/// Entries in `WAKERS`, so recycling a slot skips the lock when there are none.
static COUNT: AtomicUsize = AtomicUsize::new(0);

pub(crate) fn store(index: u32, waker: &Waker) {
    let mut wakers = WAKERS.lock();
    if wakers.insert(index, waker.clone()).is_none() {
        COUNT.fetch_add(1, Ordering::Relaxed);
    }
}

pub(crate) fn take(index: u32) -> Option<Waker> {
    let waker = WAKERS.lock().remove(&index);
    if waker.is_some() {
        COUNT.fetch_sub(1, Ordering::Relaxed);
    }
    waker
}

/// Forgets a dead process's waker (called when its slot is recycled).
pub(crate) fn forget(index: u32) {
    if COUNT.load(Ordering::Relaxed) != 0 {
        drop(take(index));
    }
}
