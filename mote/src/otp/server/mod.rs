//! Servers: Erlang's `gen_server`, typed.
//!
//! A server is a process that owns a state and serves requests one at a time. You write the
//! state as a type implementing [`Server`]; mote writes the receive loop. Requests come as
//! *calls* ([`ServerRef::call`]: the caller waits for a typed reply), *casts*
//! ([`ServerRef::cast`]: fire and forget) and *info* messages (anything else: timers, plain
//! sends, and the [`Exit`]/[`Down`] system messages, which have callbacks of their own).
//!
//! ```
//! use std::time::Duration;
//! use mote::server::{self, Context, Next, ReplyTo, Server};
//!
//! struct Counter(u64);
//!
//! enum Call { Get, Add(u64) }
//!
//! impl Server for Counter {
//!     type Call = Call;
//!     type Reply = u64;
//!     type Cast = u64;
//!     type Info = ();
//!
//!     async fn handle_call(&mut self, call: Call, from: ReplyTo<u64>, _ctx: &mut Context<Self>) -> Next {
//!         match call {
//!             Call::Get => from.reply(self.0),
//!             Call::Add(n) => { self.0 += n; from.reply(self.0) }
//!         }
//!         Next::Continue
//!     }
//!
//!     async fn handle_cast(&mut self, n: u64, _ctx: &mut Context<Self>) -> Next {
//!         self.0 += n;
//!         Next::Continue
//!     }
//! }
//!
//! mote::run(|_p: mote::Process<()>| async move {
//!     let counter = server::start(Counter(0)).await.unwrap();
//!     counter.cast(2);
//!     let t = Duration::from_secs(1);
//!     assert_eq!(counter.call(Call::Add(40), t).await, Ok(42));
//!     assert_eq!(counter.call(Call::Get, t).await, Ok(42));
//!     counter.stop(mote::ExitReason::Normal, t).await.unwrap();
//! })
//! .unwrap();
//! ```
//!
//! # Typed requests
//!
//! Besides its one `Call` type, a server may take any number of request types, each with
//! its own reply type: implement [`Request`] for the request (its `Reply`) and
//! [`Handles<R>`](Handles) for the server, then [`call`] (or [`ServerRef::request`]) returns
//! that reply type. No reply enum, no `unreachable!` arms. See [`Handles`].
//!
//! # Calls that cannot go wrong quietly
//!
//! A call either returns the reply or a [`CallError`] saying why not: the server is not alive
//! (`NoProc`, at once, without waiting for the timeout), it did not answer in time
//! (`Timeout`), it ended during the call (`Exit` with its exit reason, even `normal`), or the
//! handler dropped the [`ReplyTo`] without answering (`NoReply`). The reply never travels
//! through the caller's mailbox: it goes into a one-shot slot that the caller stops listening
//! to when it gives up, so a late reply is dropped, never left behind as a stray message
//! (what OTP 24's process aliases give `gen_server:call`). The same is why
//! any code may call a server: a process of any message type, a tokio task, a test.
//!
//! # Lifecycle
//!
//! [`start`] (or [`ServerOptions`] for a name, a link to the caller, a bounded mailbox, a
//! start timeout) spawns the process and waits until [`Server::init`] (or
//! [`Server::init_full`], which may also answer ignore, a timeout, hibernate or continue:
//! [`Init`]) has run, returning its error if it failed. The server ends when a handler
//! returns [`Next::Stop`], on [`ServerRef::stop`], when its parent (the process that started
//! it linked) exits and it traps exits (handled by the server loop, as `gen_server` does),
//! or when a handler panics; in each of these cases [`Server::terminate`] runs first, and
//! [`ServerRef::stop`] returns once it has run and the process has ended. An untrappable
//! kill, or an exit signal while not trapping, ends it without `terminate`, as on the BEAM.
//!
//! # Deviations from `gen_server`
//!
//! * A call's reply is sent when the handler calls [`ReplyTo::reply`]. So a handler that
//!   replies and then answers [`Next::Stop`] replies *before* `terminate` runs, where
//!   `gen_server`'s `{stop, Reason, Reply, State}` runs `terminate` first. For OTP's order,
//!   keep the `ReplyTo` in the state and reply from [`Server::terminate`].
//! * A [`Next::Timeout`] that runs out calls [`Server::handle_timeout`], not `handle_info`
//!   with the atom `timeout` (info messages are typed).
//! * [`Next::Hibernate`] releases what a mote process has spare (its receive buffer); the
//!   BEAM also compacts the heap and drops the stack, which a mote process does not have.
//! * The continue term of [`Next::ContinueWith`] is a [`Term`](crate::term::Term), not a
//!   type of the server's own (a new associated type would break every existing server).
//! * A server is addressed by pid ([`ServerRef`]) and by local name ([`call_named`],
//!   [`cast_named`]). `{Name, Node}` and servers of other nodes need the `dist` feature
//!   and a distribution layer (`mote-dist`): `ServerRef::named_on`, or a `ServerRef`
//!   received in a message; calls, casts, info messages and `stop` through such a
//!   reference speak the `gen_server` protocol (so it may be an Erlang `gen_server`).

