//! The server process: its mailbox type and its receive loop.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::task::Poll;

use super::reply::{NoReply, ReplyTo};
use super::request::TypedCall;
use super::{Context, Next, Server};
use crate::values::exit::{Down, Exit, ExitReason};

/// A message in a server's mailbox: a call, a cast, an info message, a system message.
///
/// Its contents are private; make one with [`Envelope::info`] to send an info message
/// through plain [`Pid`](crate::Pid) APIs (timers, the registry). `Exit` and `Down`
/// convert into it, so a server's process can trap exits and monitor.
///
/// ```
/// use std::time::Duration;
/// use mote::server::{self, Context, Envelope, Next, Server};
///
/// struct Logger(Vec<String>);
/// impl Server for Logger {
///     type Call = ();
///     type Reply = Vec<String>;
///     type Cast = ();
///     type Info = String;
///     async fn handle_call(&mut self, _: (), from: server::ReplyTo<Vec<String>>, _: &mut Context<Self>) -> Next {
///         from.reply(self.0.clone());
///         Next::Continue
///     }
///     async fn handle_info(&mut self, line: String, _: &mut Context<Self>) -> Next {
///         self.0.push(line);
///         Next::Continue
///     }
/// }
///
/// mote::run(|_p: mote::Process<()>| async move {
///     let logger = server::start(Logger(Vec::new())).await.unwrap();
///     mote::send_after(logger.pid(), Envelope::info("later".to_string()), Duration::from_millis(1));
///     let t = Duration::from_secs(5);
///     while logger.call((), t).await.unwrap().is_empty() {
///         mote::sleep(Duration::from_millis(1)).await;
///     }
///     assert_eq!(logger.call((), t).await.unwrap(), ["later"]);
/// })
/// .unwrap();
/// ```
pub struct Envelope<S: Server>(pub(super) Msg<S>);

pub(super) enum Msg<S: Server> {
    Call(S::Call, ReplyTo<S::Reply>),
    /// A typed request ([`Handles`](super::Handles)), its type erased.
    Typed(Box<dyn TypedCall<S>>),
    Cast(S::Cast),
    Info(S::Info),
    Exit(Exit),
    /// Boxed: the largest variant otherwise, and rare, while every call's envelope would
    /// pay for its size.
    Down(Box<Down>),
    Stop(ExitReason),
}

impl<S: Server> Envelope<S> {
    /// An info message for the server's [`Server::handle_info`].
    pub fn info(message: S::Info) -> Self {
        Envelope(Msg::Info(message))
    }
}

impl<S: Server> From<Exit> for Envelope<S> {
    fn from(exit: Exit) -> Self {
        Envelope(Msg::Exit(exit))
    }
}

impl<S: Server> From<Down> for Envelope<S> {
    fn from(down: Down) -> Self {
        Envelope(Msg::Down(Box::new(down)))
    }
}

impl<S: Server> std::fmt::Debug for Envelope<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.0 {
            Msg::Call(..) => "Call",
            Msg::Typed(_) => "Typed",
            Msg::Cast(_) => "Cast",
            Msg::Info(_) => "Info",
            Msg::Exit(_) => "Exit",
            Msg::Down(_) => "Down",
            Msg::Stop(_) => "Stop",
        };
        write!(f, "Envelope::{kind}")
    }
}

/// Runs `handle_call` for one call inside the enclosing `async` body, and says at once when
/// the handler dropped the reply handle unanswered and goes on. A macro, not an `async fn`:
/// the server loop takes calls in its own body (see `serve`), and a future of its own
/// would copy the request and its `ReplyTo` into its state again.
macro_rules! handle_call {
    ($server:expr, $ctx:expr, $request:expr, $from:expr) => {{
        let from = $from;
        let slot = from.slot.clone();
        let next = catching($server.handle_call($request, from, $ctx)).await;
        if let (Ok(n), Some(slot)) = (&next, slot) {
            // Dropped without a reply, and no exit will explain it: say so now.
            if !matches!(n, Next::Stop(_)) && slot.is_abandoned() {
                slot.no_value(Err(NoReply));
            }
        }
        next
    }};
}

