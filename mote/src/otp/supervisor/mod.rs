//! Supervisors: processes that start children, watch them, and restart them when they fail
//! (Erlang's `supervisor`, Elixir's `Supervisor` and `DynamicSupervisor`).
//!
//! A [`Supervisor`] starts its children in order from their [`ChildSpec`]s, links to them and
//! traps their exits. When a child ends, its [`Restart`] type says whether to restart it and
//! the [`Strategy`] which siblings go with it. Restarts are rationed: more than `max` within
//! `period` (default 3 in 5 s) means something is wrong that restarting does not fix, so the
//! supervisor stops all its children (last started first) and ends with `shutdown`, handing
//! the problem to its own supervisor. Supervisors nest: a supervisor is a child like any
//! other ([`Supervisor::into_child_spec`]), so they build trees.
//!
//! ```
//! use std::time::Duration;
//! use mote::server::Server;
//! use mote::supervisor::{ChildSpec, Strategy, Supervisor};
//!
//! #[derive(Default)]
//! struct Worker;
//! impl Server for Worker { type Call = (); type Reply = (); type Cast = (); type Info = (); }
//!
//! mote::run(|_p: mote::Process<()>| async move {
//!     let sup = Supervisor::new(Strategy::OneForOne)
//!         .child(ChildSpec::server("a", Worker::default))
//!         .child(ChildSpec::server("b", Worker::default))
//!         .start_link()
//!         .await
//!         .unwrap();
//!     let before = sup.which_children().await.unwrap();
//!     let a = before[0].pid.unwrap();
//!     mote::exit(a, mote::ExitReason::Kill);
//!     // The supervisor restarts `a` with a new pid; `b` is untouched.
//!     loop {
//!         let now = sup.which_children().await.unwrap();
//!         if now[0].pid.is_some_and(|p| p != a) {
//!             assert_eq!(now[1].pid, before[1].pid);
//!             break;
//!         }
//!         mote::sleep(Duration::from_millis(1)).await;
//!     }
//! })
//! .unwrap();
//! ```
//!
//! Stopping a supervisor ([`SupervisorRef::stop`], or an exit signal from its parent) stops
//! the children one at a time in reverse start order, each as its [`Shutdown`] says.
//!
//! # Reports
//!
//! What a supervisor does is told through [`tracing`](https://docs.rs/tracing) events
//! (OTP's progress and supervisor reports), target `mote::supervisor`. Each has an `event`
//! field, the supervisor's pid (`supervisor`) and registered name (`supervisor_name`), the
//! child's id (`child_id`) and process (`child_pid`):
//!
//! * `child_started` (INFO): a child was started.
//! * `child_restarted` (ERROR): a child was restarted; `reason` is the exit that caused it,
//!   `cause` the id of the child that exited (another child's under one-for-all and
//!   rest-for-one), `old_pid` the process it replaces.
//! * `child_terminated` (INFO): the supervisor stopped a child (API, strategy, shutdown).
//! * `child_exited` (ERROR if abnormal, else INFO): a child ended and is not restarted.
//! * `shutdown` (ERROR): the restart intensity was reached and the supervisor gives up
//!   (OTP's `reached_max_restart_intensity`); `reason` is the exit that was one too many.
//!
//! With no subscriber (or one not interested), nothing is computed for them.

mod dynamic;
mod intensity;
mod report;
mod spec;
mod state;
mod strategy;

use std::sync::Arc;
use std::time::Duration;

pub use dynamic::{DynamicSupervisor, DynamicSupervisorRef};
pub use spec::{ChildKind, ChildSpec, Restart, Shutdown, StartFuture};
pub use strategy::Strategy;

use self::intensity::RestartIntensity;
use self::state::{Child, SupCall, SupReply, SupState, FOREVER};
use crate::otp::server::{CallError, ServerOptions, ServerRef, StartError, StopError};
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;
use crate::values::term::Term;

/// A supervisor to start: strategy, restart intensity, children.
///
/// See the [module docs](self) for an example.
#[derive(Debug, Clone)]
pub struct Supervisor {
    strategy: Strategy,
    max_restarts: u32,
    period: Duration,
    children: Vec<ChildSpec>,
    name: Option<String>,
}

