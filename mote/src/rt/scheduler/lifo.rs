//! A worker's one-task LIFO slot, which its owner uses without any locked instruction and
//! the watchdog (the one other thread that touches it) can still empty safely.
//!
//! The owner pushes into and takes from the slot on every message hop, so an atomic swap
//! there (about 20 cycles) would cost ping-pong and call about a tenth of their speed. The
//! thief, the watchdog taking a task that waited behind a long poll, comes a few times a
//! second at most. So the two sides pay asymmetrically, as in an asymmetric Dekker pair:
//!
//! - **Owner** (each take, and each push into a full slot): store "owner busy", a compiler
//!   fence, load "thief present"; if it is set, step aside until the thief is done and try
//!   again; otherwise the plain load and store of the slot, then a `Release` store of "owner
//!   not busy". Besides the slot's own load and store, that is two plain stores and one
//!   plain load (on x86) on a cache line this core owns.
//! - **Thief**: store "thief present", then a process-wide heavy fence (Linux
//!   `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, which runs a full barrier on every
//!   thread of this process that is on a CPU, so it stands for the `SeqCst` fence the owner
//!   left out), then load "owner busy": if set, give up (try on a later round); else take
//!   the task and clear "thief present".
//!
//! Either the thief sees "owner busy" or the owner sees "thief present" (the store-buffering
//! pattern with a full fence on each side), so they never both work on the slot. Where
//! membarrier is missing (another OS, an old kernel, miri, a sandbox that forbids it) the
//! owner's "busy" store becomes a `SeqCst` swap and the thief's fence a `SeqCst` fence, chosen
//! once when the scheduler starts.
//!
//! A push into an empty slot skips the handshake: the thief only ever replaces a task it
//! read with "empty", so an owner that saw the slot empty can fill it with a `Release` store
//! (which also publishes the task to a thief that takes it). Likewise a take that sees the
//! slot empty returns at once: only the owner ever fills it.
//!
//! The loom model below stands the heavy fence in as a `SeqCst` fence on both sides, which
//! over-approximates the owner's real cost (a compiler fence) but is what membarrier
//! guarantees: every thread that runs is ordered as if it had executed a full fence.

use std::marker::PhantomData;
use std::ptr::{self, NonNull};

use crate::rt::sync::{fence, wait_step, AtomicBool, AtomicPtr, Ordering};

/// A task that can travel through the slot as one pointer.
pub(crate) trait RawTask {
    fn into_raw(self) -> NonNull<()>;
    /// # Safety
    /// `ptr` came from `into_raw` of the same type and is turned back only once.
    unsafe fn from_raw(ptr: NonNull<()>) -> Self;
}

impl RawTask for crate::rt::task::Runnable {
    #[inline(always)]
    fn into_raw(self) -> NonNull<()> {
        crate::rt::task::Runnable::into_raw(self)
    }

    #[inline(always)]
    unsafe fn from_raw(ptr: NonNull<()>) -> Self {
        // SAFETY: the caller's promise (the pointer came from `Runnable::into_raw`, once).
        unsafe { crate::rt::task::Runnable::from_raw(ptr) }
    }
}

/// One worker's LIFO slot (see the module docs for the protocol).
pub(crate) struct LifoSlot<T: RawTask> {
    /// The task, or null.
    task: AtomicPtr<()>,
    /// Set by the owner around its load-and-store of `task`.
    owner_busy: AtomicBool,
    /// Set by the thief around its look at `owner_busy` and its take.
    thief: AtomicBool,
    /// Whether the thief's heavy fence is membarrier (the owner needs only a compiler
    /// fence) rather than a `SeqCst` fence (the owner needs one too). Fixed at start.
    membarrier: bool,
    _task: PhantomData<T>,
}

