//! A live dashboard for a mote node, like Erlang's observer or Phoenix LiveDashboard: a web
//! page served by the node itself, showing its processes (sortable by mailbox length,
//! memory and work done), the supervision tree, one process's links, monitors and status,
//! runtime charts over time, and a kill button; with the JSON API behind it.
//!
//! One line turns it on:
//!
//! ```no_run
//! # fn main() -> Result<(), mote_dashboard::Error> {
//! let dashboard = mote_dashboard::serve("127.0.0.1:4000")?;
//! println!("dashboard at {}", dashboard.url());
//! # Ok(()) }
//! ```
//!
//! The server is a mote process (so it shows in its own table) running an
//! [axum](https://docs.rs/axum) server on the tokio runtime mote uses for IO: mote's own, or
//! the caller's if it was given to [`mote::Builder::tokio_handle`]. Every second it also
//! samples [`mote::metrics::snapshot`] into a history of the last 300 samples for the
//! charts ([`Dashboard`] changes both).
//!
//! # The JSON API
//!
//! | request | answer |
//! | --- | --- |
//! | `GET /api/processes?sort=mailbox&order=desc&limit=100` | live processes with their counters; `sort` is one of `pid`, `name`, `status`, `mailbox`, `memory`, `messages`, `polls` (work done), `order` `asc` or `desc` |
//! | `GET /api/process/<0.42.0>` | one process: status, name, counters, `trap_exit`, links, monitors, monitored by, and its children if it is a supervisor; 404 if it is not alive |
//! | `GET /api/tree` | the supervision trees: every supervisor that no other supervises, with its children, recursively |
//! | `GET /api/metrics` | the sampled history of the runtime's counters, oldest first |
//! | `POST /api/process/<0.42.0>/kill` | sends the process an untrappable kill; 404 if it is not alive |
//!
//! Pids are written as mote prints them, `<0.42.0>` (URL-encoded or not; the brackets may
//! be left out).
//!
//! # Security
//!
//! The dashboard has no authentication and its kill button kills: bind it to a loopback
//! address (or put it behind something that authenticates).

#![warn(missing_docs, missing_debug_implementations, rust_2018_idioms)]

mod api;
mod history;
mod tree;

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use mote::{ExitReason, Pid, Process, ProcessId, SpawnOptions};

pub use history::Sample;

/// Why the dashboard could not start.
///
/// ```
/// let first = mote_dashboard::serve("127.0.0.1:0").unwrap();
/// // The port is taken now.
/// let again = mote_dashboard::serve(first.local_addr());
/// assert!(matches!(again, Err(mote_dashboard::Error::Bind(_))));
/// # first.stop();
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The address could not be resolved or bound.
    #[error("binding the dashboard's address: {0}")]
    Bind(#[from] std::io::Error),
}

/// The dashboard's options; [`serve`] is `Dashboard::new().serve(addr)`.
///
/// ```no_run
/// use std::time::Duration;
/// # fn main() -> Result<(), mote_dashboard::Error> {
/// let dashboard = mote_dashboard::Dashboard::new()
///     .sample_every(Duration::from_millis(500))
///     .history(600)
///     .serve("127.0.0.1:0")?;
/// println!("{}", dashboard.url());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Dashboard {
    every: Duration,
    keep: usize,
}

impl Default for Dashboard {
    fn default() -> Self {
        Dashboard {
            every: Duration::from_secs(1),
            keep: 300,
        }
    }
}

impl Dashboard {
    /// The defaults: a sample every second, the last 300 kept (five minutes of charts).
    pub fn new() -> Self {
        Dashboard::default()
    }

    /// How often the runtime's counters are sampled for the charts (at least 10 ms).
    pub fn sample_every(mut self, every: Duration) -> Self {
        self.every = every.max(Duration::from_millis(10));
        self
    }

    /// How many samples the charts keep (at least 2, for one rate).
    pub fn history(mut self, samples: usize) -> Self {
        self.keep = samples.max(2);
        self
    }

