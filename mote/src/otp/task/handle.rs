//! [`Task<T>`]: the handle to a task's eventual value.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::process::handle::Process;
use crate::process::spawn::{SpawnError, SpawnOptions};
use crate::rt::completion::{ExitWatch, Waiter};
use crate::rt::signals;
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

use super::TaskError;

/// The handle to a value computed by a task: a mote process started with
/// [`task::spawn`](crate::task::spawn) or [`task::spawn_link`](crate::task::spawn_link).
///
/// `Task<T>` is a future: awaiting it gives `Ok(value)`, or `Err(TaskError::Exit(reason))`
/// if the task's process ended without producing the value (a panic, a kill, a shutdown).
///
/// Unlike Elixir's `Task.await`, which only the process that started the task may call, a
/// `Task` is `Send` (when `T` is): move it to any process, tokio task or thread and await it
/// there. Only one side can await it, since awaiting takes it by value (or by `&mut`; once
/// the value is taken, awaiting again gives [`TaskError::AlreadyTaken`]).
///
/// # Dropping
///
/// Dropping a `Task` does **not** stop the task: it runs to its end, and its value is
/// dropped where it is produced (it never lands in anyone's mailbox). Dropping also removes
/// the handle's watch on the task's process, so nothing is left behind there. To stop a
/// task, use [`Task::shutdown`] (polite, then forced) or [`Task::abort`] (forced).
///
/// ```
/// use mote::{task, Process};
///
/// mote::run(|mut p: Process<u32>| async move {
///     let t = task::spawn(async { 6 * 7 });
///     // Awaited by another process than the one that started it.
///     let me = p.pid();
///     mote::spawn(move |_q: Process<()>| async move { me.send(t.await.unwrap()) });
///     assert_eq!(p.recv().await, 42);
/// })
/// .unwrap();
/// ```
pub struct Task<T> {
    completion: Waiter<T>,
    watch: ExitWatch,
    /// The process this task was linked to when spawned: unlinked before the task is
    /// stopped through this handle, so that stopping it does not take that process down.
    linked_to: Option<ProcessId>,
}

impl<T: Send + 'static> Task<T> {
    /// Spawns `future` as a process whose value fills this handle's completion. The watch
    /// is registered before the process can run, so its end is never missed.
    pub(crate) fn try_spawn<F>(future: F, linked: bool) -> Result<Task<T>, SpawnError>
    where
        F: Future<Output = T> + Send + 'static,
    {
        let mut options = SpawnOptions::new().run_next();
        let mut linked_to = None;
        if linked {
            linked_to = Some(crate::self_id().ok_or(SpawnError::NotInProcess)?);
            options = options.linked();
        }
        let completion = Waiter::new();
        let producer = Arc::clone(completion.completion());
        let r = signals::new_ref();
        let pid = options
            .watched_by(r, completion.completion().clone())
            .try_spawn(move |_p: Process<()>| async move {
                // Gives the value back if the waiter has given up: it is dropped here.
                let _ = producer.complete(future.await);
            })?;
        Ok(Task {
            completion,
            watch: ExitWatch::spawned(pid.id(), r),
            linked_to,
        })
    }
}

impl<T> Task<T> {
    /// The id of the task's process.
    ///
    /// ```
    /// mote::run(|_p: mote::Process<()>| async {
    ///     let t = mote::task::spawn(async { 1 });
    ///     let id = t.id();
    ///     assert_eq!(t.await, Ok(1));
    ///     # let _ = id;
    /// })
    /// .unwrap();
    /// ```
    pub fn id(&self) -> ProcessId {
        self.watch.target()
    }

    /// Whether the task's outcome (its value, or its exit reason) is there, or has been
    /// taken: awaiting the task now does not wait.
    ///
    /// ```
    /// use std::time::Duration;
    /// mote::run(|_p: mote::Process<()>| async {
    ///     let mut t = mote::task::spawn(async { 1 });
    ///     assert_eq!(t.yield_timeout(Duration::from_secs(5)).await, Some(Ok(1)));
    ///     assert!(t.is_finished());
    /// })
    /// .unwrap();
    /// ```
    pub fn is_finished(&self) -> bool {
        self.completion.is_ready() || self.completion.is_done()
    }

    /// Waits at most `timeout` for the task's value (Elixir's `Task.yield`). `None` if it
    /// is not done yet: the task keeps running and this handle can be awaited again.
    ///
    /// A zero timeout only checks whether the outcome is already there.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mote::task;
    /// mote::run(|_p: mote::Process<()>| async {
    ///     let mut slow = task::spawn(async {
    ///         mote::sleep(Duration::from_millis(50)).await;
    ///         "done"
    ///     });
    ///     assert_eq!(slow.yield_timeout(Duration::ZERO).await, None);
    ///     assert_eq!(slow.await, Ok("done"));
    /// })
    /// .unwrap();
    /// ```
    pub async fn yield_timeout(&mut self, timeout: Duration) -> Option<Result<T, TaskError>> {
        crate::rt::timeout_wheel::timeout(timeout, self).await.ok()
    }