/// Serves messages until a callback stops the server; returns the exit reason. `next` is
/// what `init` asked for (wait, a timeout, hibernate, continue).
///
/// A panic (or [`Process::exit`](crate::Process::exit)) in a callback is caught so that
/// [`Server::terminate`] runs, as `gen_server` does; the process then ends with the panic's
/// reason.
pub(super) async fn serve<S: Server>(mut server: S, mut ctx: Context<S>, next: Next) -> ExitReason {
    let mut next = next;
    loop {
        let handled = match next {
            // A call, the common message, is handled here rather than in `dispatch`: passed
            // to `dispatch`'s future, the envelope was copied into its state and out again
            // in loads that straddled narrower stores (stalled store-to-load forwards).
            Next::Continue => match ctx.process.recv().await {
                Envelope(Msg::Call(request, from)) => {
                    handle_call!(&mut server, &mut ctx, request, from)
                }
                Envelope(msg) => {
                    let mut handled = Ok(Next::Continue);
                    if dispatch(&mut server, &mut ctx, msg, &mut handled).await {
                        continue;
                    }
                    handled
                }
            },
            Next::Timeout(limit) => match ctx.process.recv_timeout(limit).await {
                Some(Envelope(msg)) => {
                    let mut handled = Ok(Next::Continue);
                    dispatch(&mut server, &mut ctx, msg, &mut handled).await;
                    handled
                }
                None => catching(server.handle_timeout(&mut ctx)).await,
            },
            Next::Hibernate => {
                ctx.process.release_spare_memory();
                let Envelope(msg) = ctx.process.recv().await;
                let mut handled = Ok(Next::Continue);
                dispatch(&mut server, &mut ctx, msg, &mut handled).await;
                handled
            }
            Next::ContinueWith(term) => catching(server.handle_continue(term, &mut ctx)).await,
            Next::Stop(reason) => Ok(Next::Stop(reason)),
        };
        let reason = match handled {
            Ok(Next::Stop(reason)) => reason,
            Ok(then) => {
                next = then;
                continue;
            }
            Err(reason) => reason,
        };
        // An exit signal it does not trap (one it sent itself, caught by `catching`) ends
        // the process without `terminate`, as on the BEAM.
        if ctx.process.is_exit_pending() {
            return reason;
        }
        // A panic in `terminate` ends the process with that panic's reason instead.
        let _ = catching(server.terminate(&reason, &mut ctx)).await;
        return reason;
    }
}

/// Handles one message with its callback: true if the answer is [`Next::Continue`], else
/// false with the answer, or the reason the callback ended the process, in `out`.
///
/// The common answer comes back as a flag: returned whole, the callback's result was
/// copied into the loop's state with wide loads of a value just stored in narrower pieces
/// (a stalled store-to-load forward on every message, the hottest instruction of the
/// server's loop in `call`).
async fn dispatch<S: Server>(
    server: &mut S,
    ctx: &mut Context<S>,
    msg: Msg<S>,
    out: &mut Result<Next, ExitReason>,
) -> bool {
    let handled = match msg {
        Msg::Call(request, from) => handle_call!(server, ctx, request, from),
        Msg::Typed(call) => catching(call.run(server, ctx)).await,
        Msg::Cast(message) => catching(server.handle_cast(message, ctx)).await,
        Msg::Info(message) => catching(server.handle_info(message, ctx)).await,
        // The parent's exit stops the server whatever `handle_exit` would do (gen_server
        // handles `{'EXIT', Parent, Reason}` in its loop, never in a callback).
        Msg::Exit(exit) if Some(exit.from) == ctx.parent() => Ok(Next::Stop(exit.reason)),
        Msg::Exit(exit) => catching(server.handle_exit(exit, ctx)).await,
        Msg::Down(down) => catching(server.handle_down(*down, ctx)).await,
        Msg::Stop(reason) => Ok(Next::Stop(reason)),
    };
    if let Ok(Next::Continue) = handled {
        return true;
    }
    *out = handled;
    false
}

/// Polls `future`, turning a panic (or `Process::exit`) into the reason it ends the
/// process with.
///
/// A future of its own rather than an `async fn` around a `poll_fn`: that moved the
/// callback's future twice (into the `async fn`'s state, then into its pinned local)
/// before its first poll, on every message; built in place, it is moved at most once.
fn catching<F: Future>(future: F) -> Catching<F> {
    Catching { future }
}

pin_project_lite::pin_project! {
    /// The future [`catching`] returns.
    struct Catching<F> {
        #[pin]
        future: F,
    }
}

impl<F: Future> Future for Catching<F> {
    type Output = Result<F::Output, ExitReason>;

    // Always: out of line, its `Result` came back through the stack and was read back in
    // wide loads (a stalled store-to-load forward on every message).
    #[inline(always)]
    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<Self::Output> {
        let future = self.project().future;
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(Poll::Ready(out)) => Poll::Ready(Ok(out)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(crate::rt::runner::reason_of(payload))),
        }
    }
}
