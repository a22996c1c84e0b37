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
//! # Calls that cannot go wrong quietly
//!
//! A call either returns the reply or a [`CallError`] saying why not: the server is not alive
//! (`NoProc`, at once, without waiting for the timeout), it did not answer in time
//! (`Timeout`), it ended during the call (`Exit` with its exit reason, even `normal`), or the
//! handler dropped the [`ReplyTo`] without answering (`NoReply`). The reply never travels
//! through the caller's mailbox: it goes into a one-shot slot that the caller stops listening
//! to when it gives up, so a late reply is dropped, never left behind as a stray message
//! (what OTP 24's process aliases give `gen_server:call`, cases P27 to P29). The same is why
//! any code may call a server: a process of any message type, a tokio task, a test.
//!
//! # Lifecycle
//!
//! [`start`] (or [`ServerOptions`] for a name, a link to the caller, a bounded mailbox)
//! spawns the process and waits until [`Server::init`] has run, returning its error if it
//! failed. The server ends when a handler returns [`Next::Stop`], on [`ServerRef::stop`],
//! when its parent (the process that started it linked) exits and it traps exits, or when a
//! handler panics; in each of these cases [`Server::terminate`] runs first. An untrappable
//! kill, or an exit signal while not trapping, ends it without `terminate`, as on the BEAM.

mod context;
mod handle;
mod reply;
mod run;
mod start;

use std::future::Future;

pub use context::Context;
pub use handle::{CallError, ServerRef, StopError};
pub use reply::ReplyTo;
pub use run::Envelope;
pub use start::{start, start_link, ServerOptions, StartError};

use crate::values::exit::{Down, Exit, ExitReason};

/// What a server does after handling a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Wait for the next message.
    Continue,
    /// Run [`Server::terminate`] with this reason, then end with it.
    Stop(ExitReason),
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
    /// that reason and [`start`] returns it (as [`StartError::Init`]).
    fn init(
        &mut self,
        ctx: &mut Context<Self>,
    ) -> impl Future<Output = Result<(), ExitReason>> + Send {
        let _ = ctx;
        async { Ok(()) }
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
    /// [`Context::trap_exit`] gets them).
    ///
    /// The default is `gen_server`'s: an exit from the parent stops the server with the
    /// same reason (after [`Server::terminate`]); others are ignored.
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
