//! Worker pools: pre-spawned worker processes reused across jobs.
//!
//! A [`Pool`] starts its workers once ([`Pool::builder`]) and runs any number of jobs on
//! them. A job is any `Future + Send + 'static`; its result comes back through the [`Job`]
//! handle that [`Pool::submit`] returns, awaitable from any process or async context, with
//! no message in anybody's mailbox. One pool serves jobs of every result type.
//!
//! ```
//! use mote::pool::{Dispatch, Pool};
//! mote::run(|_p: mote::Process<()>| async move {
//!     let pool = Pool::builder().workers(2).dispatch(Dispatch::Steal).start().await.unwrap();
//!     let mut jobs = Vec::new();
//!     for i in 0..10u64 {
//!         jobs.push(pool.submit(async move { i * i }).await);
//!     }
//!     let mut sum = 0;
//!     for job in jobs {
//!         sum += job.await.unwrap();
//!     }
//!     assert_eq!(sum, 285);
//!     pool.shutdown(std::time::Duration::from_secs(5)).await.unwrap();
//! })
//! .unwrap();
//! ```
//!
//! # Failure
//!
//! Every job yields exactly one outcome and runs at most once. A job that panics yields
//! [`JobError::Panicked`]: the worker catches the panic and goes on, which is cheaper than a
//! restart. A worker process that ends anyway (killed with [`mote::exit`](crate::exit), or a
//! job that ends its own process) is replaced by the pool's manager process, which traps the
//! exits of its linked workers; the job it was running yields [`JobError::WorkerExited`] and
//! is not retried. The queues belong to the pool, not to the workers, so nothing queued is
//! lost with a worker: its replacement serves the same queue.
//!
//! # Backpressure
//!
//! Queues are bounded ([`PoolBuilder::queue_bound`]). [`Pool::submit`] waits while the queue
//! is full and [`Pool::try_submit`] gives the job back. A master that produces faster than
//! the workers consume therefore waits instead of growing without limit (the master that
//! leaks memory in the Cloud Haskell work-distribution write-up). Do not submit to a full pool from inside one of its own jobs:
//! with every worker doing the same, nobody would make room.
//!
//! # The work-distribution patterns
//!
//! * **Master-slave** (a process per item) needs no pool: it is [`spawn`](crate::spawn) per
//!   item. mote's `spawn` is asynchronous (Cloud Haskell's `spawnAsync`): the master does not wait
//!   for each slave to start, which is what made Cloud Haskell's synchronous `spawn` an
//!   order of magnitude slower. [`mote::start`](crate::start) is the synchronous "spawn and
//!   confirm started", for when the caller must wait.
//! * **Work pushing** is [`Dispatch::RoundRobin`] (items dealt to the workers in turn) or
//!   [`Dispatch::LeastLoaded`] (each item to the shortest queue): the master decides who
//!   does what, up front.
//! * **Work stealing** (in the work-distribution write-up's sense: an idle worker takes the next item) is
//!   [`Dispatch::Steal`]: one shared queue that every idle worker pulls from, so uneven
//!   items balance themselves.
//!
//! **Batching matters more than the pattern.** Handing a job to another process costs a
//! queue operation, a wake-up and a result (some hundreds of nanoseconds); an item that takes
//! a few microseconds to compute is dominated by that. A published Elixir parallel sum was
//! 10,000 times slower than the serial loop when it spawned a process per 100-element chunk, and
//! became competitive once the processes were pre-spawned. Give each job a chunk of items
//! (a range, or a slice of shared data: [`Pool::map_reduce`]) so that the work per job
//! dwarfs the cost of dispatching it.

mod builder;
mod dispatch;
mod envelope;
mod job;
mod manager;
mod map_reduce;
mod worker;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use parking_lot::Mutex;

pub use builder::{PoolBuilder, PoolStartError, DEFAULT_QUEUE_BOUND};

/// The old name of [`PoolStartError`].
///
/// ```
/// #![allow(deprecated)]
/// use mote::pool::{Pool, StartError};
/// mote::run(|_p: mote::Process<()>| async move {
///     let e = Pool::builder().workers(0).start().await.unwrap_err();
///     assert_eq!(e, StartError::NoWorkers);
/// })
/// .unwrap();
/// ```
#[deprecated(
    since = "0.1.0",
    note = "renamed `PoolStartError`, apart from `server::StartError`"
)]
pub type StartError = PoolStartError;
pub use dispatch::Dispatch;
pub use job::{Job, JobError};

use crate::rt::completion::ProcessEnd;
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;
use dispatch::Queues;
use envelope::Task;

/// What the pool's handles and its manager share.
pub(crate) struct Shared {
    pub(crate) queues: Queues,
    /// The current worker of each index (`ProcessId::NONE` once it ended for good).
    pub(crate) workers: Mutex<Vec<ProcessId>>,
    /// A forced shutdown: workers that end are not replaced.
    pub(crate) stopping: AtomicBool,
    pub(crate) size: usize,
}

