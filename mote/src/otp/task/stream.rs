//! [`async_stream`]: one task per item, with bounded concurrency (Elixir's
//! `Task.async_stream`).

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;
use futures_util::stream::{FuturesUnordered, StreamExt};

use super::{Task, TaskError};
use crate::process::spawn::SpawnError;

/// What [`async_stream`] does when an item's task runs past its timeout. Either way the
/// task is killed and its item yields `Err(TaskError::Timeout)`.
///
/// ```
/// use mote::task::{OnTimeout, StreamOptions};
/// let options = StreamOptions::new().on_timeout(OnTimeout::KillTask);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnTimeout {
    /// The stream yields `Err(TaskError::Timeout)` at once (ahead of any item still due
    /// before it in an ordered stream), kills every task still running, discards the
    /// results not yet yielded, starts no more items, and then ends. The default, like
    /// Elixir's `on_timeout: :exit` (which exits the caller).
    #[default]
    Exit,
    /// Only the late item is given up: it yields `Err(TaskError::Timeout)` in its place,
    /// and the stream goes on with the others (Elixir's `on_timeout: :kill_task`).
    KillTask,
}

/// The options of [`async_stream`].
///
/// ```
/// use std::time::Duration;
/// use mote::task::{OnTimeout, StreamOptions};
/// let options = StreamOptions::new()
///     .max_concurrency(8)
///     .ordered(false)
///     .timeout(Duration::from_secs(1))
///     .on_timeout(OnTimeout::KillTask);
/// # let _ = options;
/// ```
#[derive(Debug, Clone)]
pub struct StreamOptions {
    max_concurrency: Option<usize>,
    ordered: bool,
    timeout: Duration,
    on_timeout: OnTimeout,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            max_concurrency: None,
            ordered: true,
            timeout: Duration::from_secs(5),
            on_timeout: OnTimeout::Exit,
        }
    }
}

impl StreamOptions {
    /// The defaults: at most [`mote::worker_threads()`](crate::worker_threads) tasks at a
    /// time, results in input order, 5 seconds per item, [`OnTimeout::Exit`].
    ///
    /// ```
    /// let options = mote::task::StreamOptions::new();
    /// # let _ = options;
    /// ```
    pub fn new() -> Self {
        StreamOptions::default()
    }

    /// At most `n` items' tasks run at the same time (at least 1: 0 counts as 1).
    ///
    /// ```
    /// let options = mote::task::StreamOptions::new().max_concurrency(4);
    /// # let _ = options;
    /// ```
    pub fn max_concurrency(mut self, n: usize) -> Self {
        self.max_concurrency = Some(n.max(1));
        self
    }

    /// `true` (the default): results come in the order of the input; a finished item
    /// waits, buffered, for the ones before it (it no longer counts against
    /// `max_concurrency`). `false`: results come as the tasks finish.
    ///
    /// ```
    /// let options = mote::task::StreamOptions::new().ordered(false);
    /// # let _ = options;
    /// ```
    pub fn ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// How long each item's task may run, from its start (default 5 seconds). A very long
    /// duration (`Duration::MAX`) means no limit.
    ///
    /// ```
    /// let options = mote::task::StreamOptions::new().timeout(std::time::Duration::MAX);
    /// # let _ = options;
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// What a timeout does (see [`OnTimeout`]).
    ///
    /// ```
    /// use mote::task::{OnTimeout, StreamOptions};
    /// let options = StreamOptions::new().on_timeout(OnTimeout::KillTask);
    /// # let _ = options;
    /// ```
    pub fn on_timeout(mut self, on_timeout: OnTimeout) -> Self {
        self.on_timeout = on_timeout;
        self
    }
}

type NextTask<T> = Box<dyn FnMut() -> Option<Result<Task<T>, SpawnError>> + Send>;

