//! [`DynamicSupervisor`]: children started on demand (Erlang's `simple_one_for_one`,
//! Elixir's `DynamicSupervisor`).

use std::time::Duration;

use super::intensity::RestartIntensity;
use super::state::{SupCall, SupState};
use super::{ChildCounts, ChildInfo, ChildSpec, Strategy, SupervisorError, SupervisorRef};
use crate::otp::server::{CallError, ServerOptions, ServerRef, StartError, StopError};
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

/// A supervisor that starts with no children and takes them on demand
/// ([`DynamicSupervisorRef::start_child`]), one-for-one, optionally at most `max_children`.
/// Children are known by pid; one that ends for good (temporary, or transient and normal)
/// is forgotten.
///
/// ```
/// use mote::supervisor::{ChildSpec, DynamicSupervisor, Restart, SupervisorError};
/// use mote::{Process, SpawnOptions};
///
/// mote::run(|_p: Process<()>| async move {
///     let sup = DynamicSupervisor::new().max_children(2).start_link().await.unwrap();
///     let session = ChildSpec::new("session", || async {
///         Ok(SpawnOptions::new().linked().spawn(|mut c: Process<()>| async move { c.recv().await }).id())
///     })
///     .restart(Restart::Temporary);
///     let a = sup.start_child(session.clone()).await.unwrap();
///     sup.start_child(session.clone()).await.unwrap();
///     assert_eq!(sup.start_child(session).await, Err(SupervisorError::MaxChildren(2)));
///     sup.terminate_child(a).await.unwrap();
///     assert_eq!(sup.count_children().await.unwrap().active, 1);
/// })
/// .unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct DynamicSupervisor {
    max_children: Option<usize>,
    max_restarts: u32,
    period: Duration,
    name: Option<String>,
}

/// A running dynamic supervisor's address.
///
/// See [`DynamicSupervisor`] for an example.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DynamicSupervisorRef(SupervisorRef);

impl Default for DynamicSupervisor {
    fn default() -> Self {
        Self::new()
    }
}

impl DynamicSupervisor {
    /// No limit on children; 3 restarts in 5 s.
    pub fn new() -> Self {
        DynamicSupervisor {
            max_children: None,
            max_restarts: 3,
            period: Duration::from_secs(5),
            name: None,
        }
    }

    /// At most this many children; more are refused with [`SupervisorError::MaxChildren`].
    pub fn max_children(mut self, max: usize) -> Self {
        self.max_children = Some(max);
        self
    }

    /// The restart intensity (see [`Supervisor::intensity`](super::Supervisor::intensity)).
    pub fn intensity(mut self, max_restarts: u32, period: Duration) -> Self {
        self.max_restarts = max_restarts;
        self.period = period;
        self
    }

    /// Registers the supervisor under `name`.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Starts it linked to the calling process.
    pub async fn start_link(self) -> Result<DynamicSupervisorRef, StartError> {
        self.start_with(true).await
    }

    /// Starts it unlinked.
    pub async fn start(self) -> Result<DynamicSupervisorRef, StartError> {
        self.start_with(false).await
    }

    async fn start_with(self, linked: bool) -> Result<DynamicSupervisorRef, StartError> {
        let mut options = ServerOptions::new();
        if linked {
            options = options.linked();
        }
        if let Some(name) = self.name {
            options = options.name(name);
        }
        let state = SupState {
            strategy: Strategy::OneForOne,
            intensity: RestartIntensity::new(self.max_restarts, self.period),
            children: Vec::new(),
            dynamic: Some(self.max_children),
        };
        let server = options
            .behaviour(std::any::TypeId::of::<DynamicTag>())
            .start(state)
            .await?;
        Ok(DynamicSupervisorRef(SupervisorRef(server)))
    }

    /// This supervisor as a child of another.
    pub fn into_child_spec(self, id: &str) -> ChildSpec {
        ChildSpec::new(id, move || {
            let sup = self.clone();
            async move { Ok(sup.start_link().await?.id()) }
        })
        .supervisor()
    }
}

/// What a dynamic supervisor's process is recorded as (its server is a supervisor's, with
/// other rules).
struct DynamicTag;

impl DynamicSupervisorRef {
    /// The dynamic supervisor registered as `name` (a [`Supervisor`](super::Supervisor)'s
    /// name gives [`RegistryError::WrongType`](crate::RegistryError::WrongType)).
    ///
    /// ```
    /// use mote::supervisor::{DynamicSupervisor, DynamicSupervisorRef};
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let sup = DynamicSupervisor::new().name("sessions").start_link().await.unwrap();
    ///     assert_eq!(DynamicSupervisorRef::named("sessions"), Ok(sup));
    ///     assert!(DynamicSupervisorRef::named("nobody").is_err());
    /// })
    /// .unwrap();
    /// ```
    pub fn named(name: &str) -> Result<Self, crate::RegistryError> {
        let server = ServerRef::<SupState>::named(name)?;
        Self::from_id(server.id()).ok_or_else(|| crate::RegistryError::WrongType {
            name: name.into(),
            expected: "a dynamic supervisor",
            actual: "a supervisor",
        })
    }

    /// The dynamic supervisor whose process is `id`, if it is one (alive, and started by
    /// [`DynamicSupervisor`]).
    ///
    /// ```
    /// use mote::supervisor::{DynamicSupervisor, DynamicSupervisorRef};
    /// mote::run(|p: mote::Process<()>| async move {
    ///     let sup = DynamicSupervisor::new().start_link().await.unwrap();
    ///     assert_eq!(DynamicSupervisorRef::from_id(sup.id()), Some(sup));
    ///     assert_eq!(DynamicSupervisorRef::from_id(p.id()), None);
    /// })
    /// .unwrap();
    /// ```
    pub fn from_id(id: ProcessId) -> Option<Self> {
        // SAFETY: `DynamicTag` is private to this module, which records it only for the
        // `SupState` server of a dynamic supervisor.
        unsafe { ServerRef::<SupState>::from_id_as(id, std::any::TypeId::of::<DynamicTag>()) }
            .map(|s| DynamicSupervisorRef(SupervisorRef(s)))
    }

    /// The supervisor's process id.
    pub fn id(&self) -> ProcessId {
        self.0.id()
    }

    /// Starts a child from `spec` (its id need not be unique). A start that answers ignore
    /// gives [`ProcessId::NONE`] and keeps nothing (as `simple_one_for_one`).
    pub async fn start_child(&self, spec: ChildSpec) -> Result<ProcessId, SupervisorError> {
        self.0.start_child(spec).await
    }

    /// Stops the child `pid` and forgets it.
    pub async fn terminate_child(&self, pid: ProcessId) -> Result<(), SupervisorError> {
        self.0.done(SupCall::TerminatePid(pid)).await.map(|_| ())
    }

    /// The children, oldest first.
    pub async fn which_children(&self) -> Result<Vec<ChildInfo>, CallError> {
        self.0.which_children().await
    }

    /// Child counts.
    pub async fn count_children(&self) -> Result<ChildCounts, CallError> {
        self.0.count_children().await
    }

    /// Stops the supervisor and its children.
    pub async fn stop(&self, reason: ExitReason, timeout: Duration) -> Result<(), StopError> {
        self.0.stop(reason, timeout).await
    }
}

impl From<DynamicSupervisorRef> for ProcessId {
    fn from(s: DynamicSupervisorRef) -> ProcessId {
        s.id()
    }
}