    /// Binds `addr` and starts serving the dashboard from a new mote process (starting the
    /// mote runtime if it is not running). Returns once the address is bound, so a request
    /// made right after is answered. Port 0 picks a free port: see
    /// [`DashboardHandle::local_addr`].
    ///
    /// Like any process, the dashboard belongs to the `mote::run` it is started in, and
    /// stops when that run's root process ends; started outside any process (from `main`
    /// before `mote::run`, or from a plain thread) it serves until [`DashboardHandle::stop`].
    pub fn serve(self, addr: impl ToSocketAddrs) -> Result<DashboardHandle, Error> {
        // Bound here, synchronously, so the caller learns of a taken port at once and
        // knows the port when it asked for any.
        let listener = TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let local_addr = listener.local_addr()?;
        let state = Arc::new(api::State::new(self.every, self.keep));
        let pid = SpawnOptions::new().spawn(move |p: Process<Control>| async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            state.set_own(p.id());
            // Named, to be found in its own table; a second dashboard stays unnamed.
            let _ = mote::register(NAME, p.pid());
            run(p, listener, state).await
        });
        Ok(DashboardHandle { pid, local_addr })
    }
}

/// Serves the dashboard on `addr` with the default options (see [`Dashboard::serve`]).
///
/// ```
/// # fn main() -> Result<(), mote_dashboard::Error> {
/// let dashboard = mote_dashboard::serve("127.0.0.1:0")?;
/// assert_ne!(dashboard.local_addr().port(), 0);
/// dashboard.stop();
/// # Ok(()) }
/// ```
pub fn serve(addr: impl ToSocketAddrs) -> Result<DashboardHandle, Error> {
    Dashboard::new().serve(addr)
}

/// The name the (first) dashboard's process registers once it runs.
///
/// ```
/// let dashboard = mote_dashboard::serve("127.0.0.1:0").unwrap();
/// let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
/// while mote::whereis(mote_dashboard::NAME) != Some(dashboard.id()) {
///     assert!(std::time::Instant::now() < deadline, "never registered");
///     std::thread::sleep(std::time::Duration::from_millis(5));
/// }
/// # dashboard.stop();
/// ```
pub const NAME: &str = "mote_dashboard";

/// What the dashboard's process takes: only the request to stop.
#[derive(Debug)]
struct Control;

/// A running dashboard. Dropping the handle leaves it running; [`stop`](Self::stop) ends
/// it.
#[derive(Debug, Clone)]
pub struct DashboardHandle {
    pid: Pid<Control>,
    local_addr: SocketAddr,
}

impl DashboardHandle {
    /// The address it listens on (with the port picked, if port 0 was asked for).
    ///
    /// ```
    /// let dashboard = mote_dashboard::serve("127.0.0.1:0").unwrap();
    /// assert!(dashboard.local_addr().ip().is_loopback());
    /// # dashboard.stop();
    /// ```
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The page's address, `http://127.0.0.1:4000/`.
    ///
    /// ```
    /// let dashboard = mote_dashboard::serve("127.0.0.1:0").unwrap();
    /// assert!(dashboard.url().starts_with("http://127.0.0.1:"));
    /// # dashboard.stop();
    /// ```
    pub fn url(&self) -> String {
        format!("http://{}/", self.local_addr)
    }

    /// The dashboard's own process.
    ///
    /// ```
    /// let dashboard = mote_dashboard::serve("127.0.0.1:0").unwrap();
    /// assert!(mote::is_alive(dashboard.id()));
    /// # dashboard.stop();
    /// ```
    pub fn id(&self) -> ProcessId {
        self.pid.id()
    }

    /// Stops serving: the listener closes at once, and the process ends once the requests
    /// in flight are answered. Returns without waiting for that.
    ///
    /// ```
    /// let dashboard = mote_dashboard::serve("127.0.0.1:0").unwrap();
    /// dashboard.stop();
    /// ```
    pub fn stop(&self) {
        self.pid.send(Control);
    }

    /// Ends the dashboard's process at once, with open connections cut.
    ///
    /// ```
    /// let dashboard = mote_dashboard::serve("127.0.0.1:0").unwrap();
    /// dashboard.kill();
    /// ```
    pub fn kill(&self) {
        mote::exit(self.pid, ExitReason::Kill);
    }
}

/// The dashboard process's life: serve until told to stop, sampling meanwhile.
async fn run(
    mut p: Process<Control>,
    listener: tokio::net::TcpListener,
    state: Arc<api::State>,
) -> Result<(), ExitReason> {
    let app = api::router(Arc::clone(&state));
    let serving = axum::serve(listener, app).with_graceful_shutdown(async move {
        p.recv().await;
    });
    tokio::select! {
        served = serving => served.map_err(ExitReason::from),
        () = sample(&state) => Ok(()),
    }
}

/// Samples the runtime's counters for the charts, forever.
async fn sample(state: &api::State) {
    loop {
        state.sample();
        mote::sleep(state.every()).await;
    }
}