/// Closes the queues when the last [`Pool`] handle goes.
struct Handle {
    shared: Arc<Shared>,
    manager: ProcessId,
}

impl Drop for Handle {
    fn drop(&mut self) {
        // Queued jobs still run; then the workers and the manager end.
        self.shared.queues.close();
    }
}

/// A pool of pre-spawned worker processes that run submitted jobs (see the [module
/// docs](self)).
///
/// Cloning gives another handle to the same pool. When the last handle is dropped the pool
/// stops taking jobs; the queued ones still run, then the workers end.
///
/// ```
/// use mote::pool::Pool;
/// mote::run(|_p: mote::Process<()>| async move {
///     let pool = Pool::builder().workers(2).start().await.unwrap();
///     let words = pool.submit(async { "hello".len() }).await;
///     let sum = pool.submit(async { 2 + 2 }).await;
///     assert_eq!((words.await, sum.await), (Ok(5), Ok(4)));
/// })
/// .unwrap();
/// ```
#[derive(Clone)]
pub struct Pool {
    handle: Arc<Handle>,
}

/// Why [`Pool::try_submit`] did not queue a job; the job comes back.
///
/// ```
/// use mote::pool::{Pool, TrySubmitError};
/// mote::run(|_p: mote::Process<()>| async move {
///     let pool = Pool::builder().workers(1).start().await.unwrap();
///     pool.shutdown(std::time::Duration::from_secs(1)).await.unwrap();
///     let err = pool.try_submit(async { 1 }).unwrap_err();
///     assert!(matches!(err, TrySubmitError::Closed(_)));
///     let _job_back = err.into_inner();
/// })
/// .unwrap();
/// ```
#[derive(thiserror::Error)]
pub enum TrySubmitError<F> {
    /// Every queue the job could go to is full.
    #[error("the pool's queue is full")]
    Full(F),
    /// The pool no longer takes jobs.
    #[error("the pool is shut down")]
    Closed(F),
}

impl<F> TrySubmitError<F> {
    /// The job that was not queued.
    ///
    /// ```
    /// let e = mote::pool::TrySubmitError::Full(7);
    /// assert_eq!(e.into_inner(), 7);
    /// ```
    pub fn into_inner(self) -> F {
        match self {
            TrySubmitError::Full(f) | TrySubmitError::Closed(f) => f,
        }
    }
}

impl<F> std::fmt::Debug for TrySubmitError<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrySubmitError::Full(_) => f.write_str("Full(..)"),
            TrySubmitError::Closed(_) => f.write_str("Closed(..)"),
        }
    }
}

/// [`Pool::shutdown`] ran out of time: the workers still running were killed, and the jobs
/// they ran and the jobs still queued yield an error.
///
/// ```
/// let e = mote::pool::ShutdownTimedOut { unfinished: 3 };
/// assert!(e.to_string().contains("3"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the pool did not finish its jobs in time; {unfinished} queued jobs were dropped")]
pub struct ShutdownTimedOut {
    /// Jobs still queued when time ran out (they yield [`JobError::Lost`]).
    pub unfinished: usize,
}

impl Pool {
    /// A builder to configure and start a pool.
    ///
    /// ```
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let pool = mote::pool::Pool::builder().start().await.unwrap();
    ///     assert_eq!(pool.workers(), mote::worker_threads());
    /// })
    /// .unwrap();
    /// ```
    pub fn builder() -> PoolBuilder {
        PoolBuilder::default()
    }

    fn shared(&self) -> &Shared {
        &self.handle.shared
    }