mod context;
mod handle;
#[cfg(feature = "dist")]
mod remote;
mod reply;
mod request;
mod run;
mod start;

use std::future::Future;

pub use context::Context;
pub use handle::{call_named, cast_named, CallError, ServerRef, StopError};
pub use reply::ReplyTo;
pub use request::{call, Handles, Request, DEFAULT_CALL_TIMEOUT};

/// Derives [`Request`](trait@Request) with the reply type named by `#[reply(Type)]`.
///
/// ```
/// use mote::server::{self, Context, Handles, Request, Server};
///
/// #[derive(Request)]
/// #[reply(Option<String>)]
/// struct GetUser(u64);
///
/// struct Users;
/// impl Server for Users { type Call = (); type Reply = (); type Cast = (); type Info = (); }
/// impl Handles<GetUser> for Users {
///     async fn handle(&mut self, GetUser(id): GetUser, _: &mut Context<Self>) -> Option<String> {
///         (id == 1).then(|| "ada".to_string())
///     }
/// }
///
/// mote::run(|_p: mote::Process<()>| async move {
///     let users = server::start(Users).await.unwrap();
///     assert_eq!(server::call(&users, GetUser(1)).await, Ok(Some("ada".to_string())));
/// })
/// .unwrap();
/// ```
pub use mote_macros::Request;
pub use run::Envelope;
pub use start::{start, start_link, ServerOptions, StartError};

use std::time::Duration;

use crate::values::exit::{Down, Exit, ExitReason};
use crate::values::term::Term;

/// What a server does after handling a message (the tail of `gen_server`'s
/// `{noreply, State, ...}` and `{reply, Reply, State, ...}` results).
///
/// ```
/// use std::time::Duration;
/// use mote::server::Next;
/// use mote::term::Term;
///
/// let after = [
///     Next::Continue,                                // {noreply, S}
///     Next::Timeout(Duration::from_millis(50)),      // {noreply, S, 50}
///     Next::Hibernate,                               // {noreply, S, hibernate}
///     Next::ContinueWith(Term::atom("load")),        // {noreply, S, {continue, load}}
///     Next::Stop(mote::ExitReason::Normal),          // {stop, normal, S}
/// ];
/// assert_eq!(after.len(), 5);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Wait for the next message.
    Continue,
    /// Wait for the next message, at most this long: if none (of any kind) arrives in
    /// time, [`Server::handle_timeout`] runs. Any message cancels the timeout. Erlang's
    /// `{noreply, State, Timeout}`; [`Duration::MAX`] is `infinity`.
    Timeout(Duration),
    /// Wait for the next message after releasing the server's spare memory (Erlang's
    /// `hibernate`). What mote can release is the process's own receive buffer (the list
    /// of messages a selective receive skipped): it is freed when empty, else shrunk to
    /// its contents. The server's state belongs to the callbacks: shrink its buffers
    /// (`shrink_to_fit`) before answering `Hibernate`. Deviation: the BEAM also
    /// compacts the process's heap and drops its stack; a mote process has neither.
    Hibernate,
    /// Run [`Server::handle_continue`] with this term before taking the next message
    /// (Erlang's `{continue, Term}`).
    ContinueWith(Term),
    /// Run [`Server::terminate`] with this reason, then end with it.
    Stop(ExitReason),
}

