//! A one-shot result that one side fills and the other awaits, and that a process's exit can
//! fill instead: the core of calls, tasks, confirmed starts and pool jobs.
//!
//! The waiting side watches the process that should fill it (a server, a task, a worker):
//! [`Completion`] is an exit listener, so if that process ends first, the waiter wakes with
//! its exit reason instead of hanging. When the waiter gives up ([`Completion::close`]), a
//! late value is dropped where it is produced: nothing stray ever reaches a mailbox, which is
//! what Erlang's process aliases buy a `gen_server:call` since OTP 24.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;

use crate::rt::signals;
use crate::rt::table::extras::ExitListener;
use crate::values::exit::ExitReason;
use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::ProcessId;

pub(crate) struct Completion<T> {
    state: Mutex<State<T>>,
    /// The producer's handle was dropped without producing a value. Outside the lock: a
    /// server reads it after every call.
    abandoned: AtomicBool,
}

struct State<T> {
    outcome: Outcome<T>,
    waker: Option<Waker>,
    /// A watch the producer put on itself when it dropped its handle (see
    /// [`Completion::abandon_in`]); removed when dropped.
    producer_watch: Option<ExitWatch>,
}

enum Outcome<T> {
    Pending,
    Value(T),
    Exited(ExitReason),
    /// Taken by the waiter, or closed by it: later values are dropped.
    Done,
}

impl<T> Completion<T> {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Completion {
            state: Mutex::new(State {
                outcome: Outcome::Pending,
                waker: None,
                producer_watch: None,
            }),
            abandoned: AtomicBool::new(false),
        })
    }

    /// Stores the value and wakes the waiter. Gives the value back if the waiter has given
    /// up or an outcome is already there.
    pub(crate) fn complete(&self, value: T) -> Result<(), T> {
        let waker = {
            let mut s = self.state.lock();
            if !matches!(s.outcome, Outcome::Pending) {
                return Err(value);
            }
            s.outcome = Outcome::Value(value);
            s.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
        Ok(())
    }

    /// Ends the wait with an exit reason, unless an outcome is already there.
    pub(crate) fn fail(&self, reason: ExitReason) {
        let waker = {
            let mut s = self.state.lock();
            if !matches!(s.outcome, Outcome::Pending) {
                return;
            }
            s.outcome = Outcome::Exited(reason);
            s.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// The waiter gives up: a value that arrives later is dropped. Returns a value that
    /// arrived before, which the waiter may still use.
    pub(crate) fn close(&self) -> Option<Result<T, ExitReason>> {
        let (outcome, watch) = {
            let mut s = self.state.lock();
            s.waker = None;
            let outcome = match std::mem::replace(&mut s.outcome, Outcome::Done) {
                Outcome::Value(v) => Some(Ok(v)),
                Outcome::Exited(r) => Some(Err(r)),
                Outcome::Pending | Outcome::Done => None,
            };
            (outcome, s.producer_watch.take())
        };
        // Removed outside the lock (it takes the producer's).
        drop(watch);
        outcome
    }

    /// Records that the producer's handle is gone without a value.
    pub(crate) fn abandon(&self) {
        self.abandoned.store(true, Ordering::Release);
    }

    /// Records that the producer's handle is gone without a value, dropped by the producer
    /// process `producer` itself (a server dropping a call's reply slot): whether that is
    /// final depends on what the producer does next. If it ends, the completion fails with
    /// its exit reason (a watch on it is put in place now); if it goes on, the producer says
    /// so with [`Completion::no_value`]. The watch is only taken on this path (a handle
    /// dropped unanswered), never per call.
    pub(crate) fn abandon_in(self: &Arc<Self>, producer: ProcessId)
    where
        T: Send + 'static,
    {
        self.abandon();
        // Already over (it ended before it could reply): the watch fails us with `noproc`.
        let watch = ExitWatch::new(producer, self);
        let mut s = self.state.lock();
        let unused = if watch.is_active() && matches!(s.outcome, Outcome::Pending) {
            s.producer_watch.replace(watch)
        } else {
            Some(watch)
        };
        drop(s);
        drop(unused);
    }

    /// The producer dropped its handle and goes on: no value will come. Ends the wait with
    /// `no_value` unless an outcome is already there, and removes the producer's watch.
    pub(crate) fn no_value(&self, no_value: T) {
        let _ = self.complete(no_value);
        let watch = self.state.lock().producer_watch.take();
        drop(watch);
    }

    /// Whether the producer dropped its handle and no outcome has arrived.
    pub(crate) fn is_abandoned(&self) -> bool {
        self.abandoned.load(Ordering::Acquire)
            && matches!(self.state.lock().outcome, Outcome::Pending)
    }

    /// Whether an outcome is waiting to be taken.
    pub(crate) fn is_ready(&self) -> bool {
        matches!(
            self.state.lock().outcome,
            Outcome::Value(_) | Outcome::Exited(_)
        )
    }

    /// Whether the waiter has taken the outcome or given up.
    pub(crate) fn is_done(&self) -> bool {
        matches!(self.state.lock().outcome, Outcome::Done)
    }

    pub(crate) fn poll_take(&self, cx: &mut Context<'_>) -> Poll<Result<T, ExitReason>> {
        let mut s = self.state.lock();
        match std::mem::replace(&mut s.outcome, Outcome::Pending) {
            Outcome::Value(v) => {
                s.outcome = Outcome::Done;
                Poll::Ready(Ok(v))
            }
            Outcome::Exited(r) => {
                s.outcome = Outcome::Done;
                Poll::Ready(Err(r))
            }
            Outcome::Pending => {
                if !s.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    s.waker = Some(cx.waker().clone());
                }
                Poll::Pending
            }
            Outcome::Done => {
                s.outcome = Outcome::Done;
                Poll::Ready(Err(ExitReason::NoProc))
            }
        }
    }

    /// Waits for the outcome.
    pub(crate) fn wait(&self) -> Wait<'_, T> {
        Wait(self)
    }
}