/// Runs `f(item)` for each item as its own task (a mote process), at most
/// `max_concurrency` at a time, and streams the results (Elixir's `Task.async_stream`).
///
/// Each item yields exactly one result:
///
/// * `Ok(value)`;
/// * `Err(TaskError::Exit(reason))` if its task crashed: the stream goes on with the other
///   items (the tasks are not linked to the caller);
/// * `Err(TaskError::Timeout)` if its task ran past the per-item timeout: the task is
///   killed, and then see [`OnTimeout`] (by default the stream stops there);
/// * `Err(TaskError::Spawn(_))` if its process could not be spawned (a full process
///   table); the stream goes on.
///
/// The stream is lazy: nothing runs until it is first polled, and items are taken from
/// `items` only as slots free up. `f` itself runs inside each item's task, not in the
/// caller. Nothing is copied: each item is moved into its task and each value moved back;
/// share big inputs through an `Arc`.
///
/// Dropping the stream before its end kills the tasks still running.
///
/// [`AsyncStream`] implements [`futures_core::Stream`], and has an inherent
/// [`next`](AsyncStream::next) so that no extra crate is needed to consume it.
///
/// ```
/// use std::sync::Arc;
/// use mote::task::{self, StreamOptions};
///
/// mote::run(|_p: mote::Process<()>| async {
///     let words: Arc<[&str]> = Arc::from(vec!["tasks", "are", "processes"]);
///     let shared = Arc::clone(&words);
///     // `f` runs in each item's task; it gives each task its own pointer to the words.
///     let mut lengths = task::async_stream(
///         0..words.len(),
///         move |i| {
///             let words = Arc::clone(&shared);
///             async move { words[i].len() }
///         },
///         StreamOptions::new().max_concurrency(2),
///     );
///     let mut out = Vec::new();
///     while let Some(n) = lengths.next().await {
///         out.push(n.unwrap());
///     }
///     assert_eq!(out, vec![5, 3, 9]);
/// })
/// .unwrap();
/// ```
pub fn async_stream<Items, F, Fut>(
    items: Items,
    f: F,
    options: StreamOptions,
) -> AsyncStream<Fut::Output>
where
    Items: IntoIterator,
    Items::IntoIter: Send + 'static,
    Items::Item: Send + 'static,
    F: Fn(Items::Item) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: Send + 'static,
{
    let f = Arc::new(f);
    let mut items = items.into_iter();
    let next_task: NextTask<Fut::Output> = Box::new(move || {
        let item = items.next()?;
        let f = Arc::clone(&f);
        Some(Task::try_spawn(async move { f(item).await }, false))
    });
    AsyncStream {
        next_task,
        exhausted: false,
        running: FuturesUnordered::new(),
        max_concurrency: options
            .max_concurrency
            .unwrap_or_else(crate::worker_threads),
        ordered: options.ordered,
        timeout: options.timeout,
        on_timeout: options.on_timeout,
        started: 0,
        yielded: 0,
        in_order: VecDeque::new(),
        finished: VecDeque::new(),
    }
}

/// The stream of [`async_stream`]'s results: one `Result<T, TaskError>` per item.
pub struct AsyncStream<T> {
    /// Takes the next item and spawns its task; `None` when the items are exhausted.
    next_task: NextTask<T>,
    exhausted: bool,
    running: FuturesUnordered<Running<T>>,
    max_concurrency: usize,
    ordered: bool,
    timeout: Duration,
    on_timeout: OnTimeout,
    /// Items started so far (the index of the next item).
    started: usize,
    /// Ordered: the index of the next item to yield; `in_order[0]` is its result, if it is
    /// there yet.
    yielded: usize,
    in_order: VecDeque<Option<Result<T, TaskError>>>,
    /// Unordered: results in the order they came.
    finished: VecDeque<Result<T, TaskError>>,
}

impl<T> AsyncStream<T> {
    /// The next result, or `None` at the end of the stream (the same as
    /// `futures_util::StreamExt::next`).
    ///
    /// ```
    /// use mote::task::{self, StreamOptions};
    /// mote::run(|_p: mote::Process<()>| async {
    ///     let mut s = task::async_stream([1, 2], |x: u32| async move { x * 10 }, StreamOptions::new());
    ///     assert_eq!(s.next().await, Some(Ok(10)));
    ///     assert_eq!(s.next().await, Some(Ok(20)));
    ///     assert_eq!(s.next().await, None);
    /// })
    /// .unwrap();
    /// ```
    #[allow(clippy::should_implement_trait)]
    pub async fn next(&mut self) -> Option<Result<T, TaskError>> {
        StreamExt::next(self).await
    }

