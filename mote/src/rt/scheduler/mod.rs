//! The process scheduler: a small work-stealing executor for process tasks.
//!
//! Processes are [`async_task`] tasks rather than tokio tasks because tokio's task cell is
//! aligned to 128 bytes and a tokio task plus a channel costs about 1.1 KB per idle process;
//! an `async-task` allocation holds just a 40-byte header and the future (measurements in
//! `docs/design.md`). Tokio still does IO and timers: every worker thread enters a tokio
//! runtime handle, so sockets, timers and `tokio::spawn` work inside processes, driven by
//! that runtime's own threads.
//!
//! Each worker owns a FIFO deque (crossbeam-deque) plus a one-task LIFO slot: a process woken
//! by the one running (the receiver of a message just sent) runs next on the same thread,
//! while its cache lines are warm. At most [`MAX_LIFO_STREAK`] LIFO runs happen in a row, so
//! two processes playing ping-pong cannot starve the rest of the queue. A task that yields
//! (its receive budget ran out) goes to the back of the deque. Idle workers steal from the
//! global injector and from each other, then sleep on a condition variable.

pub(crate) mod global;
mod sleepers;
mod worker;

use std::sync::Arc;

use async_task::{Runnable, ScheduleInfo};
use crossbeam_deque::{Injector, Stealer, Worker};

use sleepers::Sleepers;

pub(crate) use worker::schedule;

/// Consecutive runs from the LIFO slot before the worker takes from its queue instead.
const MAX_LIFO_STREAK: u32 = 3;
/// Every this many ticks a worker looks at the global injector first, so tasks woken from
/// outside (timers, IO, other threads) are not starved by local work.
const INJECTOR_INTERVAL: u32 = 61;

pub(crate) struct Scheduler {
    injector: Injector<Runnable>,
    stealers: Vec<Stealer<Runnable>>,
    sleepers: Sleepers,
}

impl Scheduler {
    /// Starts `workers` threads, each with the tokio handle entered.
    pub(crate) fn start(workers: usize, tokio: tokio::runtime::Handle) -> Arc<Scheduler> {
        let locals: Vec<Worker<Runnable>> = (0..workers).map(|_| Worker::new_fifo()).collect();
        let scheduler = Arc::new(Scheduler {
            injector: Injector::new(),
            stealers: locals.iter().map(Worker::stealer).collect(),
            sleepers: Sleepers::new(),
        });
        for (index, local) in locals.into_iter().enumerate() {
            let scheduler = Arc::clone(&scheduler);
            let tokio = tokio.clone();
            std::thread::Builder::new()
                .name(format!("mote-worker-{index}"))
                .spawn(move || {
                    let _tokio = tokio.enter();
                    worker::run(&scheduler, index, local);
                })
                .expect("spawning a mote worker thread");
        }
        scheduler
    }

    /// Queues a task from a thread that is not one of our workers.
    pub(crate) fn inject(&self, runnable: Runnable) {
        self.injector.push(runnable);
        self.notify();
    }

    /// Wakes one sleeping worker if there is one. Called after making work stealable.
    #[inline]
    pub(crate) fn notify(&self) {
        self.sleepers.notify();
    }

    fn has_work(&self) -> bool {
        !self.injector.is_empty() || self.stealers.iter().any(|s| !s.is_empty())
    }

    /// Blocks the calling worker until there may be work.
    fn sleep(&self) {
        // Hand this thread's deferred slot recycling to the global queue before sleeping,
        // so dead processes' slots (and their queued messages) do not wait on an idle thread.
        crossbeam_epoch::pin().flush();
        self.sleepers.sleep(|| self.has_work());
    }

    /// Finds work for an idle worker: the injector first, then the other workers' queues.
    fn steal(&self, local: &Worker<Runnable>, me: usize) -> Option<Runnable> {
        loop {
            let mut retry = false;
            match self.injector.steal_batch_and_pop(local) {
                crossbeam_deque::Steal::Success(r) => return Some(r),
                crossbeam_deque::Steal::Retry => retry = true,
                crossbeam_deque::Steal::Empty => {}
            }
            let n = self.stealers.len();
            for offset in 1..n {
                match self.stealers[(me + offset) % n].steal_batch_and_pop(local) {
                    crossbeam_deque::Steal::Success(r) => return Some(r),
                    crossbeam_deque::Steal::Retry => retry = true,
                    crossbeam_deque::Steal::Empty => {}
                }
            }
            if !retry {
                return None;
            }
        }
    }
}

/// async-task's schedule hook for every process task.
pub(crate) fn schedule_process(runnable: Runnable, info: ScheduleInfo) {
    schedule(runnable, info.woken_while_running);
}
