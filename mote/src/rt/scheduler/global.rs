//! The one scheduler of this OS process and the tokio runtime its workers enter for IO and
//! timers. Like an Erlang node, there is one per OS process: it starts on first use with
//! the defaults (one worker per core, a private tokio runtime), or earlier with a
//! [`Config`] (the public `Builder` of the process core installs one).
//!
//! These globals live here, with the scheduler, so the layers above read them without the
//! scheduler ever reaching up to find itself.

use std::sync::{Arc, OnceLock};

use super::Scheduler;

/// How to start the scheduler; `None` fields take the defaults.
#[derive(Debug, Default)]
pub(crate) struct Config {
    /// Scheduler threads (default: one per available core).
    pub(crate) workers: Option<usize>,
    /// The tokio runtime for IO and timers (default: a private current-thread runtime, driven
    /// by one thread of its own, `mote-io`).
    pub(crate) tokio: Option<tokio::runtime::Handle>,
}

struct Global {
    scheduler: Arc<Scheduler>,
    tokio: tokio::runtime::Handle,
    workers: usize,
}

static GLOBAL: OnceLock<Global> = OnceLock::new();

fn global() -> &'static Global {
    GLOBAL.get_or_init(|| start(Config::default()))
}

/// Starts the scheduler with `config`; false if it had already started.
pub(crate) fn install(config: Config) -> bool {
    let mut installed = false;
    GLOBAL.get_or_init(|| {
        installed = true;
        start(config)
    });
    installed
}

/// Starts the scheduler with the defaults unless it is running: called before a process
/// is spawned, so its first schedule finds the workers.
pub(crate) fn ensure_started() {
    global();
}

/// The scheduler.
pub(crate) fn scheduler() -> &'static Scheduler {
    &global().scheduler
}

/// The scheduler if it has started (the metrics read it without starting it).
pub(crate) fn running() -> Option<&'static Scheduler> {
    GLOBAL.get().map(|g| &*g.scheduler)
}

/// The tokio runtime handle that processes use for IO and timers.
pub(crate) fn tokio_handle() -> &'static tokio::runtime::Handle {
    &global().tokio
}

/// The number of scheduler threads.
pub(crate) fn worker_threads() -> usize {
    global().workers
}

fn start(config: Config) -> Global {
    let workers = config.workers.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let tokio = match config.tokio {
        Some(handle) => handle,
        None => private_tokio(),
    };
    crate::rt::crash_report::install_panic_hook();
    let scheduler = Scheduler::start(workers, tokio.clone());
    Global {
        scheduler,
        tokio,
        workers,
    }
}

/// Starts mote's own tokio runtime: a current-thread runtime whose `block_on` runs forever
/// on a thread of its own, `mote-io`, so that the tasks spawned on it (the timeout wheel's
/// drivers, `tokio::spawn` from processes) and its IO and timer drivers run there, and
/// processes reach it through the handle their workers enter.
///
/// Not a one-worker multi-thread runtime, as it was: that worker keeps a moving average
/// of its poll times with `f64::powf`, whose code and tables in libm, with the
/// multi-thread scheduler's own, were resident in every run that armed a timeout
/// (page-fault records of the `call` benchmark, see docs/design.md). What processes can do
/// with tokio is the same: `tokio::task::block_in_place` inside a process runs its closure
/// in place with either, since a worker only enters the handle.
fn private_tokio() -> tokio::runtime::Handle {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("starting mote's tokio runtime for IO and timers");
    let handle = rt.handle().clone();
    std::thread::Builder::new()
        .name("mote-io".into())
        .spawn(move || rt.block_on(std::future::pending::<()>()))
        .expect("spawning mote's IO thread");
    handle
}
