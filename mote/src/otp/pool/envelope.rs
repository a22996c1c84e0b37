//! A queued job with its type erased: the user's future plus the [`Completion`] its result
//! goes to, settled exactly once whatever happens to it (it finishes, panics, its worker
//! dies, or it is dropped unrun).

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use super::job::{Job, JobError};
use crate::rt::completion::{Completion, Waiter};
use crate::rt::current::ending_reason;
use crate::rt::runner::{panic_message, ExitNow};

/// What a pool queue holds: one allocation per job (the boxed [`Task`]), not yet pinned, so
/// a job that could not be queued can be taken apart again.
pub(crate) type Envelope = Box<dyn Runnable>;

/// A job with its result type erased.
pub(crate) trait Runnable: Send + 'static {
    /// Polls the job; on completion its result has been delivered.
    fn poll_run(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()>;
    /// Settles the job with an error (no-op if it already has an outcome).
    fn fail(self: Pin<&mut Self>, error: JobError);
    /// For taking an unqueued job apart ([`Task::take_future`]).
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

pin_project! {
    /// A job: the user's future and where its result goes.
    pub(crate) struct Task<F: Future> {
        #[pin]
        future: F,
        settle: Settle<F::Output>,
    }
}

/// The producing half of a job's [`Completion`]: settles it on drop if nothing else did, so
/// a job dropped unfinished is never left pending.
struct Settle<R> {
    completion: Arc<Completion<Result<R, JobError>>>,
    settled: bool,
}

impl<R> Settle<R> {
    fn settle(&mut self, outcome: Result<R, JobError>) {
        if !self.settled {
            self.settled = true;
            // Refused only if the waiter gave up: then the value is dropped here.
            let _ = self.completion.complete(outcome);
        }
    }
}

impl<R> Drop for Settle<R> {
    fn drop(&mut self) {
        if !self.settled {
            // Dropped while its worker process ends (killed, say): that is the reason. Dropped
            // anywhere else: the pool ended before the job could run.
            let error = match ending_reason() {
                Some(reason) => JobError::WorkerExited(reason),
                None => JobError::Lost,
            };
            self.settle(Err(error));
        }
    }
}

impl<F> Task<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    /// A job for `future` and the handle that awaits its result.
    pub(crate) fn pair(future: F) -> (Envelope, Job<F::Output>) {
        let waiter = Waiter::new();
        let completion = Arc::clone(waiter.completion());
        let job = Job::new(waiter);
        let task = Task {
            future,
            settle: Settle {
                completion,
                settled: false,
            },
        };
        (Box::new(task), job)
    }

    /// Takes back the future of a job that was never queued; its [`Job`] handle is dropped
    /// by the caller and nothing is delivered.
    pub(crate) fn take_future(envelope: Envelope) -> F {
        let task = envelope
            .into_any()
            .downcast::<Task<F>>()
            .unwrap_or_else(|_| unreachable!("an envelope taken apart as its own type"));
        let Task { future, mut settle } = *task;
        settle.settled = true;
        future
    }
}

impl<F> Runnable for Task<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn poll_run(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        match this.future.poll(cx) {
            Poll::Ready(value) => {
                this.settle.settle(Ok(value));
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn fail(self: Pin<&mut Self>, error: JobError) {
        self.project().settle.settle(Err(error));
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// Runs a job, catching its panic: the job yields [`JobError::Panicked`] and the worker
/// process goes on. An exit of the worker process itself (`mote::exit` on itself, which
/// unwinds) is not a job panic: the job yields [`JobError::WorkerExited`] and the unwinding
/// goes on, ending the worker.
pub(crate) struct RunCaught<'a>(pub(crate) Pin<&'a mut dyn Runnable>);

impl Future for RunCaught<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let job = self.0.as_mut();
        match catch_unwind(AssertUnwindSafe(|| job.poll_run(cx))) {
            Ok(poll) => poll,
            Err(payload) => {
                if let Some(ExitNow(reason)) = payload.downcast_ref::<ExitNow>() {
                    self.0.as_mut().fail(JobError::WorkerExited(reason.clone()));
                    resume_unwind(payload);
                }
                self.0
                    .as_mut()
                    .fail(JobError::Panicked(panic_message(&*payload)));
                Poll::Ready(())
            }
        }
    }
}