// SAFETY: the slot owns the task behind the pointer; handing it between threads is sending a
// `T`, and the protocol gives each task to exactly one side.
unsafe impl<T: RawTask + Send> Send for LifoSlot<T> {}
// SAFETY: as above; every shared access to `task` goes through the handshake or is a push
// into an empty slot (see the module docs).
unsafe impl<T: RawTask + Send> Sync for LifoSlot<T> {}

impl<T: RawTask> LifoSlot<T> {
    /// An empty slot; `membarrier` says whether the thief's fence is [`heavy_fence`] with
    /// membarrier registered (see [`membarrier_available`]).
    pub(crate) fn new(membarrier: bool) -> Self {
        LifoSlot {
            task: AtomicPtr::new(ptr::null_mut()),
            owner_busy: AtomicBool::new(false),
            thief: AtomicBool::new(false),
            membarrier,
            _task: PhantomData,
        }
    }

    /// Owner only: puts `task` in the slot and returns the task it held, if any.
    #[inline]
    pub(crate) fn push(&self, task: T) -> Option<T> {
        let raw = task.into_raw().as_ptr();
        // Only the owner fills the slot, so if it looks empty to the owner it is; a thief
        // never writes over a task it has not read.
        if self.task.load(Ordering::Relaxed).is_null() {
            self.task.store(raw, Ordering::Release);
            return None;
        }
        let previous = self.owner_op(|task| {
            let previous = task.load(Ordering::Relaxed);
            task.store(raw, Ordering::Release);
            previous
        });
        // SAFETY: every non-null pointer in the slot came from `into_raw`, and the handshake
        // gave it to us alone.
        NonNull::new(previous).map(|p| unsafe { T::from_raw(p) })
    }

    /// Owner only: takes the task out of the slot.
    #[inline]
    pub(crate) fn take(&self) -> Option<T> {
        if self.task.load(Ordering::Relaxed).is_null() {
            return None;
        }
        let taken = self.owner_op(|task| {
            let taken = task.load(Ordering::Relaxed);
            if !taken.is_null() {
                task.store(ptr::null_mut(), Ordering::Relaxed);
            }
            taken
        });
        // SAFETY: as in `push`.
        NonNull::new(taken).map(|p| unsafe { T::from_raw(p) })
    }

    /// The owner's half of the handshake around `op`.
    #[inline(always)]
    fn owner_op(&self, op: impl FnOnce(&AtomicPtr<()>) -> *mut ()) -> *mut () {
        let mut spins = 0;
        loop {
            self.owner_enter();
            // SeqCst: in the fallback (a `SeqCst` swap above, a `SeqCst` fence in the thief)
            // the C++ model orders the swap before this load only if both are `SeqCst`
            // (miri finds the double take with `Acquire`); on x86 it is a plain load either
            // way. It is at least `Acquire`: a thief that took our task and cleared `thief`
            // since is seen with its emptying of the slot.
            if !self.thief.load(Ordering::SeqCst) {
                let result = op(&self.task);
                self.owner_busy.store(false, Ordering::Release);
                return result;
            }
            // A thief is at work (it may be taking the task): step aside, so that it cannot
            // see us busy forever, and retry once it has finished its few instructions.
            self.owner_busy.store(false, Ordering::Release);
            while self.thief.load(Ordering::Relaxed) {
                wait_step(spins);
                spins += 1;
            }
        }
    }

    /// Sets `owner_busy`, ordered before the following load of `thief`.
    #[inline(always)]
    fn owner_enter(&self) {
        #[cfg(not(loom))]
        if self.membarrier {
            self.owner_busy.store(true, Ordering::Relaxed);
            // The thief's membarrier orders this thread's store and load for it; only the
            // compiler must keep them in this order.
            std::sync::atomic::compiler_fence(Ordering::SeqCst);
        } else {
            self.owner_busy.swap(true, Ordering::SeqCst);
        }
        // The model: membarrier acts as a full fence at this point of the owner.
        #[cfg(loom)]
        {
            let _ = self.membarrier;
            self.owner_busy.store(true, Ordering::Relaxed);
            fence(Ordering::SeqCst);
        }
    }

