//! A worker's one-task LIFO slot, which an idle worker may steal from when the owner has
//! been stuck in one poll for too long.
//!
//! The owner fills the slot and empties it; a thief only ever empties it. Emptying is an
//! atomic swap on both sides, so of an owner and a thief racing for the same task exactly
//! one gets it (checked by the loom models below). Filling needs no locked instruction
//! when the slot is empty: only the owner writes a task into it, so an empty slot stays
//! empty until the owner's own store. A full slot is swapped, since a thief may be taking
//! the old task at the same moment.
//!
//! The owner's take must be a read-modify-write: with a plain load and store, a thief's
//! swap could fall between them and both would run the task. That swap (one uncontended
//! locked instruction on a line the owner holds) is the whole cost on the ping-pong path.

use std::marker::PhantomData;
use std::ptr::{self, NonNull};

use crate::rt::sync::{AtomicPtr, Ordering};

/// A task that can travel through the slot as one pointer.
pub(crate) trait RawTask: Send {
    fn into_raw(self) -> NonNull<()>;
    /// # Safety
    /// `raw` came from [`RawTask::into_raw`] and is turned back at most once.
    unsafe fn from_raw(raw: NonNull<()>) -> Self;
}

impl RawTask for async_task::Runnable {
    #[inline(always)]
    fn into_raw(self) -> NonNull<()> {
        async_task::Runnable::into_raw(self)
    }

    #[inline(always)]
    unsafe fn from_raw(raw: NonNull<()>) -> Self {
        // SAFETY: the caller turns each pointer back once, and it came from `into_raw`.
        unsafe { async_task::Runnable::from_raw(raw) }
    }
}

pub(crate) struct LifoSlot<T: RawTask> {
    task: AtomicPtr<()>,
    _task: PhantomData<T>,
}

// SAFETY: the slot hands each task to exactly one thread (see the module comment), and the
// tasks themselves are `Send`.
unsafe impl<T: RawTask> Sync for LifoSlot<T> {}
// SAFETY: as above; the slot owns at most one `Send` task.
unsafe impl<T: RawTask> Send for LifoSlot<T> {}

impl<T: RawTask> LifoSlot<T> {
    pub(crate) fn new() -> Self {
        LifoSlot {
            task: AtomicPtr::new(ptr::null_mut()),
            _task: PhantomData,
        }
    }

    /// Puts `task` in the slot (owner only) and returns the task it displaced, if a thief
    /// had not taken that one meanwhile.
    #[inline]
    pub(crate) fn push(&self, task: T) -> Option<T> {
        let new = task.into_raw().as_ptr();
        if self.task.load(Ordering::Relaxed).is_null() {
            // Only the owner fills the slot, so it is still empty: a plain store suffices.
            // Release: a thief that swaps the pointer out sees the task's state.
            self.task.store(new, Ordering::Release);
            None
        } else {
            // SAFETY: a non-null pointer in the slot came from `into_raw`, and the swap
            // gives it to this thread alone.
            NonNull::new(self.task.swap(new, Ordering::AcqRel))
                .map(|old| unsafe { T::from_raw(old) })
        }
    }

    /// Takes the task out of the slot (owner only): `None` if it is empty or a thief got
    /// there first.
    #[inline]
    pub(crate) fn take(&self) -> Option<T> {
        // The owner's own view of an empty slot is exact (only it fills it), so the common
        // empty case costs no locked instruction.
        if self.task.load(Ordering::Relaxed).is_null() {
            return None;
        }
        self.swap_out()
    }

    /// Takes the task out of another worker's slot, if there is one.
    pub(crate) fn steal(&self) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        self.swap_out()
    }

    /// Whether the slot looks empty (a hint to any thread but the owner).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.task.load(Ordering::Relaxed).is_null()
    }

    #[inline]
    fn swap_out(&self) -> Option<T> {
        // Acquire: pairs with the filler's release. SAFETY: a non-null pointer came from
        // `into_raw`, and the swap left null behind, so no other thread can get it.
        NonNull::new(self.task.swap(ptr::null_mut(), Ordering::AcqRel))
            .map(|raw| unsafe { T::from_raw(raw) })
    }
}

impl<T: RawTask> Drop for LifoSlot<T> {
    fn drop(&mut self) {
        drop(self.swap_out());
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// A test task: a number in a box.
    struct Boxed(Box<u32>);

    impl RawTask for Boxed {
        fn into_raw(self) -> NonNull<()> {
            NonNull::from(Box::leak(self.0)).cast()
        }
        unsafe fn from_raw(raw: NonNull<()>) -> Self {
            // SAFETY: `raw` came from `Box::leak` in `into_raw`, turned back once.
            Boxed(unsafe { Box::from_raw(raw.cast::<u32>().as_ptr()) })
        }
    }

    /// The owner fills the slot twice and takes from it while a thief steals twice: each
    /// task is run by exactly one of them (a task run twice, or lost, fails the count).
    #[test]
    fn loom_owner_and_thief_each_task_runs_once() {
        loom::model(|| {
            let slot = Arc::new(LifoSlot::<Boxed>::new());
            let thief = {
                let slot = Arc::clone(&slot);
                thread::spawn(move || {
                    let mut ran = Vec::new();
                    for _ in 0..2 {
                        if let Some(Boxed(n)) = slot.steal() {
                            ran.push(*n);
                        }
                    }
                    ran
                })
            };
            let mut ran = Vec::new();
            assert!(slot.push(Boxed(Box::new(1))).is_none());
            // The displaced task goes to the owner's queue, i.e. it runs here.
            if let Some(Boxed(n)) = slot.push(Boxed(Box::new(2))) {
                ran.push(*n);
            }
            if let Some(Boxed(n)) = slot.take() {
                ran.push(*n);
            }
            ran.extend(thief.join().unwrap());
            ran.sort_unstable();
            assert_eq!(ran, [1, 2]);
            assert!(slot.is_empty());
        });
    }
}
