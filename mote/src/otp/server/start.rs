//! Starting a server: [`start`], [`start_link`] and [`ServerOptions`].

use std::any::TypeId;
use std::sync::Arc;
use std::time::Duration;

use super::run::{serve, Envelope};
use super::{Context, Init, Server, ServerRef};
use crate::process::handle::Process;
use crate::process::registry::RegistryError;
use crate::process::spawn::{SpawnError, SpawnOptions};
use crate::rt::completion::{ExitWatch, Waiter};
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

/// Why a server did not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// [`Server::init`] failed (or panicked) with this reason; the process has ended.
    #[error("the server's init failed: {0}")]
    Init(ExitReason),
    /// The name asked for belongs to another live process (Erlang's `already_started`).
    #[error("the name is already registered to {0}")]
    AlreadyStarted(ProcessId),
    /// The name asked for cannot be registered ([`RegistryError::NameTooLong`],
    /// [`RegistryError::ReservedName`]); nothing was started.
    #[error(transparent)]
    Name(RegistryError),
    /// The process could not be spawned: a full process table, or a linked start outside a
    /// process.
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    /// [`Server::init_full`] answered [`Init::Ignore`](super::Init::Ignore): the process
    /// has ended with `normal` (Erlang's `ignore`).
    #[error("the server's init answered ignore")]
    Ignored,
    /// `init` did not finish within [`ServerOptions::start_timeout`]: the process was
    /// killed (Erlang's `{error, timeout}`).
    #[error("timeout: the server's init did not finish in time")]
    Timeout,
}

/// Options for starting a server: a registered name, a link to the caller, a bounded
/// mailbox, a start timeout.
///
/// A name already taken gives [`StartError::AlreadyStarted`] with the holder's id (Erlang's
/// `{error, {already_started, Pid}}`).
///
/// ```
/// use std::time::Duration;
/// use mote::server::{Context, Next, ReplyTo, Server, ServerOptions, ServerRef, StartError};
///
/// struct Config;
/// impl Server for Config {
///     type Call = ();
///     type Reply = &'static str;
///     type Cast = ();
///     type Info = ();
///     async fn handle_call(&mut self, _: (), from: ReplyTo<&'static str>, _: &mut Context<Self>) -> Next {
///         from.reply("debug");
///         Next::Continue
///     }
/// }
///
/// mote::run(|_p: mote::Process<()>| async move {
///     let config = ServerOptions::new().name("config").linked().start(Config).await.unwrap();
///     let again = ServerOptions::new().name("config").start(Config).await;
///     assert_eq!(again, Err(StartError::AlreadyStarted(config.id())));
///     let by_name = ServerRef::<Config>::named("config").unwrap();
///     assert_eq!(by_name.call((), Duration::from_secs(1)).await, Ok("debug"));
/// })
/// .unwrap();
/// ```
#[derive(Debug, Default, Clone)]
pub struct ServerOptions {
    name: Option<String>,
    linked: bool,
    bound: Option<usize>,
    start_timeout: Option<Duration>,
    /// What the process is recorded as (see [`ServerRef::from_id`]); the default is the
    /// server's own type.
    behaviour: Option<TypeId>,
}

/// Starts an unlinked server and waits until its [`Server::init`] has run (Erlang's
/// `gen_server:start/3`).
///
/// See the [module docs](super) for an example.
pub async fn start<S: Server>(server: S) -> Result<ServerRef<S>, StartError> {
    ServerOptions::new().start(server).await
}

/// Starts a server linked to the calling process (Erlang's `gen_server:start_link/3`); the
/// caller becomes its parent (see [`Context::parent`]).
///
/// ```
/// use mote::server::{self, Server, StartError};
/// struct Idle;
/// impl Server for Idle { type Call = (); type Reply = (); type Cast = (); type Info = (); }
///
/// mote::run(|_p: mote::Process<()>| async move {
///     let idle = server::start_link(Idle).await.unwrap();
///     assert!(mote::is_alive(idle.id()));
/// })
/// .unwrap();
/// ```
pub async fn start_link<S: Server>(server: S) -> Result<ServerRef<S>, StartError> {
    ServerOptions::new().linked().start(server).await
}

impl ServerOptions {
    /// Default options: unlinked, unnamed, unbounded mailbox.
    pub fn new() -> Self {
        ServerOptions::default()
    }

    /// Registers the server under `name` before its `init` runs; released when it ends.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Links the server to the calling process, which becomes its parent.
    pub fn linked(mut self) -> Self {
        self.linked = true;
        self
    }

    /// Bounds the server's mailbox (see [`SpawnOptions::mailbox_bound`]); calls and casts
    /// are never refused by the bound, only [`Pid::send_async`](crate::Pid::send_async) and
    /// [`Pid::try_send`](crate::Pid::try_send) of its [`Envelope`]s wait or fail.
    pub fn mailbox_bound(mut self, capacity: usize) -> Self {
        self.bound = Some(capacity);
        self
    }

