//! Agents: a process that holds a state, read and changed through closures (Elixir's
//! `Agent`).
//!
//! Each operation sends a closure to the agent's process, which runs it on the state. The
//! closure is *moved* there, with its captures, never copied (Elixir copies the closure and
//! everything it captures into the agent's heap, then copies the result back); the result
//! is moved back. Keep the closures short: the agent runs one at a time.
//!
//! ```
//! use std::time::Duration;
//! use mote::agent::Agent;
//!
//! mote::run(|_p: mote::Process<()>| async move {
//!     let t = Duration::from_secs(1);
//!     let counter = Agent::start(|| 0u64).await.unwrap();
//!     counter.update(|n| *n += 1, t).await.unwrap();
//!     counter.cast(|n| *n += 10);
//!     assert_eq!(counter.get(|n| *n, t).await, Ok(11));
//!     let before = counter.get_and_update(|n| std::mem::replace(n, 0), t).await;
//!     assert_eq!(before, Ok(11));
//!     assert_eq!(counter.get(|n| *n, t).await, Ok(0));
//!     counter.stop(mote::ExitReason::Normal, t).await.unwrap();
//! })
//! .unwrap();
//! ```

use std::any::Any;
use std::time::Duration;

use crate::otp::server::{
    CallError, Context, Next, ReplyTo, Server, ServerOptions, ServerRef, StartError, StopError,
};
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

type Op<S> = Box<dyn FnOnce(&mut S) -> Box<dyn Any + Send> + Send>;
type Cast<S> = Box<dyn FnOnce(&mut S) + Send>;

/// Boxes `f` as an operation whose result travels back type-erased.
fn op<S, R: Send + 'static>(f: impl FnOnce(&mut S) -> R + Send + 'static) -> Op<S> {
    Box::new(move |s: &mut S| Box::new(f(s)) as Box<dyn Any + Send>)
}

/// The agent's process: its state and the closures that act on it.
struct Holder<S, I> {
    state: Option<S>,
    init: Option<I>,
}

impl<S, I> Server for Holder<S, I>
where
    S: Send + 'static,
    I: FnOnce() -> S + Send + 'static,
{
    type Call = Op<S>;
    type Reply = Box<dyn Any + Send>;
    type Cast = Cast<S>;
    type Info = ();

    async fn init(&mut self, _ctx: &mut Context<Self>) -> Result<(), ExitReason> {
        let init = self.init.take().expect("init runs once");
        self.state = Some(init());
        Ok(())
    }

    async fn handle_call(
        &mut self,
        op: Op<S>,
        from: ReplyTo<Box<dyn Any + Send>>,
        _ctx: &mut Context<Self>,
    ) -> Next {
        from.reply(op(self.state.as_mut().expect("set by init")));
        Next::Continue
    }

    async fn handle_cast(&mut self, op: Cast<S>, _ctx: &mut Context<Self>) -> Next {
        op(self.state.as_mut().expect("set by init"));
        Next::Continue
    }
}

/// A process holding a state of type `S`. `Copy`, like a pid: hand it to any process.
///
/// See the [module docs](self) for an example.
pub struct Agent<S: Send + 'static> {
    server: ServerRef<Holder<S, Box<dyn FnOnce() -> S + Send>>>,
}

impl<S: Send + 'static> Agent<S> {
    /// Starts an unlinked agent whose state is made by `init`, in the agent's process.
    pub async fn start(init: impl FnOnce() -> S + Send + 'static) -> Result<Self, StartError> {
        Self::start_with(ServerOptions::new(), init).await
    }

    /// Starts an agent linked to the calling process.
    pub async fn start_link(init: impl FnOnce() -> S + Send + 'static) -> Result<Self, StartError> {
        Self::start_with(ServerOptions::new().linked(), init).await
    }

    /// Starts an agent with the given options (a name, a link).
    ///
    /// ```
    /// use mote::agent::Agent;
    /// use mote::server::ServerOptions;
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let config = Agent::start_with(ServerOptions::new().name("config"), || vec!["debug"]).await.unwrap();
    ///     assert_eq!(mote::whereis("config"), Some(config.id()));
    /// })
    /// .unwrap();
    /// ```
    pub async fn start_with(
        options: ServerOptions,
        init: impl FnOnce() -> S + Send + 'static,
    ) -> Result<Self, StartError> {
        let holder = Holder {
            state: None,
            init: Some(Box::new(init) as Box<dyn FnOnce() -> S + Send>),
        };
        let server = options.start(holder).await?;
        Ok(Agent { server })
    }

    /// The agent's process id.
    pub fn id(&self) -> ProcessId {
        self.server.id()
    }

    /// Runs `f` on the state in the agent and returns its result.
    pub async fn get<R: Send + 'static>(
        self,
        f: impl FnOnce(&S) -> R + Send + 'static,
        timeout: Duration,
    ) -> Result<R, CallError> {
        self.get_and_update(move |s: &mut S| f(s), timeout).await
    }

    /// Runs `f` on the state in the agent, which may change it, and returns its result.
    pub async fn get_and_update<R: Send + 'static>(
        self,
        f: impl FnOnce(&mut S) -> R + Send + 'static,
        timeout: Duration,
    ) -> Result<R, CallError> {
        let reply = self.server.call(op(f), timeout).await?;
        Ok(*reply
            .downcast::<R>()
            .expect("the agent returns what the closure made"))
    }

    /// Changes the state with `f` and waits until it is done.
    pub async fn update(
        self,
        f: impl FnOnce(&mut S) + Send + 'static,
        timeout: Duration,
    ) -> Result<(), CallError> {
        self.get_and_update(f, timeout).await
    }

    /// Changes the state with `f`, without waiting (dropped if the agent is not alive).
    pub fn cast(&self, f: impl FnOnce(&mut S) + Send + 'static) {
        self.server.cast(Box::new(f));
    }

    /// Stops the agent and waits until it has ended.
    pub async fn stop(self, reason: ExitReason, timeout: Duration) -> Result<(), StopError> {
        self.server.stop(reason, timeout).await
    }
}

impl<S: Send + 'static> Clone for Agent<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Send + 'static> Copy for Agent<S> {}

impl<S: Send + 'static> std::fmt::Debug for Agent<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Agent({})", self.id())
    }
}

impl<S: Send + 'static> From<Agent<S>> for ProcessId {
    fn from(a: Agent<S>) -> ProcessId {
        a.id()
    }
}