/// What [`Server::init_full`] answers: Erlang's `init/1` results.
///
/// `Result<(), ExitReason>` (what [`Server::init`] answers) converts into it: `Ok(())` is
/// [`Init::Ok`], `Err(reason)` is [`Init::Stop`].
///
/// ```
/// use mote::server::Init;
/// assert_eq!(Init::from(Ok(())), Init::Ok);
/// assert_eq!(Init::from(Err(mote::ExitReason::custom("bad"))), Init::Stop(mote::ExitReason::custom("bad")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Init {
    /// Started (`{ok, State}`): the server waits for its first message.
    Ok,
    /// Started, and the first message is awaited at most this long
    /// (`{ok, State, Timeout}`; see [`Next::Timeout`]).
    Timeout(Duration),
    /// Started, and hibernates at once (`{ok, State, hibernate}`; see [`Next::Hibernate`]).
    Hibernate,
    /// Started, and runs [`Server::handle_continue`] with this term before any message
    /// (`{ok, State, {continue, Term}}`). The starter has its answer before then.
    ContinueWith(Term),
    /// Not started, without error (`ignore`): the process ends with `normal` and the
    /// starter gets [`StartError::Ignored`]; a supervisor keeps such a child, with no
    /// process.
    Ignore,
    /// Not started (`{stop, Reason}`): the process ends with `reason` and the starter gets
    /// [`StartError::Init`] with it.
    Stop(ExitReason),
}

impl From<Result<(), ExitReason>> for Init {
    fn from(result: Result<(), ExitReason>) -> Self {
        match result {
            Ok(()) => Init::Ok,
            Err(reason) => Init::Stop(reason),
        }
    }
}

impl Init {
    /// What the server does once started, or `Err` with the start's outcome.
    pub(crate) fn into_next(self) -> Result<Next, Init> {
        match self {
            Init::Ok => Ok(Next::Continue),
            Init::Timeout(t) => Ok(Next::Timeout(t)),
            Init::Hibernate => Ok(Next::Hibernate),
            Init::ContinueWith(t) => Ok(Next::ContinueWith(t)),
            other => Err(other),
        }
    }
}