    /// Waits at most `limit` for `init` (Erlang's `{timeout, Time}` start option; the
    /// default waits forever, as `infinity`). If `init` has not finished in time, the
    /// server is unlinked from its parent and killed, and [`start`](Self::start) returns
    /// [`StartError::Timeout`]. An `init` that computes without ever awaiting cannot be
    /// killed before it awaits (cooperative scheduling), but the start still returns in
    /// time.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mote::server::{Context, Server, ServerOptions, StartError};
    ///
    /// struct Slow;
    /// impl Server for Slow {
    ///     type Call = ();
    ///     type Reply = ();
    ///     type Cast = ();
    ///     type Info = ();
    ///     async fn init(&mut self, _: &mut Context<Self>) -> Result<(), mote::ExitReason> {
    ///         mote::sleep(Duration::from_secs(60)).await;
    ///         Ok(())
    ///     }
    /// }
    ///
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let slow = ServerOptions::new().start_timeout(Duration::from_millis(10)).start(Slow);
    ///     assert_eq!(slow.await, Err(StartError::Timeout));
    /// })
    /// .unwrap();
    /// ```
    pub fn start_timeout(mut self, limit: Duration) -> Self {
        self.start_timeout = Some(limit);
        self
    }

    /// Records the process as `tag` instead of the server's own type (a dynamic
    /// supervisor, which is a supervisor's server with other rules).
    pub(crate) fn behaviour(mut self, tag: TypeId) -> Self {
        self.behaviour = Some(tag);
        self
    }

    /// Spawns the server and waits until its `init` has run.
    ///
    /// If `init` fails, the server unlinks from its parent before it ends, so the starter
    /// gets [`StartError::Init`] and no exit signal (as OTP 26's `init` returning
    /// `{error, Reason}`; with `{stop, Reason}` Erlang also sends the exit signal).
    pub async fn start<S: Server>(self, server: S) -> Result<ServerRef<S>, StartError> {
        if let Some(name) = &self.name {
            crate::process::registry::name_atom(name).map_err(StartError::Name)?;
        }
        let parent = if self.linked {
            Some(crate::self_id().ok_or(SpawnError::NotInProcess)?)
        } else {
            None
        };
        let mut spawn = SpawnOptions::new();
        if let Some(parent) = parent {
            spawn = spawn.link(parent);
        }
        if let Some(bound) = self.bound {
            spawn = spawn.mailbox_bound(bound);
        }
        let mut started: Waiter<Result<(), StartError>> = Waiter::new();
        let r = crate::rt::signals::new_ref();
        let ready = Arc::clone(started.completion());
        let name = self.name;
        let tag = self.behaviour.unwrap_or(TypeId::of::<Envelope<S>>());
        let pid = spawn
            .watched_by(r, started.completion().clone())
            .try_spawn(move |process: Process<Envelope<S>>| async move {
                let mut server = server;
                // Before `init`: what `init` starts may already look this server up by id.
                let _ = crate::rt::signals::with_live(process.id(), |_, s| {
                    s.behaviour = Some(tag);
                });
                let mut ctx = Context { process, parent };
                let failed = |ctx: &Context<S>, error: StartError| {
                    if let Some(parent) = parent {
                        ctx.process.unlink(parent);
                    }
                    let _ = ready.complete(Err(error));
                };
                if let Some(name) = name {
                    if let Err(e) = crate::process::registry::register(&name, ctx.process.pid()) {
                        let owner = match e {
                            crate::RegistryError::NameTaken { owner, .. } => owner,
                            _ => ProcessId::NONE,
                        };
                        failed(&ctx, StartError::AlreadyStarted(owner));
                        return ExitReason::Normal;
                    }
                }
                match server.init_full(&mut ctx).await.into_next() {
                    Ok(next) => {
                        let _ = ready.complete(Ok(()));
                        drop(ready);
                        serve(server, ctx, next).await
                    }
                    Err(Init::Ignore) => {
                        failed(&ctx, StartError::Ignored);
                        ExitReason::Normal
                    }
                    Err(Init::Stop(reason)) => {
                        failed(&ctx, StartError::Init(reason.clone()));
                        reason
                    }
                    Err(_) => unreachable!("into_next keeps only ignore and stop"),
                }
            })?;
        let _watch = ExitWatch::spawned(pid.id(), r);
        let limit = self.start_timeout.unwrap_or(Duration::MAX);
        let outcome = match crate::rt::timeout_wheel::timeout(limit, started.wait()).await {
            Ok(outcome) => outcome,
            Err(_) => {
                // As proc_lib does: unlink, kill, and report the timeout.
                if let Some(parent) = parent {
                    crate::rt::signals::unlink(parent, pid.id());
                }
                crate::process::exit_signal::exit(pid.id(), ExitReason::Kill);
                return Err(StartError::Timeout);
            }
        };
        match outcome {
            Ok(Ok(())) => Ok(ServerRef::from_pid(pid)),
            Ok(Err(e)) => Err(e),
            Err(reason) => Err(StartError::Init(reason)),
        }
    }
}
