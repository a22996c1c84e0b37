//! The synchronization primitives mote's lock-free core is built from.
//!
//! Under `--cfg loom` they are loom's model-checked doubles, so the mailbox and its wake-up
//! protocol can be explored exhaustively; otherwise they are the std types. Only the modules
//! that loom checks import from here.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU16, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU16, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
};

/// A mutex with parking_lot's API (no poisoning), or loom's model of one.
pub(crate) struct Mutex<T>(
    #[cfg(not(loom))] parking_lot::Mutex<T>,
    #[cfg(loom)] loom::sync::Mutex<T>,
);

/// The guard of a [`Mutex`].
#[cfg(not(loom))]
pub(crate) type MutexGuard<'a, T> = parking_lot::MutexGuard<'a, T>;
/// The guard of a [`Mutex`].
#[cfg(loom)]
pub(crate) type MutexGuard<'a, T> = loom::sync::MutexGuard<'a, T>;

impl<T> Mutex<T> {
    pub(crate) fn new(value: T) -> Self {
        #[cfg(not(loom))]
        return Mutex(parking_lot::Mutex::new(value));
        #[cfg(loom)]
        Mutex(loom::sync::Mutex::new(value))
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        #[cfg(not(loom))]
        return self.0.lock();
        #[cfg(loom)]
        self.0.lock().expect("loom mutexes are never poisoned here")
    }
}

/// A condition variable for [`Mutex`], or loom's model of one.
pub(crate) struct Condvar(
    #[cfg(not(loom))] parking_lot::Condvar,
    #[cfg(loom)] loom::sync::Condvar,
);

impl Condvar {
    pub(crate) fn new() -> Self {
        #[cfg(not(loom))]
        return Condvar(parking_lot::Condvar::new());
        #[cfg(loom)]
        Condvar(loom::sync::Condvar::new())
    }

    /// Releases `guard`'s lock, waits for a notification (or a spurious wake-up), and
    /// takes the lock again.
    pub(crate) fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        #[cfg(not(loom))]
        {
            let mut guard = guard;
            self.0.wait(&mut guard);
            guard
        }
        #[cfg(loom)]
        self.0
            .wait(guard)
            .expect("loom mutexes are never poisoned here")
    }

    pub(crate) fn notify_one(&self) {
        self.0.notify_one();
    }
}

/// One step of waiting for another thread to finish a few instructions (a push between its
/// swap and its link): spin for the first `spins`, then give up the processor. Under loom,
/// always a yield, which is how loom learns that this thread waits on another.
#[inline]
pub(crate) fn wait_step(spins: u32) {
    #[cfg(loom)]
    {
        let _ = spins;
        loom::thread::yield_now();
    }
    #[cfg(not(loom))]
    if spins < 64 {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;

/// `std::cell::UnsafeCell` with loom's closure-based API, so code reads the same under both.
#[cfg(not(loom))]
#[derive(Debug, Default)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    #[cfg_attr(not(loom), allow(dead_code))] // used to build slots in loom tests
    pub(crate) const fn new(value: T) -> Self {
        Self(std::cell::UnsafeCell::new(value))
    }

    #[inline(always)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

/// Reads `atomic` as the second half of a Dekker pair (write one variable, then read the
/// other, on both sides): a `SeqCst` load, which the C++ model guarantees to see the other
/// side's write if that side's read missed ours.
///
/// Loom treats `SeqCst` loads as `Acquire` (a documented limitation), which would report
/// false lost wake-ups; under loom the read is an RMW that writes the value back: RMWs
/// always read the latest value, which is at least as strong.
#[inline(always)]
pub(crate) fn dekker_load_u64(atomic: &AtomicU64) -> u64 {
    #[cfg(loom)]
    return atomic.fetch_add(0, Ordering::SeqCst);
    #[cfg(not(loom))]
    atomic.load(Ordering::SeqCst)
}

/// The pointer version of [`dekker_load_u64`].
#[inline(always)]
pub(crate) fn dekker_load_ptr<T>(atomic: &AtomicPtr<T>) -> *mut T {
    #[cfg(loom)]
    {
        let mut current = atomic.load(Ordering::Relaxed);
        loop {
            match atomic.compare_exchange(current, current, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(value) => return value,
                Err(actual) => current = actual,
            }
        }
    }
    #[cfg(not(loom))]
    atomic.load(Ordering::SeqCst)
}

/// What the threaded models of the runtime's atomic protocols share: with `--cfg loom`,
/// loom's `model` and threads; without, the same bodies run many times on real threads
/// (fewer under miri, which is slow but checks every access).
#[cfg(test)]
pub(crate) mod models {
    use std::sync::Arc;
    use std::task::Wake;

    #[cfg(loom)]
    pub(crate) use loom::{model, thread};
    #[cfg(not(loom))]
    pub(crate) use std::thread;

    /// Without loom: the body, run over and over on real threads.
    #[cfg(not(loom))]
    pub(crate) fn model(body: impl Fn()) {
        for _ in 0..if cfg!(miri) { 20 } else { 2_000 } {
            body();
        }
    }

    /// A task's waker that unparks the thread standing for the task. A lost wake-up leaves
    /// that thread parked forever, which loom reports as a deadlock.
    pub(crate) struct Unpark(pub(crate) thread::Thread);

    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }
}
