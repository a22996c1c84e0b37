//! [`ChildSpec`]: how a supervisor starts, restarts and stops one child.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::otp::server::{Server, ServerOptions, StartError};
use crate::process::spawn::SpawnError;
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;
use crate::values::term::Term;

/// When a child is restarted after it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Restart {
    /// Always.
    Permanent,
    /// Only after an abnormal end: not after `normal`, `shutdown` or `{shutdown, _}`
    /// ([`ExitReason::shutdown_with`]).
    Transient,
    /// Never; its spec is removed when it ends.
    Temporary,
}

/// How a child is stopped by its supervisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shutdown {
    /// An untrappable kill at once.
    BrutalKill,
    /// An exit signal `shutdown`, then a kill if it has not ended after this long.
    Timeout(Duration),
    /// An exit signal `shutdown`, and wait as long as it takes (the default for
    /// supervisors, so a subtree can stop in order).
    Infinity,
}

/// Whether a child is a worker or a supervisor itself (a subtree).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChildKind {
    /// A worker process.
    Worker,
    /// A supervisor.
    Supervisor,
}

/// What a child's start function returns: the started process, linked to the caller.
pub type StartFuture = Pin<Box<dyn Future<Output = Result<ProcessId, ExitReason>> + Send>>;

/// What a start function of [`ChildSpec::new_ignorable`] returns: the started process, or
/// `None` for Erlang's `ignore`.
type IgnorableStart = Pin<Box<dyn Future<Output = Result<Option<ProcessId>, ExitReason>> + Send>>;

type StartFn = Arc<dyn Fn() -> IgnorableStart + Send + Sync>;

/// How to start, restart and stop one child (Erlang's child specification).
///
/// The start function runs inside the supervisor's process and must start the child
/// *linked to its caller* (the supervisor): [`server::start_link`](crate::server::start_link),
/// [`SpawnOptions::linked`](crate::SpawnOptions::linked), [`Supervisor::start_link`](super::Supervisor::start_link).
/// The supervisor also links to whatever pid it returns, so a forgotten link is mended, but
/// a child that ends before that is seen only as `noproc`.
///
/// ```
/// use std::time::Duration;
/// use mote::supervisor::{ChildSpec, Restart, Shutdown};
/// use mote::{Process, SpawnOptions};
///
/// let worker = ChildSpec::new("ticker", || async {
///     let pid = SpawnOptions::new().linked().spawn(|mut p: Process<()>| async move {
///         while p.recv().await != () {}
///     });
///     Ok(pid.id())
/// })
/// .restart(Restart::Transient)
/// .shutdown(Shutdown::Timeout(Duration::from_millis(500)));
/// assert_eq!(worker.id(), "ticker");
/// ```
#[derive(Clone)]
pub struct ChildSpec {
    pub(super) id: Arc<str>,
    pub(super) start: StartFn,
    pub(super) restart: Restart,
    pub(super) shutdown: Shutdown,
    pub(super) kind: ChildKind,
    /// Started by a one-shot function ([`ChildSpec::temporary_once`]): always temporary.
    once: bool,
}

