//! [`await_many`]: await several tasks under one deadline.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::stream::{FuturesUnordered, StreamExt};

use super::{Task, TaskError};

/// Awaits every task, within one overall `timeout`, and returns their values in the order
/// of the input (Elixir's `Task.await_many`).
///
/// The tasks are awaited together, so the first failure is seen as soon as it happens,
/// whatever its position. On the first failure (`Err(TaskError::Exit(reason))` of any
/// task) or when `timeout` passes (`Err(TaskError::Timeout)`), the tasks that have not
/// finished are killed (as [`Task::abort`] does: unlinked first, then the untrappable
/// [`ExitReason::Kill`](crate::ExitReason::Kill)), the values already produced are dropped,
/// and the error is returned.
///
/// ```
/// use std::time::Duration;
/// use mote::task::{self, TaskError};
///
/// async fn crash() -> u64 { panic!("boom") }
///
/// mote::run(|_p: mote::Process<()>| async {
///     let tasks = (1..=4u64).map(|i| task::spawn(async move { i * i }));
///     let squares = task::await_many(tasks, Duration::from_secs(5)).await;
///     assert_eq!(squares, Ok(vec![1, 4, 9, 16]));
///
///     let tasks = vec![task::spawn(async { 1 }), task::spawn(crash())];
///     let failed = task::await_many(tasks, Duration::from_secs(5)).await;
///     assert!(matches!(failed, Err(TaskError::Exit(_))));
/// })
/// .unwrap();
/// ```
pub async fn await_many<T>(
    tasks: impl IntoIterator<Item = Task<T>>,
    timeout: Duration,
) -> Result<Vec<T>, TaskError> {
    let mut pending: FuturesUnordered<Indexed<T>> = tasks
        .into_iter()
        .enumerate()
        .map(|(index, task)| Indexed { index, task })
        .collect();
    let mut values: Vec<Option<T>> = std::iter::repeat_with(|| None)
        .take(pending.len())
        .collect();
    let mut deadline = std::pin::pin!(crate::process::sleep::deadline(timeout));
    let outcome = std::future::poll_fn(|cx| loop {
        match pending.poll_next_unpin(cx) {
            Poll::Ready(Some((index, Ok(value)))) => values[index] = Some(value),
            Poll::Ready(Some((_, Err(e)))) => return Poll::Ready(Err(e)),
            Poll::Ready(None) => return Poll::Ready(Ok(())),
            Poll::Pending => return deadline.as_mut().poll(cx).map(|()| Err(TaskError::Timeout)),
        }
    })
    .await;
    match outcome {
        Ok(()) => Ok(values
            .into_iter()
            .map(|v| v.expect("every task gave its value"))
            .collect()),
        Err(e) => {
            for rest in pending.iter_mut() {
                let _ = rest.task.stop();
            }
            Err(e)
        }
    }
}

/// A task with its position in the input.
struct Indexed<T> {
    index: usize,
    task: Task<T>,
}

impl<T> Future for Indexed<T> {
    type Output = (usize, Result<T, TaskError>);

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let index = self.index;
        Pin::new(&mut self.task).poll(cx).map(|r| (index, r))
    }
}