    /// Waits at most `timeout` for the task's value; on timeout, kills the task and gives
    /// [`TaskError::Timeout`] (Elixir's `Task.await`, which exits the caller on timeout;
    /// here the caller gets an error and the task is the one stopped).
    ///
    /// The kill is the untrappable [`ExitReason::Kill`]; like every exit signal it takes
    /// effect at the task's next await point, shortly after this returns. A task linked to
    /// its starter ([`task::spawn_link`](crate::task::spawn_link)) is unlinked first, so
    /// the starter is not taken down.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mote::task::{self, TaskError};
    /// mote::run(|_p: mote::Process<()>| async {
    ///     let stuck = task::spawn(std::future::pending::<()>());
    ///     let r = stuck.await_timeout(Duration::from_millis(10)).await;
    ///     assert_eq!(r, Err(TaskError::Timeout));
    /// })
    /// .unwrap();
    /// ```
    pub async fn await_timeout(mut self, timeout: Duration) -> Result<T, TaskError> {
        match self.yield_timeout(timeout).await {
            Some(outcome) => outcome,
            None => self.stop().unwrap_or(Err(TaskError::Timeout)),
        }
    }

    /// Stops the task (Elixir's `Task.shutdown`): sends it the exit signal
    /// [`ExitReason::Shutdown`], waits up to `grace` for it to end, then sends the
    /// untrappable [`ExitReason::Kill`] and waits until it has ended.
    ///
    /// Returns `Some(Ok(value))` if the task produced its value before it was stopped,
    /// `Some(Err(TaskError::Exit(reason)))` if it ended for another reason than this
    /// shutdown (it had crashed, say), and `None` if it was stopped by the shutdown or the
    /// kill. A task linked to its starter is unlinked first, so the starter is not taken
    /// down.
    ///
    /// An exit signal takes effect at the task's next await point: a task that computes
    /// without ever awaiting delays its end, and the wait after the kill, until it does.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mote::task;
    /// mote::run(|_p: mote::Process<()>| async {
    ///     let done = task::spawn(async { 7 });
    ///     mote::sleep(Duration::from_millis(20)).await;
    ///     assert_eq!(done.shutdown(Duration::from_secs(1)).await, Some(Ok(7)));
    ///
    ///     let stuck = task::spawn(std::future::pending::<u32>());
    ///     let id = stuck.id();
    ///     assert_eq!(stuck.shutdown(Duration::from_secs(1)).await, None);
    ///     assert!(!mote::is_alive(id));
    /// })
    /// .unwrap();
    /// ```
    pub async fn shutdown(mut self, grace: Duration) -> Option<Result<T, TaskError>> {
        self.unlink();
        if self.is_finished() {
            return Some(Pin::new(&mut self).await);
        }
        let outcome = crate::otp::shutdown::shut_down(self.id(), Some(grace), &mut self).await;
        match outcome {
            Err(TaskError::Exit(ExitReason::Shutdown | ExitReason::Killed)) => None,
            outcome => Some(outcome),
        }
    }

    /// Kills the task at once, without waiting for it to end (the untrappable
    /// [`ExitReason::Kill`], which takes effect at its next await point). A linked task is
    /// unlinked first. Its value, if it comes anyway, is dropped.
    ///
    /// ```
    /// use mote::task;
    /// mote::run(|_p: mote::Process<()>| async {
    ///     let t = task::spawn(std::future::pending::<()>());
    ///     let id = t.id();
    ///     t.abort();
    ///     while mote::is_alive(id) {
    ///         mote::yield_now().await;
    ///     }
    /// })
    /// .unwrap();
    /// ```
    pub fn abort(mut self) {
        let _ = self.stop();
    }

    /// Gives up on the task and kills it; returns an outcome that arrived before the waiter
    /// gave up (a later value is dropped by the task).
    pub(crate) fn stop(&mut self) -> Option<Result<T, TaskError>> {
        let outcome = self.completion.close();
        self.unlink();
        crate::exit(self.id(), ExitReason::Kill);
        outcome.map(|r| r.map_err(TaskError::Exit))
    }

    fn unlink(&mut self) {
        if let Some(owner) = self.linked_to.take() {
            signals::unlink(owner, self.id());
        }
    }
}

impl<T> Future for Task<T> {
    type Output = Result<T, TaskError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if self.completion.is_done() {
            return Poll::Ready(Err(TaskError::AlreadyTaken));
        }
        self.get_mut()
            .completion
            .poll_take(cx)
            .map(|r| r.map_err(TaskError::Exit))
    }
}

impl<T> Drop for Task<T> {
    fn drop(&mut self) {
        // A value produced from now on is dropped by the task; the watch goes with `watch`.
        let _ = self.completion.close();
    }
}

impl<T> fmt::Debug for Task<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task")
            .field("id", &self.id())
            .field("finished", &self.is_finished())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The number of watchers (monitors and listeners) on a live process.
    fn watchers(id: ProcessId) -> usize {
        signals::peek_live(id, |_, s| s.as_ref().map_or(0, |s| s.watchers.len())).unwrap_or(0)
    }

    #[test]
    fn dropping_the_handle_removes_its_watch() {
        let counts = crate::run(|_p: Process<()>| async {
            let t = crate::otp::task::spawn(std::future::pending::<()>());
            let id = t.id();
            let before = watchers(id);
            drop(t);
            let after = watchers(id);
            crate::exit(id, ExitReason::Kill);
            (before, after)
        });
        assert_eq!(counts, Ok((1, 0)));
    }
}
