//! A pool worker: a process that takes jobs from its queue and runs them one at a time.

use async_channel::Receiver;

use super::envelope::{Envelope, RunCaught};

/// Serves `queue` until it is closed and empty, then ends normally.
///
/// The worker holds nothing of the pool but its queue, so a queue outlives any worker. A job
/// that panics is caught ([`RunCaught`]): the worker goes on with the next one.
pub(crate) async fn serve(queue: Receiver<Envelope>) {
    while let Ok(job) = queue.recv().await {
        let mut job = Box::into_pin(job);
        RunCaught(job.as_mut()).await;
    }
}
