//! [`PoolBuilder`]: a pool's size, dispatch and queue bound, and its synchronous start.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use parking_lot::Mutex;

use super::dispatch::{Dispatch, Queues};
use super::manager::manage;
use super::{Handle, Pool, Shared};
use crate::process::spawn::SpawnOptions;
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

/// The default bound of each queue: how many jobs may wait before submitters wait.
pub const DEFAULT_QUEUE_BOUND: usize = 1024;

/// Configures and starts a [`Pool`]; made by [`Pool::builder`].
///
/// ```
/// use mote::pool::{Dispatch, Pool};
/// mote::run(|_p: mote::Process<()>| async move {
///     let pool = Pool::builder()
///         .workers(3)
///         .dispatch(Dispatch::LeastLoaded)
///         .queue_bound(64)
///         .start()
///         .await
///         .unwrap();
///     assert_eq!(pool.workers(), 3);
/// })
/// .unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct PoolBuilder {
    workers: Option<usize>,
    dispatch: Dispatch,
    bound: usize,
}

/// Why a pool could not start (named apart from [`server::StartError`](crate::server::StartError),
/// a server's, which supervisors and agents share).
///
/// ```
/// use mote::pool::{Pool, PoolStartError};
/// mote::run(|_p: mote::Process<()>| async move {
///     let e = Pool::builder().workers(0).start().await.unwrap_err();
///     assert_eq!(e, PoolStartError::NoWorkers);
/// })
/// .unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PoolStartError {
    /// [`PoolBuilder::workers`] was 0.
    #[error("a pool needs at least one worker")]
    NoWorkers,
    /// [`PoolBuilder::queue_bound`] was 0.
    #[error("a pool's queue bound must be at least 1")]
    ZeroBound,
    /// The manager process ended before every worker ran.
    #[error("the pool's manager ended while starting: {0}")]
    Failed(ExitReason),
}

impl Default for PoolBuilder {
    fn default() -> Self {
        PoolBuilder {
            workers: None,
            dispatch: Dispatch::Steal,
            bound: DEFAULT_QUEUE_BOUND,
        }
    }
}

impl PoolBuilder {
    /// The number of worker processes (default: [`worker_threads`](crate::worker_threads),
    /// one per scheduler thread). Must be at least 1.
    ///
    /// ```
    /// let builder = mote::pool::Pool::builder().workers(4);
    /// # let _ = builder;
    /// ```
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = Some(n);
        self
    }

    /// How jobs reach workers (default [`Dispatch::Steal`]).
    ///
    /// ```
    /// let builder = mote::pool::Pool::builder().dispatch(mote::pool::Dispatch::RoundRobin);
    /// # let _ = builder;
    /// ```
    pub fn dispatch(mut self, dispatch: Dispatch) -> Self {
        self.dispatch = dispatch;
        self
    }

    /// The capacity of each queue (default [`DEFAULT_QUEUE_BOUND`]): with
    /// [`Dispatch::Steal`] the one shared queue, otherwise each worker's. When it is full,
    /// [`Pool::submit`] waits and [`Pool::try_submit`] fails: that is the backpressure that
    /// keeps a fast producer from piling up jobs without limit. Must be at least 1.
    ///
    /// ```
    /// let builder = mote::pool::Pool::builder().queue_bound(16);
    /// # let _ = builder;
    /// ```
    pub fn queue_bound(mut self, bound: usize) -> Self {
        self.bound = bound;
        self
    }

    /// Starts the pool and returns once every worker process is running (a synchronous
    /// start, like [`mote::start`](crate::start)). Works from a process or any async
    /// context.
    ///
    /// ```
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let pool = mote::pool::Pool::builder().workers(2).start().await.unwrap();
    ///     assert!(pool.worker_ids().iter().all(|&w| mote::is_alive(w)));
    /// })
    /// .unwrap();
    /// ```
    pub async fn start(self) -> Result<Pool, PoolStartError> {
        let size = match self.workers {
            Some(0) => return Err(PoolStartError::NoWorkers),
            Some(n) => n,
            None => crate::worker_threads(),
        };
        if self.bound == 0 {
            return Err(PoolStartError::ZeroBound);
        }
        let shared = Arc::new(Shared {
            queues: Queues::new(self.dispatch, size, self.bound),
            workers: Mutex::new(vec![ProcessId::NONE; size]),
            stopping: AtomicBool::new(false),
            size,
        });
        let for_manager = Arc::clone(&shared);
        let manager = SpawnOptions::new()
            .start(move |p, started| manage(p, started, for_manager))
            .await
            .map_err(PoolStartError::Failed)?;
        Ok(Pool {
            handle: Arc::new(Handle {
                shared,
                manager: manager.id(),
            }),
        })
    }
}