/// The callbacks of a server process (Erlang's `gen_server` behaviour); the implementing
/// type is the server's state.
///
/// Every callback is async and may await anything (tokio IO, other calls, timers); the
/// server handles the next message only when the callback is done. Implement the callbacks
/// with `async fn`; their futures must be `Send`. Only [`Server::handle_call`] is needed
/// by a server that takes calls; the others have defaults.
///
/// See the [module docs](self) for an example.
pub trait Server: Sized + Send + 'static {
    /// The requests of [`ServerRef::call`].
    type Call: Send + 'static;
    /// The replies to calls.
    type Reply: Send + 'static;
    /// The messages of [`ServerRef::cast`].
    type Cast: Send + 'static;
    /// Other messages: [`ServerRef::info`], timers from [`Context::send_after`].
    type Info: Send + 'static;

    /// Runs in the new process before [`start`] returns; an error ends the process with
    /// that reason and [`start`] returns it (as [`StartError::Init`]). For Erlang's other
    /// answers (ignore, a timeout, hibernate, continue) implement [`Server::init_full`]
    /// instead.
    fn init(
        &mut self,
        ctx: &mut Context<Self>,
    ) -> impl Future<Output = Result<(), ExitReason>> + Send {
        let _ = ctx;
        async { Ok(()) }
    }

    /// Erlang's `init/1` with every answer it may give ([`Init`]): what the server runs
    /// before [`start`] returns. The default runs [`Server::init`] and converts its
    /// answer; implement one of the two.
    ///
    /// ```
    /// use mote::server::{self, Context, Init, Next, Server, StartError};
    /// use mote::term::Term;
    ///
    /// struct Lazy { loaded: bool, enabled: bool }
    /// impl Server for Lazy {
    ///     type Call = ();
    ///     type Reply = bool;
    ///     type Cast = ();
    ///     type Info = ();
    ///     async fn init_full(&mut self, _: &mut Context<Self>) -> Init {
    ///         if !self.enabled {
    ///             return Init::Ignore;
    ///         }
    ///         // Answer the starter now, load before the first message.
    ///         Init::ContinueWith(Term::atom("load"))
    ///     }
    ///     async fn handle_continue(&mut self, _: Term, _: &mut Context<Self>) -> Next {
    ///         self.loaded = true;
    ///         Next::Continue
    ///     }
    ///     async fn handle_call(&mut self, _: (), from: server::ReplyTo<bool>, _: &mut Context<Self>) -> Next {
    ///         from.reply(self.loaded);
    ///         Next::Continue
    ///     }
    /// }
    ///
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let off = server::start(Lazy { loaded: false, enabled: false }).await;
    ///     assert_eq!(off, Err(StartError::Ignored));
    ///     let on = server::start(Lazy { loaded: false, enabled: true }).await.unwrap();
    ///     assert_eq!(on.call((), std::time::Duration::from_secs(5)).await, Ok(true));
    /// })
    /// .unwrap();
    /// ```
    fn init_full(&mut self, ctx: &mut Context<Self>) -> impl Future<Output = Init> + Send {
        let init = self.init(ctx);
        async move { Init::from(init.await) }
    }

    /// Runs when a callback answered [`Next::ContinueWith`] (or `init` answered
    /// [`Init::ContinueWith`]), before the next message (Erlang's `handle_continue/2`).
    /// The default does nothing.
    fn handle_continue(
        &mut self,
        continue_with: Term,
        ctx: &mut Context<Self>,
    ) -> impl Future<Output = Next> + Send {
        let _ = (continue_with, ctx);
        async { Next::Continue }
    }

    /// Runs when a [`Next::Timeout`] (or [`Init::Timeout`]) ran out with no message.
    /// Deviation: Erlang sends the atom `timeout` to `handle_info`; a mote server's info
    /// messages have a type of their own, which need not have such a value, so the timeout
    /// has a callback of its own. The default does nothing.
    fn handle_timeout(&mut self, ctx: &mut Context<Self>) -> impl Future<Output = Next> + Send {
        let _ = ctx;
        async { Next::Continue }
    }

    /// Handles a call. Answer with [`ReplyTo::reply`], now or later: `from` may be kept in
    /// the state and answered while handling another message (Erlang's `noreply` and
    /// `gen_server:reply`).
    ///
    /// The default drops `from`: the caller gets [`CallError::NoReply`].
    fn handle_call(
        &mut self,
        request: Self::Call,
        from: ReplyTo<Self::Reply>,
        ctx: &mut Context<Self>,
    ) -> impl Future<Output = Next> + Send {
        let _ = (request, from, ctx);
        async { Next::Continue }
    }

    /// Handles a cast. The default ignores it.
    fn handle_cast(
        &mut self,
        message: Self::Cast,
        ctx: &mut Context<Self>,
    ) -> impl Future<Output = Next> + Send {
        let _ = (message, ctx);
        async { Next::Continue }
    }

    /// Handles an info message. The default ignores it.
    fn handle_info(
        &mut self,
        message: Self::Info,
        ctx: &mut Context<Self>,
    ) -> impl Future<Output = Next> + Send {
        let _ = (message, ctx);
        async { Next::Continue }
    }

    /// Handles a trapped exit signal (only a server that called
    /// [`Context::trap_exit`] gets them), except its parent's: as in `gen_server`, the
    /// server loop itself stops the server with the parent's reason (after
    /// [`Server::terminate`]) without calling this. The default ignores the others.
    fn handle_exit(
        &mut self,
        exit: Exit,
        ctx: &mut Context<Self>,
    ) -> impl Future<Output = Next> + Send {
        let next = if Some(exit.from) == ctx.parent() {
            Next::Stop(exit.reason)
        } else {
            Next::Continue
        };
        async { next }
    }

    /// Handles a [`Down`] of a monitor made with [`Context::monitor`]. The default ignores
    /// it.
    fn handle_down(
        &mut self,
        down: Down,
        ctx: &mut Context<Self>,
    ) -> impl Future<Output = Next> + Send {
        let _ = (down, ctx);
        async { Next::Continue }
    }

    /// Runs when the server stops for any reason but an untrappable kill or an exit signal
    /// it does not trap: a [`Next::Stop`], [`ServerRef::stop`], its parent's exit (when
    /// trapping) or a panic in a handler. The default does nothing.
    fn terminate(
        &mut self,
        reason: &ExitReason,
        ctx: &mut Context<Self>,
    ) -> impl Future<Output = ()> + Send {
        let _ = (reason, ctx);
        async {}
    }
}
