//! Synchronous start: spawn a process and wait until it says it is ready (Erlang's
//! `proc_lib:start_link` with `init_ack`).
//!
//! [`spawn`](crate::spawn) is asynchronous and should stay the default: the caller goes on at
//! once, which is what keeps a master from waiting on each worker (the trap the parallel-sum measurements fell into).
//! Starting synchronously is for when the caller must not go on before the child has done
//! its setup (registered a name, opened a socket), and for learning whether that setup
//! failed.

use std::future::Future;
use std::sync::Arc;

use crate::process::handle::Process;
use crate::process::spawn::SpawnOptions;
use crate::rt::completion::{Completion, ExitWatch, Waiter};
use crate::values::exit::{ExitReason, IntoExitReason};
use crate::values::pid::Pid;

/// The new process's half of a synchronous start: [`Started::confirm`] lets the starter go
/// on.
///
/// Dropping it without confirming does not release the starter: it waits until the process
/// confirms or ends (then it gets the exit reason), as Erlang's `proc_lib:start` waits for
/// `init_ack`.
pub struct Started {
    completion: Arc<Completion<()>>,
}

impl Started {
    /// Tells the starter that this process is ready.
    pub fn confirm(self) {
        let _ = self.completion.complete(());
    }
}

impl std::fmt::Debug for Started {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Started")
    }
}

/// Spawns a process and waits until it calls [`Started::confirm`]; returns its pid, or its
/// exit reason if it ends before confirming.
///
/// ```
/// use mote::{Process, Started};
/// mote::run(|_p: Process<()>| async move {
///     let pid = mote::start(|mut c: Process<u32>, started: Started| async move {
///         mote::register("ready", c.pid()).unwrap();
///         started.confirm();
///         c.recv().await;
///     })
///     .await
///     .unwrap();
///     // The name exists: the child did its setup before `start` returned.
///     assert_eq!(mote::whereis("ready"), Some(pid.id()));
///     pid.send(0);
///
///     let failed = mote::start(|_c: Process<()>, _s: Started| async {
///         mote::ExitReason::custom("no config")
///     })
///     .await;
///     assert_eq!(failed.unwrap_err(), mote::ExitReason::custom("no config"));
/// })
/// .unwrap();
/// ```
pub async fn start<M, F, Fut>(f: F) -> Result<Pid<M>, ExitReason>
where
    M: Send + 'static,
    F: FnOnce(Process<M>, Started) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: IntoExitReason,
{
    SpawnOptions::new().start(f).await
}

impl SpawnOptions {
    /// Spawns the process with these options and waits until it confirms it has started
    /// (see [`start`]).
    ///
    /// # Panics
    /// If the process table is full, or [`SpawnOptions::linked`] is set outside a process.
    pub async fn start<M, F, Fut>(self, f: F) -> Result<Pid<M>, ExitReason>
    where
        M: Send + 'static,
        F: FnOnce(Process<M>, Started) -> Fut,
        Fut: Future + Send + 'static,
        Fut::Output: IntoExitReason,
    {
        let mut completion = Waiter::new();
        let started = Started {
            completion: Arc::clone(completion.completion()),
        };
        let r = crate::rt::signals::new_ref();
        let pid = self
            .watched_by(r, completion.completion().clone())
            .spawn(move |p| f(p, started));
        let _watch = ExitWatch::spawned(pid.id(), r);
        completion.wait().await.map(|()| pid)
    }
}
