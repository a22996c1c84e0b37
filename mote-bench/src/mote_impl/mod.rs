//! The `mote` implementation of every workload: processes with typed mailboxes, replies sent
//! to the asker's own `Pid` carried in the request, and `Arc` for big read-only data, written
//! the way a mote programmer would (mote's default runtime: one scheduler thread per core).
//!
//! Each workload lives in its own file with `pub fn run(variant, params) -> Result<Outcome>`,
//! mirroring `tokio_impl` file for file: same parameters, timing boundaries, extras and checks.
//! "main" in the contract is the root process given to [`mote::run`], which blocks the
//! calling thread until it ends.
//!
//! Unlike a tokio channel, a mailbox never "closes": a `Pid` does not keep its process alive
//! and a process blocked in `recv` waits until a message comes. So every process here ends on
//! its own, after a known number of messages or on an explicit stop message, instead of
//! waiting for its senders to go away.

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

/// Runs `workload` (already validated against the catalog) on mote.
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
        other => Err(UsageError(format!("mote: unknown workload '{other}'")).into()),
    }
}

/// Runs the workload's "main" as mote's root process ([`mote::run`]) and waits for it. A main
/// that ends any other way than returning (a panic, a kill) is reported with its exit reason.
pub(crate) fn run_main<M, T, F, Fut>(main: F) -> Result<T>
where
    M: Send + 'static,
    F: FnOnce(mote::Process<M>) -> Fut,
    Fut: Future<Output = Result<T>> + Send + 'static,
    T: Send + 'static,
{
    mote::run(main)
        .map_err(|reason| anyhow::anyhow!("mote main process ended abnormally: {reason}"))?
}

pub(crate) use crate::catalog::bad_variant;
