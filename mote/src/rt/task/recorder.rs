//! A [`Schedule`] for the tests: it records the runnables it is given (and the frees of its
//! tasks) instead of running them. Each test uses its own `Recorder<N>`, so tests running at
//! once do not share a queue.

use std::future::Future;
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::task::{Context, Poll, Waker};

use super::{Runnable, Schedule, TaskBody, TaskCell};

/// Records the runnables scheduled and the tasks freed, per `N`.
pub(super) struct Recorder<const N: usize>;

const QUEUES: usize = 16;
#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Mutex<Vec<(Runnable, bool)>> = Mutex::new(Vec::new());
static SCHEDULED: [Mutex<Vec<(Runnable, bool)>>; QUEUES] = [EMPTY; QUEUES];
#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicUsize = AtomicUsize::new(0);
static FREED: [AtomicUsize; QUEUES] = [ZERO; QUEUES];

impl<const N: usize> Schedule for Recorder<N> {
    fn schedule(runnable: Runnable, woken_while_running: bool) {
        SCHEDULED[N]
            .lock()
            .unwrap()
            .push((runnable, woken_while_running));
    }

    fn freed() {
        FREED[N].fetch_add(1, Ordering::Relaxed);
    }
}

impl<const N: usize> Recorder<N> {
    /// Takes what was scheduled so far (with each one's `woken_while_running`).
    pub(super) fn take() -> Vec<(Runnable, bool)> {
        std::mem::take(&mut *SCHEDULED[N].lock().unwrap())
    }

    /// Takes the count of tasks freed so far.
    pub(super) fn take_freed() -> usize {
        FREED[N].swap(0, Ordering::Relaxed)
    }

    /// Runs what is scheduled until nothing is; returns the runs.
    pub(super) fn run_all() -> usize {
        let mut runs = 0;
        loop {
            let queued = Self::take();
            if queued.is_empty() {
                return runs;
            }
            for (runnable, _) in queued {
                runnable.run();
                runs += 1;
            }
        }
    }
}

/// A plain future as a task body (the tests' bodies do not need their cell).
pub(super) struct Plain<F>(pub(super) F);

impl<F: Future<Output = ()> + Send + 'static> TaskBody for Plain<F> {
    fn poll(self: Pin<&mut Self>, _: &TaskCell, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: structural pinning: the future is never moved out of the `Plain`.
        unsafe { self.map_unchecked_mut(|plain| &mut plain.0) }.poll(cx)
    }
}

/// A task cell on the heap, freed (with the allocation of its last incarnation) when this
/// is dropped. Its wakers refer to it without keeping it alive: a test declares it before
/// the wakers it makes, so that they are dropped first.
pub(super) struct OwnedCell(NonNull<TaskCell>);

impl OwnedCell {
    pub(super) fn new() -> Self {
        OwnedCell(NonNull::from(Box::leak(Box::new(TaskCell::new()))))
    }

    /// The cell; the test keeps `self` past every use of it, and of its wakers and
    /// runnables.
    pub(super) fn get(&self) -> &'static TaskCell {
        // SAFETY: live until `self` is dropped (the tests' discipline, above).
        unsafe { self.0.as_ref() }
    }

    /// A new incarnation of `future` in the cell, scheduled by `S`.
    pub(super) fn spawn<F, S>(&self, future: F) -> Runnable
    where
        F: Future<Output = ()> + Send + 'static,
        S: Schedule,
    {
        // SAFETY: the cell outlives its runnables and wakers (the tests' discipline), and
        // the tests spawn again only into cells whose last incarnation completed.
        unsafe { self.get().spawn::<_, S>(Plain(future)) }
    }

    /// A waker of the cell's task.
    pub(super) fn waker(&self) -> Waker {
        // SAFETY: as in `get`.
        unsafe { self.get().waker() }
    }
}

impl Drop for OwnedCell {
    fn drop(&mut self) {
        // SAFETY: from `Box::leak` in `new`; nothing uses the cell any more.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

// SAFETY: a pointer to a `Sync` cell.
unsafe impl Send for OwnedCell {}
// SAFETY: as above.
unsafe impl Sync for OwnedCell {}