impl ChildSpec {
    /// A permanent worker with a 5 s shutdown timeout (Erlang's defaults), started by
    /// `start`.
    pub fn new<F, Fut>(id: impl Into<Arc<str>>, start: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ProcessId, ExitReason>> + Send + 'static,
    {
        ChildSpec::new_ignorable(id, move || {
            let started = start();
            async move { started.await.map(Some) }
        })
    }

    /// Like [`ChildSpec::new`], for a start function that may answer `Ok(None)`: Erlang's
    /// `ignore`. The supervisor then keeps the child with no process (its
    /// [`ChildInfo::pid`](super::ChildInfo::pid) is `None`, Erlang's `undefined`), restarts
    /// nothing for it, and [`restart_child`](super::SupervisorRef::restart_child) may
    /// start it later. (A dynamic supervisor does not keep it, as `simple_one_for_one`.)
    ///
    /// ```
    /// use mote::supervisor::{ChildSpec, Strategy, Supervisor};
    /// use mote::ProcessId;
    ///
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let sup = Supervisor::new(Strategy::OneForOne).start_link().await.unwrap();
    ///     let off = ChildSpec::new_ignorable("feature", || async { Ok(None) });
    ///     assert_eq!(sup.start_child(off).await, Ok(ProcessId::NONE));
    ///     let children = sup.which_children().await.unwrap();
    ///     assert_eq!((&*children[0].id, children[0].pid), ("feature", None));
    /// })
    /// .unwrap();
    /// ```
    pub fn new_ignorable<F, Fut>(id: impl Into<Arc<str>>, start: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Option<ProcessId>, ExitReason>> + Send + 'static,
    {
        ChildSpec {
            id: id.into(),
            start: Arc::new(move || Box::pin(start())),
            restart: Restart::Permanent,
            shutdown: Shutdown::Timeout(Duration::from_secs(5)),
            kind: ChildKind::Worker,
            once: false,
        }
    }

    /// A permanent worker that is a [`Server`]: `init` makes a fresh state for each
    /// (re)start, which is started with [`server::start_link`](crate::server::start_link). A server whose `init`
    /// answers [`Init::Ignore`](crate::server::Init::Ignore) is kept with no process, as
    /// [`ChildSpec::new_ignorable`] says.
    ///
    /// ```
    /// use mote::server::Server;
    /// use mote::supervisor::ChildSpec;
    ///
    /// #[derive(Default)]
    /// struct Cache(Vec<u8>);
    /// impl Server for Cache { type Call = (); type Reply = (); type Cast = (); type Info = (); }
    ///
    /// let spec = ChildSpec::server("cache", Cache::default);
    /// assert_eq!(spec.id(), "cache");
    /// ```
    pub fn server<S, F>(id: impl Into<Arc<str>>, init: F) -> Self
    where
        S: Server,
        F: Fn() -> S + Send + Sync + 'static,
    {
        ChildSpec::server_with(id, ServerOptions::new(), init)
    }

    /// Like [`ChildSpec::server`], started with these options: a registered name (taken at
    /// each start, so the restarted server is found under it again), a mailbox bound, a
    /// start timeout. The server is always linked to the supervisor, whatever `options`
    /// say.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mote::server::{Server, ServerOptions, ServerRef};
    /// use mote::supervisor::{ChildSpec, Strategy, Supervisor};
    ///
    /// #[derive(Default)]
    /// struct Cache;
    /// impl Server for Cache { type Call = (); type Reply = (); type Cast = (); type Info = (); }
    ///
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let spec = ChildSpec::server_with("cache", ServerOptions::new().name("cache"), Cache::default);
    ///     let _sup = Supervisor::new(Strategy::OneForOne).child(spec).start_link().await.unwrap();
    ///     let cache = ServerRef::<Cache>::named("cache").unwrap();
    ///     assert_eq!(cache.call((), Duration::from_secs(5)).await, Err(mote::server::CallError::NoReply));
    /// })
    /// .unwrap();
    /// ```
    pub fn server_with<S, F>(id: impl Into<Arc<str>>, options: ServerOptions, init: F) -> Self
    where
        S: Server,
        F: Fn() -> S + Send + Sync + 'static,
    {
        let init = Arc::new(init);
        ChildSpec::new_ignorable(id, move || {
            let state = init();
            let options = options.clone().linked();
            async move {
                match options.start(state).await {
                    Ok(server) => Ok(Some(server.id())),
                    Err(StartError::Ignored) => Ok(None),
                    Err(e) => Err(e.into()),
                }
            }
        })
    }

    /// A temporary worker started by a one-shot function (`FnOnce`): for a child that
    /// takes a value it owns, a `TcpStream` say, which a restart could not give again.
    /// Temporary children are never restarted, so the function runs at most once. Its
    /// shutdown is a 5 s timeout, like [`ChildSpec::new`]'s.
    ///
    /// A clone of the spec shares the function: the second start of either fails with the
    /// reason `already_started_once` (a dynamic supervisor's
    /// [`start_child`](super::DynamicSupervisorRef::start_child) gives
    /// [`SupervisorError::StartFailed`](super::SupervisorError::StartFailed)).
    ///
    /// # Panics
    /// [`ChildSpec::restart`] with anything but [`Restart::Temporary`] panics on such a spec.
    ///
    /// ```
    /// use mote::supervisor::{ChildSpec, DynamicSupervisor};
    /// use mote::{Process, SpawnOptions};
    ///
    /// mote::run(|_p: Process<()>| async move {
    ///     let sup = DynamicSupervisor::new().start_link().await.unwrap();
    ///     let owned = String::from("a socket, say"); // moved into the child, never cloned
    ///     let spec = ChildSpec::temporary_once("conn", move || async move {
    ///         let pid = SpawnOptions::new().linked().spawn(move |mut c: Process<()>| async move {
    ///             c.recv().await;
    ///             drop(owned);
    ///         });
    ///         Ok(pid.id())
    ///     });
    ///     let again = spec.clone();
    ///     sup.start_child(spec).await.unwrap();
    ///     assert!(sup.start_child(again).await.is_err());
    /// })
    /// .unwrap();
    /// ```
    pub fn temporary_once<F, Fut>(id: impl Into<Arc<str>>, start: F) -> Self
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<ProcessId, ExitReason>> + Send + 'static,
    {
        let once = parking_lot::Mutex::new(Some(start));
        let mut spec = ChildSpec::new_ignorable(id, move || {
            let start = once.lock().take();
            async move {
                match start {
                    Some(start) => start().await.map(Some),
                    None => Err(ExitReason::custom("already_started_once")),
                }
            }
        });
        spec.restart = Restart::Temporary;
        spec.once = true;
        spec
    }

    /// The child's id, unique within its supervisor.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Sets when the child is restarted (default [`Restart::Permanent`]).
    ///
    /// # Panics
    /// On a [`ChildSpec::temporary_once`] spec, for anything but [`Restart::Temporary`]:
    /// its start function cannot run twice.
    pub fn restart(mut self, restart: Restart) -> Self {
        assert!(
            !self.once || restart == Restart::Temporary,
            "a ChildSpec::temporary_once child cannot be restarted: it must stay Restart::Temporary"
        );
        self.restart = restart;
        self
    }

    /// Sets how the child is stopped (default `Timeout(5 s)` for workers, `Infinity` for
    /// supervisors).
    pub fn shutdown(mut self, shutdown: Shutdown) -> Self {
        self.shutdown = shutdown;
        self
    }

    /// Marks the child as a supervisor; its shutdown becomes [`Shutdown::Infinity`] unless
    /// set afterwards.
    pub fn supervisor(mut self) -> Self {
        self.kind = ChildKind::Supervisor;
        self.shutdown = Shutdown::Infinity;
        self
    }
}

impl std::fmt::Debug for ChildSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChildSpec")
            .field("id", &self.id)
            .field("restart", &self.restart)
            .field("shutdown", &self.shutdown)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl From<StartError> for ExitReason {
    /// The reason a failed start reports, as Erlang's: `init`'s own reason,
    /// `{already_started, Pid}` for a name already taken, `badarg` for a name that cannot
    /// be registered, `system_limit` for a full process table, `timeout` for a start
    /// timeout, `ignore` for an `init` that answered ignore (which a [`ChildSpec::server`]
    /// never reports: it keeps the child with no process); `not_in_process` for a linked
    /// start outside any process.
    fn from(e: StartError) -> Self {
        match e {
            StartError::Init(reason) => reason,
            StartError::AlreadyStarted(owner) | StartError::Spawn(SpawnError::NameTaken(owner)) => {
                ExitReason::from(Term::tuple([Term::atom("already_started"), owner.into()]))
            }
            StartError::Name(_) | StartError::Spawn(SpawnError::BadName) => {
                ExitReason::custom("badarg")
            }
            StartError::Spawn(SpawnError::TableFull(_)) => ExitReason::custom("system_limit"),
            StartError::Spawn(SpawnError::NotInProcess) => ExitReason::custom("not_in_process"),
            StartError::Ignored => ExitReason::custom("ignore"),
            StartError::Timeout => ExitReason::custom("timeout"),
        }
    }
}