    /// Starts items while there is room.
    fn fill(&mut self) {
        while !self.exhausted && self.running.len() < self.max_concurrency {
            let index = self.started;
            match (self.next_task)() {
                None => self.exhausted = true,
                Some(spawned) => {
                    self.started += 1;
                    if self.ordered {
                        self.in_order.push_back(None);
                    }
                    match spawned {
                        Ok(task) => self.running.push(Running {
                            index,
                            task,
                            deadline: Box::pin(crate::process::sleep::deadline(self.timeout)),
                        }),
                        Err(e) => {
                            // Yield the failure before trying more spawns.
                            self.deliver(index, Err(e.into()));
                            return;
                        }
                    }
                }
            }
        }
    }

    fn deliver(&mut self, index: usize, result: Result<T, TaskError>) {
        if self.ordered {
            self.in_order[index - self.yielded] = Some(result);
        } else {
            self.finished.push_back(result);
        }
    }

    fn take_ready(&mut self) -> Option<Result<T, TaskError>> {
        if !self.ordered {
            return self.finished.pop_front();
        }
        if !matches!(self.in_order.front(), Some(Some(_))) {
            return None;
        }
        self.yielded += 1;
        self.in_order.pop_front().flatten()
    }

    /// Kills every running task and ends the stream.
    fn stop(&mut self) {
        for running in self.running.iter_mut() {
            let _ = running.task.stop();
        }
        self.running.clear();
        self.exhausted = true;
        self.in_order.clear();
        self.finished.clear();
    }
}

// Nothing in the stream is pinned in place: the running futures are pinned inside
// `FuturesUnordered`'s own allocations, and results are plain values.
impl<T> Unpin for AsyncStream<T> {}

impl<T> Stream for AsyncStream<T> {
    type Item = Result<T, TaskError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(result) = this.take_ready() {
                return Poll::Ready(Some(result));
            }
            this.fill();
            if let Some(result) = this.take_ready() {
                return Poll::Ready(Some(result));
            }
            match this.running.poll_next_unpin(cx) {
                Poll::Ready(Some((_, Err(TaskError::Timeout))))
                    if this.on_timeout == OnTimeout::Exit =>
                {
                    this.stop();
                    return Poll::Ready(Some(Err(TaskError::Timeout)));
                }
                Poll::Ready(Some((index, result))) => this.deliver(index, result),
                // Nothing is running: with the items exhausted, every result has been
                // yielded (each finished item was delivered, and `take_ready` found none).
                Poll::Ready(None) if this.exhausted => return Poll::Ready(None),
                Poll::Ready(None) => {}
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl<T> Drop for AsyncStream<T> {
    fn drop(&mut self) {
        self.stop();
    }
}

impl<T> fmt::Debug for AsyncStream<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncStream")
            .field("running", &self.running.len())
            .field("started", &self.started)
            .field("exhausted", &self.exhausted)
            .field("max_concurrency", &self.max_concurrency)
            .field("ordered", &self.ordered)
            .finish_non_exhaustive()
    }
}

/// A running item: its task, raced against its deadline.
struct Running<T> {
    index: usize,
    task: Task<T>,
    deadline: Pin<Box<crate::process::sleep::Deadline>>,
}

impl<T> Future for Running<T> {
    type Output = (usize, Result<T, TaskError>);

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let index = self.index;
        if let Poll::Ready(result) = Pin::new(&mut self.task).poll(cx) {
            return Poll::Ready((index, result));
        }
        if self.deadline.as_mut().poll(cx).is_ready() {
            // A value that arrived just now still counts; a later one is dropped.
            let result = self.task.stop().unwrap_or(Err(TaskError::Timeout));
            return Poll::Ready((index, result));
        }
        Poll::Pending
    }
}
