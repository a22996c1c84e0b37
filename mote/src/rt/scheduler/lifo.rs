//! A worker's one-task LIFO slot, which an idle worker may steal from when the owner has
//! been stuck in one poll for too long.
//!
//! The owner fills the slot and empties it; a thief only ever empties it, with an atomic
//! swap. Filling needs no locked instruction when the slot is empty: only the owner writes
//! a task into it, so an empty slot stays empty until the owner's own store. A full slot
//! is swapped, since a thief may be taking the old task at the same moment.
//!
//! Emptying is where owner and thief race, and with plain loads and stores a thief's swap
//! could fall between the owner's load and store, and both would run the task. A swap on
//! the owner's side too would settle it, but costs a locked instruction on every message
//! of a ping-pong (about 6% of its time, measured), for a theft that happens at most once
//! per watch period. So the slot is *biased* to its owner, where the OS offers an
//! asymmetric barrier (Linux's `membarrier`): the owner raises `taking`, then looks at
//! `thief`, with only a compiler barrier between; a thief raises `thief`, then runs the
//! barrier, which makes every thread of the process execute a full memory barrier, then
//! looks at `taking`. Like Dekker's algorithm, at least one sees the other's flag: a thief
//! that sees `taking` backs off (the owner is not stuck: it is between polls); an owner
//! that sees `thief` empties the slot with a swap. Elsewhere, and if the barrier cannot be
//! registered, the owner swaps always. The loom models below check both modes, with
//! `SeqCst` fences standing for the two barriers (which is what they guarantee).

use std::marker::PhantomData;
use std::ptr::{self, NonNull};

use crate::rt::sync::{AtomicBool, AtomicPtr, Ordering};

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
    /// The owner is emptying the slot with plain accesses (biased mode only).
    taking: AtomicBool,
    /// A thief is at work on the slot (biased mode only); also keeps thieves one at a time.
    thief: AtomicBool,
    /// Whether the owner may empty the slot without a swap (see the module comment).
    biased: bool,
    _task: PhantomData<T>,
}

// SAFETY: the slot hands each task to exactly one thread (see the module comment), and the
// tasks themselves are `Send`.
unsafe impl<T: RawTask> Sync for LifoSlot<T> {}
// SAFETY: as above; the slot owns at most one `Send` task.
unsafe impl<T: RawTask> Send for LifoSlot<T> {}

impl<T: RawTask> LifoSlot<T> {
    /// An empty slot; `biased` only where [`barrier::register`] succeeded (or under loom).
    pub(crate) fn new(biased: bool) -> Self {
        LifoSlot {
            task: AtomicPtr::new(ptr::null_mut()),
            taking: AtomicBool::new(false),
            thief: AtomicBool::new(false),
            biased,
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
            let old = self.task.swap(new, Ordering::AcqRel);
            // SAFETY: a non-null pointer in the slot came from `into_raw`, and the swap
            // gives it to this thread alone.
            NonNull::new(old).map(|old| unsafe { T::from_raw(old) })
        }
    }

    /// Takes the task out of the slot (owner only): `None` if it is empty or a thief got
    /// there first.
    #[inline]
    pub(crate) fn take(&self) -> Option<T> {
        // The owner's own view of an empty slot is exact (only it fills it).
        if self.task.load(Ordering::Relaxed).is_null() {
            return None;
        }
        if !self.biased {
            return self.swap_out();
        }
        self.taking.store(true, Ordering::Relaxed);
        barrier::light();
        // Acquire: if a thief was here and is gone, its swap is visible.
        let task = if self.thief.load(Ordering::Acquire) {
            self.swap_out()
        } else {
            // No thief swaps until `taking` is down again (see the module comment).
            let raw = self.task.load(Ordering::Relaxed);
            self.task.store(ptr::null_mut(), Ordering::Relaxed);
            // SAFETY: a non-null pointer came from `into_raw`, and no other thread can
            // take it while this one holds `taking` unseen by any thief.
            NonNull::new(raw).map(|raw| unsafe { T::from_raw(raw) })
        };
        // Release: a thief that sees `taking` down sees the slot as this take left it.
        self.taking.store(false, Ordering::Release);
        task
    }

