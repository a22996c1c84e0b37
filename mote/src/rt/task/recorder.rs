//! A [`Schedule`] for the tests: it records the runnables it is given (and the frees of its
//! tasks) instead of running them. Each test uses its own `Recorder<N>`, so tests running at
//! once do not share a queue.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::{Runnable, Schedule};

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