    /// A look at the slot from any thread, for deciding whether to try [`steal`]: the
    /// pointer is compared only, never followed.
    ///
    /// [`steal`]: LifoSlot::steal
    pub(crate) fn peek(&self) -> *mut () {
        self.task.load(Ordering::Relaxed)
    }

    /// The thief's side: takes the task unless the owner is at the slot. `Err(())` means the
    /// owner was busy (try again later). At most one thread may steal from a slot at a time.
    pub(crate) fn steal(&self) -> Result<Option<T>, ()> {
        self.thief.store(true, Ordering::Relaxed);
        heavy_fence(self.membarrier);
        // Acquire: the owner's last slot operation (and the task it pushed) is seen.
        let result = if self.owner_busy.load(Ordering::Acquire) {
            Err(())
        } else {
            let taken = self.task.load(Ordering::Acquire);
            if !taken.is_null() {
                self.task.store(ptr::null_mut(), Ordering::Relaxed);
            }
            // SAFETY: as in `push`; the owner is not at the slot and will see `thief` set
            // (or, after the `Release` below, the empty slot) before it next is.
            Ok(NonNull::new(taken).map(|p| unsafe { T::from_raw(p) }))
        };
        self.thief.store(false, Ordering::Release);
        result
    }
}

impl<T: RawTask> Drop for LifoSlot<T> {
    fn drop(&mut self) {
        let raw = self.task.load(Ordering::Relaxed);
        // SAFETY: as in `push`; we are the only user left.
        drop(NonNull::new(raw).map(|p| unsafe { T::from_raw(p) }));
    }
}

/// The thief's fence: membarrier where registered, else a `SeqCst` fence (the owner then
/// uses a `SeqCst` swap).
fn heavy_fence(membarrier: bool) {
    #[cfg(all(target_os = "linux", not(loom), not(miri)))]
    if membarrier {
        // SAFETY: a plain system call with integer arguments.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_membarrier,
                MEMBARRIER_CMD_PRIVATE_EXPEDITED,
                0 as libc::c_int,
            )
        };
        // Registered at start, so it cannot fail; if it did, the owner's fence is missing
        // and taking the task would be unsound.
        assert_eq!(rc, 0, "membarrier failed after it was registered");
        return;
    }
    let _ = membarrier;
    fence(Ordering::SeqCst);
}

#[cfg(all(target_os = "linux", not(loom), not(miri)))]
const MEMBARRIER_CMD_QUERY: libc::c_int = 0;
#[cfg(all(target_os = "linux", not(loom), not(miri)))]
const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
#[cfg(all(target_os = "linux", not(loom), not(miri)))]
const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