    /// Takes the task out of another worker's slot, if there is one and its owner is not
    /// taking it itself just now.
    pub(crate) fn steal(&self) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        if !self.biased {
            return self.swap_out();
        }
        if self
            .thief
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return None;
        }
        let task = if !barrier::heavy() || self.taking.load(Ordering::Acquire) {
            None
        } else {
            self.swap_out()
        };
        self.thief.store(false, Ordering::Release);
        task
    }

    /// Whether the slot looks empty (a hint to any thread but the owner).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.task.load(Ordering::Relaxed).is_null()
    }

    #[inline]
    fn swap_out(&self) -> Option<T> {
        // Acquire: pairs with the filler's release.
        let raw = self.task.swap(ptr::null_mut(), Ordering::AcqRel);
        // SAFETY: a non-null pointer came from `into_raw`, and the swap left null behind,
        // so no other thread can get it.
        NonNull::new(raw).map(|raw| unsafe { T::from_raw(raw) })
    }
}

impl<T: RawTask> Drop for LifoSlot<T> {
    fn drop(&mut self) {
        drop(self.swap_out());
    }
}

/// The two halves of the asymmetric barrier: the owner's costs nothing at run time, the
/// thief's a system call.
pub(crate) mod barrier {
    /// Registers this process for the thief's barrier: false where it is not available
    /// (then the slots are not biased).
    pub(crate) fn register() -> bool {
        #[cfg(all(target_os = "linux", not(loom), not(miri)))]
        {
            // SAFETY: `membarrier` takes two integers and touches no memory of ours.
            let supported =
                unsafe { libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0) };
            supported >= 0
                && supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED != 0
                // SAFETY: as above.
                && unsafe {
                    libc::syscall(
                        libc::SYS_membarrier,
                        MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
                        0,
                        0,
                    )
                } == 0
        }
        #[cfg(loom)]
        return true;
        #[cfg(not(any(all(target_os = "linux", not(miri)), loom)))]
        false
    }

    // The command numbers of `uapi/linux/membarrier.h`.
    #[cfg(all(target_os = "linux", not(loom), not(miri)))]
    const MEMBARRIER_CMD_QUERY: libc::c_long = 0;
    #[cfg(all(target_os = "linux", not(loom), not(miri)))]
    const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
    #[cfg(all(target_os = "linux", not(loom), not(miri)))]
    const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_long = 1 << 4;

    /// The owner's half: keeps the compiler from moving memory accesses across it; the
    /// thief's barrier supplies the processor's.
    #[inline(always)]
    pub(super) fn light() {
        #[cfg(not(loom))]
        std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
        #[cfg(loom)]
        crate::rt::sync::fence(crate::rt::sync::Ordering::SeqCst);
    }

    /// The thief's half: every running thread of the process executes a full memory
    /// barrier before it returns true (only called where [`register`] succeeded; false,
    /// which it should never be after that, makes the thief back off).
    pub(super) fn heavy() -> bool {
        #[cfg(all(target_os = "linux", not(loom), not(miri)))]
        // SAFETY: as in `register`.
        return unsafe {
            libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0)
        } == 0;
        #[cfg(loom)]
        {
            crate::rt::sync::fence(crate::rt::sync::Ordering::SeqCst);
            true
        }
        #[cfg(not(any(all(target_os = "linux", not(miri)), loom)))]
        false
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
    fn owner_and_thief(biased: bool) {
        loom::model(move || {
            let slot = Arc::new(LifoSlot::<Boxed>::new(biased));
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

    #[test]
    fn loom_biased_owner_and_thief_each_task_runs_once() {
        owner_and_thief(true);
    }

    #[test]
    fn loom_swapping_owner_and_thief_each_task_runs_once() {
        owner_and_thief(false);
    }

    /// An owner stuck after filling its slot (it never takes again): the thief gets the
    /// task, in both modes. A biased thief backs off only while the owner is taking.
    #[test]
    fn loom_thief_takes_from_a_stuck_owner() {
        for biased in [true, false] {
            loom::model(move || {
                let slot = Arc::new(LifoSlot::<Boxed>::new(biased));
                let thief = {
                    let slot = Arc::clone(&slot);
                    thread::spawn(move || loop {
                        if let Some(Boxed(n)) = slot.steal() {
                            return *n;
                        }
                        thread::yield_now();
                    })
                };
                assert!(slot.push(Boxed(Box::new(7))).is_none());
                assert_eq!(thief.join().unwrap(), 7);
            });
        }
    }
}
