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
    /// The tokio runtime for IO and timers (default: a private one, with one thread).
    pub(crate) tokio: Option<tokio::runtime::Handle>,
}

struct Global {
    scheduler: Arc<Scheduler>,
    tokio: tokio::runtime::Handle,
    workers: usize,
    /// The tokio runtime we started, if we were given none; kept alive forever.
    _owned_tokio: Option<tokio::runtime::Runtime>,
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
    let (tokio, owned) = match config.tokio {
        Some(handle) => (handle, None),
        None => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("mote-io")
                .enable_all()
                .build()
                .expect("starting mote's tokio runtime for IO and timers");
            (rt.handle().clone(), Some(rt))
        }
    };
    crate::rt::crash_report::install_panic_hook();
    let scheduler = Scheduler::start(workers, tokio.clone());
    Global {
        scheduler,
        tokio,
        workers,
        _owned_tokio: owned,
    }
}