/// Registers this process for private expedited membarrier, once; whether it may be used.
/// Called before any worker starts, so every slot agrees on its owner's fence.
pub(crate) fn membarrier_available() -> bool {
    #[cfg(all(target_os = "linux", not(loom), not(miri)))]
    {
        static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *AVAILABLE.get_or_init(|| {
            // SAFETY: plain system calls with integer arguments.
            let supported = unsafe { libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_QUERY, 0) };
            supported >= 0
                && supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED as libc::c_long != 0
                && unsafe {
                    // SAFETY: as above.
                    libc::syscall(
                        libc::SYS_membarrier,
                        MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
                        0,
                    )
                } == 0
        })
    }
    #[cfg(not(all(target_os = "linux", not(loom), not(miri))))]
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    impl RawTask for Box<usize> {
        fn into_raw(self) -> NonNull<()> {
            NonNull::from(Box::leak(self)).cast()
        }
        unsafe fn from_raw(ptr: NonNull<()>) -> Self {
            // SAFETY: the caller's promise.
            unsafe { Box::from_raw(ptr.cast::<usize>().as_ptr()) }
        }
    }

    #[test]
    fn owner_push_take_replace() {
        for membarrier in [false, membarrier_available()] {
            let slot = LifoSlot::<Box<usize>>::new(membarrier);
            assert!(slot.take().is_none());
            assert!(slot.push(Box::new(1)).is_none());
            assert_eq!(slot.push(Box::new(2)).as_deref(), Some(&1));
            assert_eq!(slot.steal().unwrap().as_deref(), Some(&2));
            assert!(slot.steal().unwrap().is_none());
            assert!(slot.take().is_none());
            assert!(slot.push(Box::new(3)).is_none());
            assert_eq!(slot.take().as_deref(), Some(&3));
            // Dropped with a task inside: freed (miri checks).
            assert!(slot.push(Box::new(4)).is_none());
        }
    }

    /// An owner pushing and taking while another thread steals, with real heap tasks:
    /// every task is taken exactly once (miri reports a double take as a double free, a
    /// lost one as a leak, and a missing `Acquire`/`Release` as a data race on the box).
    #[test]
    fn owner_and_thief_take_each_task_once() {
        use std::sync::atomic::AtomicUsize;
        use std::sync::Arc;
        const TASKS: usize = if cfg!(miri) { 200 } else { 100_000 };
        let slot = Arc::new(LifoSlot::<Box<usize>>::new(membarrier_available()));
        let done = Arc::new(AtomicBool::new(false));
        let stolen_sum = Arc::new(AtomicUsize::new(0));
        let thief = {
            let (slot, done, stolen_sum) = (slot.clone(), done.clone(), stolen_sum.clone());
            std::thread::spawn(move || {
                let mut stolen = 0;
                while !done.load(Ordering::Acquire) {
                    if let Ok(Some(task)) = slot.steal() {
                        stolen_sum.fetch_add(*task, Ordering::Relaxed);
                        stolen += 1;
                    }
                    std::thread::yield_now();
                }
                stolen
            })
        };
        let mut sum = 0;
        for i in 1..=TASKS {
            if let Some(previous) = slot.push(Box::new(i)) {
                sum += *previous;
            }
            if i % 3 == 0 {
                if let Some(task) = slot.take() {
                    sum += *task;
                }
            }
        }
        sum += slot.take().map_or(0, |t| *t);
        done.store(true, Ordering::Release);
        thief.join().unwrap();
        sum += stolen_sum.load(Ordering::Relaxed);
        assert_eq!(sum, TASKS * (TASKS + 1) / 2);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// A task that is a number in a pointer, never followed (so a double take shows as a
    /// count, not as undefined behaviour in the model).
    #[derive(Debug, PartialEq)]
    struct Token(usize);

    impl RawTask for Token {
        fn into_raw(self) -> NonNull<()> {
            NonNull::new(self.0 as *mut ()).unwrap()
        }
        unsafe fn from_raw(ptr: NonNull<()>) -> Self {
            Token(ptr.as_ptr() as usize)
        }
    }

    /// The owner pushes two tasks (the second replacing the first, which it keeps) and
    /// takes the slot; the watchdog steals once in between: each task ends with exactly
    /// one side. Fails if the owner skips its look at `thief` (both take task 2).
    #[test]
    fn loom_lifo_steal_takes_each_task_once() {
        loom::model(|| {
            let slot = Arc::new(LifoSlot::<Token>::new(true));
            let thief = {
                let slot = Arc::clone(&slot);
                thread::spawn(move || match slot.steal() {
                    Ok(Some(Token(n))) => vec![n],
                    _ => vec![],
                })
            };
            let mut owner = vec![];
            assert!(slot.push(Token(1)).is_none());
            if let Some(Token(n)) = slot.push(Token(2)) {
                owner.push(n);
            }
            if let Some(Token(n)) = slot.take() {
                owner.push(n);
            }
            let mut all = thief.join().unwrap();
            all.extend(owner);
            all.sort_unstable();
            assert_eq!(all, vec![1, 2]);
            assert!(slot.take().is_none());
        });
    }
}