    /// Queues a job, waiting while its queue is full (backpressure), and returns the handle
    /// of its result. If the pool is shut down the handle yields [`JobError::Closed`].
    ///
    /// ```
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let pool = mote::pool::Pool::builder().workers(2).start().await.unwrap();
    ///     let job = pool.submit(async { (1..=10).sum::<u32>() }).await;
    ///     assert_eq!(job.await, Ok(55));
    /// })
    /// .unwrap();
    /// ```
    pub async fn submit<F>(&self, job: F) -> Job<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        if self.shared().queues.is_closed() {
            return Job::failed(JobError::Closed);
        }
        let (envelope, handle) = Task::pair(job);
        match self.shared().queues.send(envelope).await {
            Ok(()) => handle,
            Err(envelope) => {
                Box::into_pin(envelope).as_mut().fail(JobError::Closed);
                handle
            }
        }
    }

    /// Queues a job if there is room now; otherwise gives it back.
    ///
    /// ```
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let pool = mote::pool::Pool::builder().workers(1).start().await.unwrap();
    ///     let job = pool.try_submit(async { 3 }).unwrap();
    ///     assert_eq!(job.await, Ok(3));
    /// })
    /// .unwrap();
    /// ```
    pub fn try_submit<F>(&self, job: F) -> Result<Job<F::Output>, TrySubmitError<F>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let queues = &self.shared().queues;
        if queues.is_closed() {
            return Err(TrySubmitError::Closed(job));
        }
        let (envelope, handle) = Task::pair(job);
        match queues.try_send(envelope) {
            Ok(()) => Ok(handle),
            Err(async_channel::TrySendError::Full(e)) => {
                Err(TrySubmitError::Full(Task::<F>::take_future(e)))
            }
            Err(async_channel::TrySendError::Closed(e)) => {
                Err(TrySubmitError::Closed(Task::<F>::take_future(e)))
            }
        }
    }

    /// Stops taking jobs, lets the queued and running ones finish, and waits until every
    /// worker has ended, for at most `timeout`. If time runs out, the workers still running
    /// are killed (their jobs yield [`JobError::WorkerExited`]) and the jobs still queued
    /// yield [`JobError::Lost`].
    ///
    /// After it returns, no worker of this pool is alive. Submitting afterwards yields
    /// [`JobError::Closed`].
    ///
    /// ```
    /// use std::time::Duration;
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let pool = mote::pool::Pool::builder().workers(2).start().await.unwrap();
    ///     let job = pool.submit(async { mote::sleep(Duration::from_millis(10)).await; 1 }).await;
    ///     let workers = pool.worker_ids();
    ///     pool.shutdown(Duration::from_secs(5)).await.unwrap();
    ///     assert_eq!(job.await, Ok(1));
    ///     assert!(workers.iter().all(|&w| !mote::is_alive(w)));
    /// })
    /// .unwrap();
    /// ```
    pub async fn shutdown(&self, timeout: Duration) -> Result<(), ShutdownTimedOut> {
        let shared = self.shared();
        shared.queues.close();
        if self.manager_ended_within(timeout).await {
            return Ok(());
        }
        let workers = {
            let workers = shared.workers.lock();
            shared.stopping.store(true, Ordering::Release);
            workers.clone()
        };
        for w in workers.into_iter().filter(|&w| w != ProcessId::NONE) {
            crate::exit(w, ExitReason::Kill);
        }
        // The manager ends as soon as it has seen the kills; it replaces nobody now.
        self.manager_ended_within(Duration::from_secs(5)).await;
        let unfinished = shared.queues.drain();
        Err(ShutdownTimedOut {
            unfinished: unfinished.len(),
        })
    }

    /// Waits for the manager (and so every worker) to end, for at most `timeout`.
    async fn manager_ended_within(&self, timeout: Duration) -> bool {
        let mut ended = ProcessEnd::watch(self.handle.manager);
        // A timer of mote's own tokio runtime, so this works from any async context.
        let mut sleep = std::pin::pin!(crate::process::sleep::deadline(timeout));
        std::future::poll_fn(|cx| {
            if Pin::new(&mut ended).poll(cx).is_ready() {
                Poll::Ready(true)
            } else if sleep.as_mut().poll(cx).is_ready() {
                Poll::Ready(false)
            } else {
                Poll::Pending
            }
        })
        .await
    }

    /// The number of workers the pool keeps running.
    ///
    /// ```
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let pool = mote::pool::Pool::builder().workers(3).start().await.unwrap();
    ///     assert_eq!(pool.workers(), 3);
    /// })
    /// .unwrap();
    /// ```
    pub fn workers(&self) -> usize {
        self.shared().size
    }

    /// How the pool dispatches jobs.
    ///
    /// ```
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let pool = mote::pool::Pool::builder().start().await.unwrap();
    ///     assert_eq!(pool.dispatch(), mote::pool::Dispatch::Steal);
    /// })
    /// .unwrap();
    /// ```
    pub fn dispatch(&self) -> Dispatch {
        self.shared().queues.dispatch()
    }

    /// The ids of the current worker processes, one per worker index (a replaced worker's
    /// index shows its replacement; an index whose worker ended for good after a shutdown
    /// shows [`ProcessId::NONE`]).
    ///
    /// ```
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let pool = mote::pool::Pool::builder().workers(2).start().await.unwrap();
    ///     let ids = pool.worker_ids();
    ///     assert_eq!(ids.len(), 2);
    ///     assert!(ids.iter().all(|&w| mote::is_alive(w)));
    /// })
    /// .unwrap();
    /// ```
    pub fn worker_ids(&self) -> Vec<ProcessId> {
        self.shared().workers.lock().clone()
    }

    /// The id of the manager process, which supervises the workers.
    ///
    /// ```
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let pool = mote::pool::Pool::builder().workers(1).start().await.unwrap();
    ///     assert!(mote::is_alive(pool.manager_id()));
    /// })
    /// .unwrap();
    /// ```
    pub fn manager_id(&self) -> ProcessId {
        self.handle.manager
    }

    /// The number of jobs waiting in the queues (not counting running ones).
    ///
    /// ```
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let pool = mote::pool::Pool::builder().workers(1).start().await.unwrap();
    ///     assert_eq!(pool.queued(), 0);
    /// })
    /// .unwrap();
    /// ```
    pub fn queued(&self) -> usize {
        self.shared().queues.len()
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("workers", &self.workers())
            .field("dispatch", &self.dispatch())
            .field("queued", &self.queued())
            .field("manager", &self.handle.manager)
            .finish()
    }
}