impl<T: Send> ExitListener for Completion<T> {
    fn exited(&self, reason: &ExitReason) {
        self.fail(reason.clone());
    }
}

/// The future of [`Completion::wait`].
pub(crate) struct Wait<'a, T>(&'a Completion<T>);

impl<T> Future for Wait<'_, T> {
    type Output = Result<T, ExitReason>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.0.poll_take(cx)
    }
}

/// A watch on a process's exit that reports into a [`Completion`], removed when dropped (so
/// a waiter that stops waiting leaves nothing behind in the watched process).
pub(crate) struct ExitWatch {
    target: ProcessId,
    monitor: Option<MonitorRef>,
}

impl ExitWatch {
    /// Whether the target was alive when watched (if not, the completion failed with
    /// `noproc`).
    pub(crate) fn is_active(&self) -> bool {
        self.monitor.is_some()
    }

    /// The watched process.
    pub(crate) fn target(&self) -> ProcessId {
        self.target
    }

    /// Watches `target`; if it is not alive, `completion` fails at once with `noproc`.
    pub(crate) fn new<T: Send + 'static>(
        target: ProcessId,
        completion: &Arc<Completion<T>>,
    ) -> Self {
        let listener: Arc<dyn ExitListener> = completion.clone();
        let monitor = signals::watch(target, listener);
        if monitor.is_none() {
            completion.fail(ExitReason::NoProc);
        }
        ExitWatch { target, monitor }
    }

    /// A watch set up at spawn time ([`SpawnOptions::watched_by`](crate::SpawnOptions)).
    pub(crate) fn spawned(target: ProcessId, monitor: MonitorRef) -> Self {
        ExitWatch {
            target,
            monitor: Some(monitor),
        }
    }
}

impl Drop for ExitWatch {
    fn drop(&mut self) {
        if let Some(r) = self.monitor {
            signals::unwatch(self.target, r);
        }
    }
}

impl std::fmt::Debug for ExitWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExitWatch")
            .field("target", &self.target)
            .finish()
    }
}