/// A running supervisor's address.
///
/// ```
/// use mote::supervisor::{ChildSpec, Strategy, Supervisor, SupervisorError};
/// use mote::{Process, SpawnOptions};
///
/// mote::run(|_p: Process<()>| async move {
///     let sup = Supervisor::new(Strategy::OneForOne).start_link().await.unwrap();
///     let spec = ChildSpec::new("sleeper", || async {
///         Ok(SpawnOptions::new().linked().spawn(|mut c: Process<()>| async move { c.recv().await }).id())
///     });
///     let pid = sup.start_child(spec.clone()).await.unwrap();
///     assert_eq!(sup.start_child(spec.clone()).await, Err(SupervisorError::AlreadyStarted(pid)));
///     assert_eq!(sup.count_children().await.unwrap().active, 1);
///     sup.terminate_child("sleeper").await.unwrap();
///     assert!(!mote::is_alive(pid));
///     assert_eq!(sup.start_child(spec).await, Err(SupervisorError::AlreadyPresent("sleeper".into())));
///     let again = sup.restart_child("sleeper").await.unwrap();
///     assert_ne!(again, pid);
///     assert_eq!(sup.delete_child("sleeper").await, Err(SupervisorError::Running("sleeper".into())));
/// })
/// .unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SupervisorRef(ServerRef<SupState>);

/// One child, as [`SupervisorRef::which_children`] reports it (Erlang's
/// `{Id, Child, Type, Modules}`, without `Modules`: mote has no code modules to upgrade,
/// and with the restart type, which OTP leaves out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildInfo {
    /// The child's id (for a dynamic supervisor's children: their spec's id, not unique).
    pub id: Arc<str>,
    /// Its process, or `None` if it is not running (Erlang's `undefined`: terminated, a
    /// transient child that ended normally, or a child whose start answered ignore).
    /// There is no `restarting`: a supervisor retries a failed restart before it handles
    /// anything else, so no caller sees a child between two attempts.
    pub pid: Option<ProcessId>,
    /// Worker or supervisor.
    pub kind: ChildKind,
    /// Its restart type.
    pub restart: Restart,
}

/// Child counts, as [`SupervisorRef::count_children`] reports them (Erlang's
/// `[{specs, _}, {active, _}, {supervisors, _}, {workers, _}]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChildCounts {
    /// All child specs, running or not.
    pub specs: usize,
    /// Children running.
    pub active: usize,
    /// Specs of supervisors.
    pub supervisors: usize,
    /// Specs of workers.
    pub workers: usize,
}

/// Errors of the supervisor API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SupervisorError {
    /// No child has this id (or pid).
    #[error("no child {0}")]
    NotFound(Arc<str>),
    /// The child runs; stop it first.
    #[error("the child {0} is running")]
    Running(Arc<str>),
    /// A child with this id exists already, not running (Erlang's `already_present`).
    #[error("a child {0} exists already")]
    AlreadyPresent(Arc<str>),
    /// A child with this id exists already and runs as this process (Erlang's
    /// `{already_started, Pid}`).
    #[error("a child with this id runs already, as {0}")]
    AlreadyStarted(ProcessId),
    /// The child's start function failed with this reason (Erlang's `start_child`
    /// returns `{error, {Reason, ChildRecord}}`; mote gives the `Reason`).
    #[error("the child failed to start: {0}")]
    StartFailed(ExitReason),
    /// A dynamic supervisor has its maximum number of children.
    #[error("the supervisor has its maximum of {0} children")]
    MaxChildren(usize),
    /// The supervisor could not be called (it is not alive, say).
    #[error(transparent)]
    Call(#[from] CallError),
}

impl Supervisor {
    /// A supervisor with this strategy, no children yet, and the default intensity of 3
    /// restarts in 5 s.
    pub fn new(strategy: Strategy) -> Self {
        Supervisor {
            strategy,
            max_restarts: 3,
            period: Duration::from_secs(5),
            children: Vec::new(),
            name: None,
        }
    }

    /// At most `max_restarts` restarts within any `period`; one more and the supervisor
    /// stops its children and ends with `shutdown`.
    pub fn intensity(mut self, max_restarts: u32, period: Duration) -> Self {
        self.max_restarts = max_restarts;
        self.period = period;
        self
    }

    /// Adds a child, started after those added before it.
    pub fn child(mut self, spec: ChildSpec) -> Self {
        self.children.push(spec);
        self
    }

