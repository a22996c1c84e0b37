//! The `tokio` implementation of every workload: tasks, unbounded `tokio::sync::mpsc`
//! mailboxes and `oneshot` replies on a multi-thread runtime with the default worker count,
//! written plainly, the way a tokio programmer would.
//!
//! Each workload lives in its own file with `pub fn run(variant, params) -> Result<Outcome>`.
//! "main" in the contract is a task spawned on the runtime (see `run_main`).

use crate::catalog::UsageError;
use crate::outcome::Outcome;
use crate::params::Params;
use anyhow::Result;
use std::future::Future;

pub mod call;
pub mod chain;
pub mod copy;
pub mod fanin;
pub mod million;
pub mod parsum;
pub mod pingpong;
pub mod ring;
pub mod skynet;
pub mod spawn;
pub mod workers;

/// Runs `workload` (already validated against the catalog) on tokio.
pub fn run(workload: &str, variant: &str, p: &Params) -> Result<Outcome> {
    match workload {
        "chain" => chain::run(variant, p),
        "million" => million::run(variant, p),
        "spawn" => spawn::run(variant, p),
        "pingpong" => pingpong::run(variant, p),
        "ring" => ring::run(variant, p),
        "skynet" => skynet::run(variant, p),
        "fanin" => fanin::run(variant, p),
        "call" => call::run(variant, p),
        "parsum" => parsum::run(variant, p),
        "copy" => copy::run(variant, p),
        "workers" => workers::run(variant, p),
        other => Err(UsageError(format!("tokio: unknown workload '{other}'")).into()),
    }
}

/// Runs the workload's "main" on the runtime `#[tokio::main]` builds (multi-thread, one worker
/// per core, all drivers enabled) and returns its result.
///
/// Main is spawned as a task rather than run as `block_on`'s own future: in the other
/// runtimes main is an ordinary process (Go's main goroutine, the BEAM's shell process, mote's
/// root process), while `block_on` polls its future on the calling thread, outside the worker
/// pool, so every message to main would have to unpark that OS thread. A tokio programmer who
/// has main exchange messages with tasks spawns it (the `steal` pattern runs about ten times
/// slower otherwise).
pub(crate) fn run_main<T, F>(main: F) -> Result<T>
where
    F: Future<Output = Result<T>> + Send + 'static,
    T: Send + 'static,
{
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(rt.spawn(main))?
}

pub(crate) use crate::catalog::bad_variant;

/// The error for a channel that closed before the workload finished: a bug, never expected.
pub(crate) fn closed(what: &str) -> anyhow::Error {
    anyhow::anyhow!("{what}: channel closed before the answer was complete")
}
