//! Starting mote: the runtime's configuration ([`Builder`]) and the entry points [`run`] and
//! [`run_async`].
//!
//! Like an Erlang node, there is one mote runtime per OS process. It starts lazily on first
//! use with defaults (one worker per core and a private tokio runtime for IO and timers), or
//! explicitly with a [`Builder`] before first use, for example to reuse a tokio runtime the
//! program already has. The runtime itself (the scheduler's threads and the tokio handle) is
//! owned by `rt::scheduler::global`; this module only hands it a configuration.

use std::future::Future;

use crate::process::handle::Process;
use crate::process::spawn::SpawnOptions;
use crate::process::teardown;
use crate::rt::scheduler::global;
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

/// Configures the mote runtime before its first use.
///
/// ```
/// // Usually not needed: the runtime starts by itself with these defaults.
/// let _ = mote::Builder::new().worker_threads(2).install();
/// let answer = mote::run(|_p: mote::Process<()>| async { 42 }).unwrap();
/// assert_eq!(answer, 42);
/// ```
#[derive(Debug, Default)]
pub struct Builder {
    workers: Option<usize>,
    tokio: Option<tokio::runtime::Handle>,
}

/// [`Builder::install`] was called after the runtime had already started.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("the mote runtime is already running; configure it before the first spawn")]
pub struct AlreadyStarted;

impl Builder {
    /// A builder with the defaults: one worker per available core, a private tokio runtime.
    pub fn new() -> Self {
        Builder::default()
    }

    /// The number of scheduler threads that run processes (at least 1).
    pub fn worker_threads(mut self, n: usize) -> Self {
        self.workers = Some(n.max(1));
        self
    }

    /// Use this tokio runtime for IO and timers instead of starting one. The runtime must
    /// outlive every process (mote never shuts down).
    ///
    /// Not for tests: a `#[tokio::test]`'s runtime ends with its test, so a handle installed
    /// by one test would be dead for the next. Without this call, [`run_async`] works from
    /// any async context, many `#[tokio::test]`s included, and processes use mote's own tokio
    /// runtime; or write the tests with `#[mote::test]`.
    ///
    /// ```no_run
    /// #[tokio::main]
    /// async fn main() {
    ///     mote::Builder::new().tokio_handle(tokio::runtime::Handle::current()).install().unwrap();
    ///     let n = mote::run_async(|_p: mote::Process<()>| async { 1 + 1 }).await.unwrap();
    ///     assert_eq!(n, 2);
    /// }
    /// ```
    pub fn tokio_handle(mut self, handle: tokio::runtime::Handle) -> Self {
        self.tokio = Some(handle);
        self
    }

    /// Whether Rust's own panic message (`thread 'mote-worker-0' panicked at ...`) is printed
    /// for panics inside processes, besides mote's crash report (default: no, the report
    /// replaces it). The crash report is a `tracing` event (target `mote::crash`), or a line
    /// on standard error when no `tracing` subscriber is installed.
    ///
    /// ```
    /// let _ = mote::Builder::new().panic_messages(true).install();
    /// ```
    pub fn panic_messages(self, keep: bool) -> Self {
        crate::rt::crash_report::keep_panic_messages(keep);
        self
    }

    /// Starts the runtime with this configuration.
    pub fn install(self) -> Result<(), AlreadyStarted> {
        let config = global::Config {
            workers: self.workers,
            tokio: self.tokio,
        };
        if global::install(config) {
            Ok(())
        } else {
            Err(AlreadyStarted)
        }
    }
}

/// The number of scheduler threads.
///
/// ```
/// assert!(mote::worker_threads() >= 1);
/// ```
pub fn worker_threads() -> usize {
    global::worker_threads()
}