    /// Registers the supervisor under `name`.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Starts the supervisor linked to the calling process (its parent), and its children
    /// in order; returns once all have started. If one fails to start, those already
    /// started are stopped and the supervisor ends with Erlang's reason
    /// `{shutdown, {failed_to_start_child, Id, Reason}}`, which [`StartError::Init`]
    /// carries (the id is an atom, or a binary if longer than an atom can be).
    pub async fn start_link(self) -> Result<SupervisorRef, StartError> {
        self.start_with(true).await
    }

    /// Starts the supervisor unlinked (see [`Supervisor::start_link`]).
    pub async fn start(self) -> Result<SupervisorRef, StartError> {
        self.start_with(false).await
    }

    async fn start_with(self, linked: bool) -> Result<SupervisorRef, StartError> {
        let mut options = ServerOptions::new();
        if linked {
            options = options.linked();
        }
        if let Some(name) = &self.name {
            options = options.name(name.clone());
        }
        let duplicate = self
            .children
            .iter()
            .enumerate()
            .find(|(i, c)| self.children[..*i].iter().any(|d| d.id == c.id));
        if let Some((_, c)) = duplicate {
            // Erlang's reason: `{start_spec, {duplicate_child_name, Id}}`.
            let id = Term::atom_or_binary(Arc::clone(&c.id));
            let duplicate = Term::tuple([Term::atom("duplicate_child_name"), id]);
            return Err(StartError::Init(ExitReason::from(Term::tuple([
                Term::atom("start_spec"),
                duplicate,
            ]))));
        }
        let state = SupState {
            strategy: self.strategy,
            intensity: RestartIntensity::new(self.max_restarts, self.period),
            children: self
                .children
                .into_iter()
                .map(|spec| Child { spec, pid: None })
                .collect(),
            dynamic: None,
        };
        options.start(state).await.map(SupervisorRef)
    }

    /// This supervisor as a child of another: a supervisor-kind spec that starts it linked
    /// to its parent supervisor.
    ///
    /// ```
    /// use mote::supervisor::{Strategy, Supervisor};
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let inner = Supervisor::new(Strategy::OneForAll);
    ///     let root = Supervisor::new(Strategy::OneForOne)
    ///         .child(inner.into_child_spec("inner"))
    ///         .start_link()
    ///         .await
    ///         .unwrap();
    ///     let counts = root.count_children().await.unwrap();
    ///     assert_eq!((counts.supervisors, counts.active), (1, 1));
    /// })
    /// .unwrap();
    /// ```
    pub fn into_child_spec(self, id: impl Into<Arc<str>>) -> ChildSpec {
        ChildSpec::new(id, move || {
            let sup = self.clone();
            async move { Ok(sup.start_link().await?.id()) }
        })
        .supervisor()
    }
}

impl SupervisorRef {
    /// The supervisor registered as `name`. (A dynamic supervisor's name gives
    /// [`DynamicSupervisorRef::named`] instead, here [`RegistryError::WrongType`](crate::RegistryError::WrongType).)
    ///
    /// ```
    /// use mote::supervisor::{Strategy, Supervisor, SupervisorRef};
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let sup = Supervisor::new(Strategy::OneForOne).name("top").start_link().await.unwrap();
    ///     assert_eq!(SupervisorRef::named("top"), Ok(sup));
    /// })
    /// .unwrap();
    /// ```
    pub fn named(name: &str) -> Result<Self, crate::RegistryError> {
        let server = ServerRef::<SupState>::named(name)?;
        Self::from_id(server.id()).ok_or_else(|| crate::RegistryError::WrongType {
            name: name.into(),
            expected: "a supervisor",
            actual: "a dynamic supervisor",
        })
    }

