//! The pool's manager: a process that starts the workers linked to itself, traps their exits
//! and replaces any that dies while its queue still has work coming. It ends when every
//! worker has ended, which is what [`Pool::shutdown`](super::Pool::shutdown) waits for.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::worker::serve;
use super::Shared;
use crate::process::handle::Process;
use crate::process::spawn::SpawnOptions;
use crate::process::start::Started;
use crate::values::exit::{Exit, ExitReason};
use crate::values::pid::ProcessId;

/// The manager's body: `started` is confirmed once every worker runs.
pub(crate) async fn manage(mut p: Process<Exit>, started: Started, shared: Arc<Shared>) {
    p.trap_exit(true);
    let n = shared.size;
    for i in 0..n {
        let queue = shared.queues.receiver(i).clone();
        // Each worker confirms from inside its body: it is running when this returns.
        let worker = SpawnOptions::new()
            .linked()
            .start(move |_w: Process<()>, ok: Started| async move {
                ok.confirm();
                serve(queue).await;
            })
            .await;
        match worker {
            Ok(pid) => shared.workers.lock()[i] = pid.id(),
            // Cannot happen (the body confirms first), but never leave the starter waiting.
            Err(reason) => p.exit(reason),
        }
    }
    started.confirm();
    let mut alive = n;
    while alive > 0 {
        let Exit { from, reason } = p.recv().await;
        // Decided and recorded under the lock that `shutdown` takes to set `stopping`: a
        // replacement is either seen (and killed) by a forced shutdown or never started.
        let mut workers = shared.workers.lock();
        let Some(i) = workers.iter().position(|&w| w == from) else {
            continue; // not one of ours (someone linked to the manager)
        };
        let done = shared.stopping.load(Ordering::Acquire)
            || (reason == ExitReason::Normal && shared.queues.is_finished(i));
        workers[i] = if done {
            alive -= 1;
            ProcessId::NONE
        } else {
            let queue = shared.queues.receiver(i).clone();
            SpawnOptions::new()
                .linked()
                .spawn(move |_w: Process<()>| serve(queue))
                .id()
        };
    }
}
