//! How each in-process runtime runs a workload's "main" (the contract's main process), so
//! every body starts the same way.
//!
//! mote: main is the root process given to [`mote::run`] (mote's default runtime: one
//! scheduler thread per core), which blocks the calling thread until it ends. Unlike a tokio
//! channel, a mailbox never "closes": a `Pid` does not keep its process alive and a process
//! blocked in `recv` waits until a message comes. So every mote process in the bodies ends on
//! its own, after a known number of messages or on an explicit stop message.
//!
//! tokio: main is a task on the multi-thread runtime `#[tokio::main]` builds (one worker per
//! core, all drivers enabled), or on the current-thread runtime for the
//! [`CURRENT_THREAD`] style.

use super::spec::Style;
use super::Tokio;
use anyhow::Result;
use std::future::Future;

/// The style that runs a workload's tokio program on the current-thread runtime. Every
/// runtime in the suite gets every core (Go's GOMAXPROCS, the BEAM's schedulers and mote's
/// scheduler threads are one per core), so this is a style, not the default, even where it
/// is faster: it shows what the multi-thread scheduler costs a sequential exchange.
pub const CURRENT_THREAD: Style = Style {
    imp: "tokio",
    name: "current_thread",
    summary: "the same program on tokio's current-thread runtime (one thread, where the other \
              runtimes get every core)",
};

/// Sets how many scheduler threads mote runs ([`super::spec::THREADS`]), before its first
/// process. The runtime starts once per program: asked again for another count, this fails
/// rather than measure the wrong thing.
pub fn mote_threads(n: usize) -> Result<()> {
    if mote::Builder::new().worker_threads(n).install().is_err() && mote::worker_threads() != n {
        anyhow::bail!(
            "mote already runs {} scheduler threads; threads={n} needs a fresh process",
            mote::worker_threads()
        );
    }
    Ok(())
}

/// Runs a workload's main as mote's root process and waits for it. A main that ends any
/// other way than returning (a panic, a kill) is reported with its exit reason.
pub fn mote_main<M, T, F, Fut>(main: F) -> Result<T>
where
    M: Send + 'static,
    F: FnOnce(mote::Process<M>) -> Fut,
    Fut: Future<Output = Result<T>> + Send + 'static,
    T: Send + 'static,
{
    mote::run(main)
        .map_err(|reason| anyhow::anyhow!("mote main process ended abnormally: {reason}"))?
}

impl Tokio {
    /// Runs a workload's main as a task on a multi-thread tokio runtime with one worker per
    /// core (on a current-thread runtime for the [`CURRENT_THREAD`] style), and returns its
    /// result.
    ///
    /// Main is spawned as a task rather than run as `block_on`'s own future: in the other
    /// runtimes main is an ordinary process (Go's main goroutine, the BEAM's shell process,
    /// mote's root process), while `block_on` polls its future on the calling thread, outside
    /// the worker pool, so every message to main would have to unpark that OS thread. A tokio
    /// programmer who has main exchange messages with tasks spawns it (the `steal` pattern
    /// runs about ten times slower otherwise).
    pub fn main<T, F>(&self, main: F) -> Result<T>
    where
        F: Future<Output = Result<T>> + Send + 'static,
        T: Send + 'static,
    {
        let mut builder = if self.style == Some(CURRENT_THREAD.name) {
            if let Some(n) = self.threads.filter(|&n| n != 1) {
                return Err(super::spec::usage(format!(
                    "tokio:{} runs one thread; it takes no threads={n}",
                    CURRENT_THREAD.name
                )));
            }
            tokio::runtime::Builder::new_current_thread()
        } else {
            let mut multi = tokio::runtime::Builder::new_multi_thread();
            if let Some(n) = self.threads {
                multi.worker_threads(n);
            }
            multi
        };
        let rt = builder.enable_all().build()?;
        rt.block_on(rt.spawn(main))?
    }
}

/// The error for a tokio channel that closed before the workload finished: a bug, never
/// expected.
pub fn closed(what: &str) -> anyhow::Error {
    anyhow::anyhow!("{what}: channel closed before the answer was complete")
}