    /// The supervisor whose process is `id`, if it is one (alive, and started by
    /// [`Supervisor`]; a dynamic supervisor's id gives `None`, see
    /// [`DynamicSupervisorRef::from_id`]): for the pid of a supervisor child that
    /// [`which_children`](Self::which_children) reports.
    ///
    /// ```
    /// use mote::supervisor::{Strategy, Supervisor, SupervisorRef};
    /// mote::run(|p: mote::Process<()>| async move {
    ///     let root = Supervisor::new(Strategy::OneForOne)
    ///         .child(Supervisor::new(Strategy::OneForAll).into_child_spec("inner"))
    ///         .start_link()
    ///         .await
    ///         .unwrap();
    ///     let inner = root.which_children().await.unwrap()[0].pid.unwrap();
    ///     let inner = SupervisorRef::from_id(inner).expect("a supervisor");
    ///     assert_eq!(inner.count_children().await.unwrap().specs, 0);
    ///     assert_eq!(SupervisorRef::from_id(p.id()), None);
    /// })
    /// .unwrap();
    /// ```
    pub fn from_id(id: ProcessId) -> Option<Self> {
        ServerRef::<SupState>::from_id(id).map(SupervisorRef)
    }

    /// The supervisor's process id.
    pub fn id(&self) -> ProcessId {
        self.0.id()
    }

    async fn call(&self, call: SupCall) -> Result<SupReply, CallError> {
        self.0.call(call, FOREVER).await
    }

    async fn done(&self, call: SupCall) -> Result<Option<ProcessId>, SupervisorError> {
        match self.call(call).await? {
            SupReply::Done(r) => r,
            _ => unreachable!("a change is answered with Done"),
        }
    }

    /// The children, in start order.
    pub async fn which_children(&self) -> Result<Vec<ChildInfo>, CallError> {
        match self.call(SupCall::Which).await? {
            SupReply::Children(c) => Ok(c),
            _ => unreachable!("which_children is answered with Children"),
        }
    }

    /// How many children there are, of each kind, and how many run.
    pub async fn count_children(&self) -> Result<ChildCounts, CallError> {
        match self.call(SupCall::Count).await? {
            SupReply::Counts(c) => Ok(c),
            _ => unreachable!("count_children is answered with Counts"),
        }
    }

    /// Adds a child at the end and starts it (Erlang's `supervisor:start_child/2`).
    ///
    /// Returns the child's process, or [`ProcessId::NONE`] if its start answered ignore
    /// (Erlang's `{ok, undefined}`; the child is kept, with no process). An id already in
    /// use is [`SupervisorError::AlreadyStarted`] with its process if that child runs, else
    /// [`SupervisorError::AlreadyPresent`]. A failed start is
    /// [`SupervisorError::StartFailed`], and the spec is not kept.
    pub async fn start_child(&self, spec: ChildSpec) -> Result<ProcessId, SupervisorError> {
        self.done(SupCall::Start(spec))
            .await
            .map(|p| p.unwrap_or(ProcessId::NONE))
    }

    /// Stops a child as its spec says (Erlang's `supervisor:terminate_child/2`); its spec
    /// stays (a temporary child's goes). `Ok` too for a child that is not running
    /// (terminated, or ignored); [`SupervisorError::NotFound`] for an unknown id.
    pub async fn terminate_child(&self, id: &str) -> Result<(), SupervisorError> {
        self.done(SupCall::Terminate(id.into())).await.map(|_| ())
    }

    /// Starts a child that is not running again (Erlang's `supervisor:restart_child/2`):
    /// a terminated child, or one whose start answered ignore. Returns its new process, or
    /// [`ProcessId::NONE`] if its start answered ignore again (`{ok, undefined}`).
    /// [`SupervisorError::Running`] for a running child, [`SupervisorError::NotFound`] for
    /// an unknown id.
    pub async fn restart_child(&self, id: &str) -> Result<ProcessId, SupervisorError> {
        self.done(SupCall::Restart(id.into()))
            .await
            .map(|p| p.unwrap_or(ProcessId::NONE))
    }

    /// Removes the spec of a child that is not running (Erlang's
    /// `supervisor:delete_child/2`): terminated or ignored. [`SupervisorError::Running`]
    /// for a running child, [`SupervisorError::NotFound`] for an unknown id.
    pub async fn delete_child(&self, id: &str) -> Result<(), SupervisorError> {
        self.done(SupCall::Delete(id.into())).await.map(|_| ())
    }

    /// Stops the supervisor (its children first, in reverse start order) and waits up to
    /// `timeout` until it has ended.
    pub async fn stop(&self, reason: ExitReason, timeout: Duration) -> Result<(), StopError> {
        self.0.stop(reason, timeout).await
    }
}

impl From<SupervisorRef> for ProcessId {
    fn from(s: SupervisorRef) -> ProcessId {
        s.id()
    }
}