/// Runs `f` as a process and blocks the calling thread until it ends: the usual entry point
/// of a program. Returns what the process returned, or its exit reason if it ended another
/// way (a panic, a kill, a linked process's crash).
///
/// When the root process ends, every process it left behind (those spawned by it, or by
/// them, and so on) ends too, with reason `shutdown`, as `init:stop` ends a BEAM node's
/// processes: their futures are dropped, so destructors run, and links and monitors fire.
/// `run` returns once they have all ended. Runs going on at the same time (tests of one
/// binary) end only their own processes; a process spawned outside any process belongs
/// to no run and is never ended this way.
///
/// # Errors
///
/// Besides the root's own exit reason: called from inside a process, `run` refuses at once
/// with an [`ExitReason::custom`] whose message names [`run_async`], since it would block
/// one of the scheduler's threads until the new run ends, and hang once every thread waits
/// so. Use [`run_async`] there.
///
/// ```
/// use mote::{Process, ExitReason};
/// let sum = mote::run(|mut p: Process<u64>| async move {
///     let me = p.pid();
///     for i in 1..=3 { me.send(i) }
///     p.recv().await + p.recv().await + p.recv().await
/// });
/// assert_eq!(sum, Ok(6));
///
/// async fn crash() { panic!("boom") }
/// let crashed = mote::run(|_p: Process<()>| crash());
/// assert_eq!(crashed, Err::<(), _>(ExitReason::Panic("boom".into())));
/// ```
pub fn run<M, F, Fut>(f: F) -> Result<Fut::Output, ExitReason>
where
    M: Send + 'static,
    F: FnOnce(Process<M>) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: Send + 'static,
{
    if crate::rt::current::current().is_some() {
        return Err(ExitReason::custom(NESTED_RUN));
    }
    // The calling thread waits on a std channel, not a tokio one: `blocking_recv` alone
    // faults in pages of tokio's code that a program which never uses tokio directly would
    // not touch (peak RSS, see docs/design.md "Baseline memory"). A bounded one of one
    // value, whose buffer is allocated here: the unbounded one allocates a block of 31
    // values on the first send, a page of the worker's heap. The root ends once, so one
    // value ever crosses it (`try_send` never blocks a worker); every sender gone without
    // one means the root vanished.
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let (group, root) = start_root(f, move |out| {
        let _ = tx.try_send(out);
    });
    let out = rx.recv().unwrap_or(Err(ExitReason::NoProc));
    teardown::end_group_blocking(group, root);
    out
}

/// Runs `f` as a process and waits, asynchronously, until it ends. Works from any async
/// context, a tokio task or another process. As with [`run`], the processes the root left
/// behind end with it (`shutdown`) before this returns.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let n = mote::run_async(|_p: mote::Process<()>| async { 6 * 7 }).await;
/// assert_eq!(n, Ok(42));
/// # }
/// ```
pub async fn run_async<M, F, Fut>(f: F) -> Result<Fut::Output, ExitReason>
where
    M: Send + 'static,
    F: FnOnce(Process<M>) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: Send + 'static,
{
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (group, root) = start_root(f, move |out| {
        let _ = tx.send(out);
    });
    let out = rx.recv().await.unwrap_or(Err(ExitReason::NoProc));
    teardown::end_group_async(group, root).await;
    out
}

/// The exit reason (as `ExitReason::custom`) of a `run` called from inside a process.
const NESTED_RUN: &str = "mote::run called from inside a process: it would block a \
    scheduler thread (and hang once every thread waits so); use mote::run_async(..).await";

/// Spawns the root process of a run, in a new run group, with `deliver` called with its
/// outcome: the body's value, or its exit reason if it ended first (it may be called again
/// after the first; only the first counts). Returns its group and its id.
fn start_root<M, F, Fut, D>(f: F, deliver: D) -> (u32, ProcessId)
where
    M: Send + 'static,
    F: FnOnce(Process<M>) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: Send + 'static,
    D: Fn(Result<Fut::Output, ExitReason>) + Clone + Send + Sync + 'static,
{
    let on_exit = deliver.clone();
    let group = teardown::new_group();
    let root = SpawnOptions::new()
        .run_group(group)
        .on_exit(move |reason| {
            // Only reached first when the body did not finish (the body's `Ok` is delivered
            // before the process exits); the receiver takes the first value.
            on_exit(Err(reason.clone()));
        })
        .spawn(move |p: Process<M>| {
            let body = f(p);
            async move {
                let out = body.await;
                deliver(Ok(out));
            }
        });
    (group, root.id())
}
