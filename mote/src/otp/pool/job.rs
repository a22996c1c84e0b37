//! [`Job`]: the awaitable result of a submitted job, and [`JobError`].

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::rt::completion::Waiter;
use crate::values::exit::ExitReason;

/// Why a job has no result.
///
/// ```
/// use mote::pool::JobError;
/// let e = JobError::Panicked("boom".into());
/// assert_eq!(e.to_string(), "the job panicked: boom");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JobError {
    /// The job panicked, with this message. Its worker caught the panic and goes on.
    #[error("the job panicked: {0}")]
    Panicked(Arc<str>),
    /// The worker process running the job ended (it was killed, or the job ended it with
    /// [`mote::exit`](crate::exit)); the pool replaced the worker. The job is not retried.
    #[error("the worker running the job exited: {0}")]
    WorkerExited(ExitReason),
    /// The job was dropped before it finished without its worker ending: the pool was shut
    /// down ([`Pool::shutdown`](super::Pool::shutdown) timed out) before it could run.
    #[error("the job was lost: the pool stopped before it ran")]
    Lost,
    /// The pool no longer takes jobs (it is shutting down or shut down).
    #[error("the pool is shut down")]
    Closed,
    /// The request was invalid (for example a chunk length of 0).
    #[error("invalid input: {0}")]
    InvalidInput(&'static str),
}

/// The result of a submitted job: await it for `Ok(value)` or a [`JobError`]. Every job
/// yields exactly one outcome.
///
/// It can be awaited from any process or any async context (a tokio task, say). Dropping it
/// does not cancel the job: the job still runs and its result is dropped where it is made
/// (nothing is sent to anybody's mailbox).
///
/// ```
/// use mote::pool::Pool;
/// mote::run(|_p: mote::Process<()>| async move {
///     let pool = Pool::builder().workers(2).start().await.unwrap();
///     let job = pool.submit(async { 6 * 7 }).await;
///     assert_eq!(job.await, Ok(42));
/// })
/// .unwrap();
/// ```
pub struct Job<R> {
    completion: Waiter<Result<R, JobError>>,
}

impl<R> Job<R> {
    pub(crate) fn new(completion: Waiter<Result<R, JobError>>) -> Self {
        Job { completion }
    }

    /// A job that failed before it was queued.
    pub(crate) fn failed(error: JobError) -> Self {
        let completion = Waiter::new();
        let _ = completion.complete(Err(error));
        Job { completion }
    }

    /// Whether the outcome has arrived (awaiting the job will not wait).
    ///
    /// ```
    /// use mote::pool::Pool;
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let pool = Pool::builder().workers(1).start().await.unwrap();
    ///     let job = pool.submit(async { 1 }).await;
    ///     while !job.is_finished() {
    ///         mote::yield_now().await;
    ///     }
    ///     assert_eq!(job.await, Ok(1));
    /// })
    /// .unwrap();
    /// ```
    pub fn is_finished(&self) -> bool {
        self.completion.is_ready() || self.completion.is_done()
    }
}

impl<R> Future for Job<R> {
    type Output = Result<R, JobError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.get_mut()
            .completion
            .poll_take(cx)
            .map(|outcome| match outcome {
                Ok(result) => result,
                // Only a worker's exit fails the completion itself (see `Settle`); a poll after
                // the outcome was taken also lands here, with `noproc`.
                Err(reason) => Err(JobError::WorkerExited(reason)),
            })
    }
}

impl<R> Drop for Job<R> {
    fn drop(&mut self) {
        // A result that comes later is dropped where it is produced.
        let _ = self.completion.close();
    }
}

impl<R> std::fmt::Debug for Job<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("finished", &self.is_finished())
            .finish()
    }
}
