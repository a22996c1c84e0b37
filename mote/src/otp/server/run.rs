//! The server process: its mailbox type and its receive loop.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::Poll;

use super::reply::{NoReply, ReplyTo};
use super::request::TypedCall;
use super::{Context, Next, Server};
use crate::rt::completion::Completion;
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
            Next::Continue => {
                let Envelope(msg) = ctx.process.recv().await;
                dispatch(&mut server, &mut ctx, msg).await
            }
            Next::Timeout(limit) => match ctx.process.recv_timeout(limit).await {
                Some(Envelope(msg)) => dispatch(&mut server, &mut ctx, msg).await,
                None => catching(server.handle_timeout(&mut ctx)).await,
            },
            Next::Hibernate => {
                ctx.process.release_spare_memory();
                let Envelope(msg) = ctx.process.recv().await;
                dispatch(&mut server, &mut ctx, msg).await
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

/// Handles one message with its callback.
async fn dispatch<S: Server>(
    server: &mut S,
    ctx: &mut Context<S>,
    msg: Msg<S>,
) -> Result<Next, ExitReason> {
    match msg {
        Msg::Call(request, from) => {
            // The slot's address only, not a counted reference (see `reply::handling`).
            let Some(slot) = from.slot.as_ref().map(|s| Arc::as_ptr(s) as usize) else {
                return catching(server.handle_call(request, from, ctx)).await;
            };
            let me = ctx.process.id();
            let (next, replied) = catching_call(server.handle_call(request, from, ctx), slot).await;
            if let (Ok(n), false) = (&next, replied) {
                if !matches!(n, Next::Stop(_)) {
                    no_reply_if_abandoned::<S::Reply>(me, slot);
                }
            }
            next
        }
        Msg::Typed(call) => catching(call.run(server, ctx)).await,
        Msg::Cast(message) => catching(server.handle_cast(message, ctx)).await,
        Msg::Info(message) => catching(server.handle_info(message, ctx)).await,
        // The parent's exit stops the server whatever `handle_exit` would do (gen_server
        // handles `{'EXIT', Parent, Reason}` in its loop, never in a callback).
        Msg::Exit(exit) if Some(exit.from) == ctx.parent() => Ok(Next::Stop(exit.reason)),
        Msg::Exit(exit) => catching(server.handle_exit(exit, ctx)).await,
        Msg::Down(down) => catching(server.handle_down(*down, ctx)).await,
        Msg::Stop(reason) => Ok(Next::Stop(reason)),
    }
}

/// After a handler that returned without stopping and without replying to its call on the
/// loop's thread: if the call's `ReplyTo` was dropped unanswered (by the handler, or by
/// anyone it was handed to, before the handler returned), and no outcome has come, the call
/// fails with `NoReply` now, since no exit will explain it.
///
/// The loop holds no reference to the slot, whose caller may have taken a reply and freed
/// or reused it. But a `ReplyTo` dropped unanswered first puts a watch on its server (this
/// process) holding the slot, and the watch stays until an outcome comes or the caller
/// gives up: so a slot still abandoned is among this process's watchers, where it is found
/// (and held) by its address. No other call's slot can be at that address there: a slot is
/// watched here only once its call reached this server, and calls reach it one at a time, so
/// any other slot watched here came earlier and was alive, at another address, all along.
#[cold]
#[inline(never)]
fn no_reply_if_abandoned<R: Send + 'static>(me: crate::ProcessId, slot: usize) {
    let Some(listener) = crate::rt::signals::listener_at(me, slot as *const ()) else {
        return;
    };
    let Some(slot) = listener
        .into_any()
        .and_then(|l| l.downcast::<Completion<Result<R, NoReply>>>().ok())
    else {
        return;
    };
    // Dropped without a reply, and no exit will explain it: say so now.
    if slot.is_abandoned() {
        slot.no_value(Err(NoReply));
    }
}

/// [`catching`] for a call's handler: also says whether it replied to its call (the reply
/// slot at address `slot`) on the loop's thread, in one of its polls (see `reply::handling`).
async fn catching_call<F: Future>(future: F, slot: usize) -> (Result<F::Output, ExitReason>, bool) {
    let mut future = std::pin::pin!(future);
    let mut replied = false;
    std::future::poll_fn(move |cx| {
        let (polled, now) = super::reply::handling(slot, || {
            std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx)))
        });
        replied |= now;
        match polled {
            Ok(Poll::Ready(out)) => Poll::Ready((Ok(out), replied)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready((Err(crate::rt::runner::reason_of(payload)), replied)),
        }
    })
    .await
}

/// Polls `future`, turning a panic (or `Process::exit`) into the reason it ends the
/// process with.
async fn catching<F: Future>(future: F) -> Result<F::Output, ExitReason> {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(move |cx| {
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(out)) => Poll::Ready(Ok(out)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(crate::rt::runner::reason_of(payload))),
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::otp::server::{CallError, ReplyTo};

    /// What the handler does with its call's `ReplyTo`.
    #[derive(Clone, Copy)]
    enum Fate {
        /// Replies with the number of references to the reply slot it sees.
        CountReferences,
        /// Hands it to another process, which drops it, and waits until it has.
        DroppedByAnotherProcess,
        /// Replies from a thread it joins.
        RepliedOnAnotherThread,
        /// Drops it on a thread it joins.
        DroppedOnAnotherThread,
    }

    struct Fates;

    impl Server for Fates {
        type Call = Fate;
        type Reply = usize;
        type Cast = ();
        type Info = ();

        async fn handle_call(
            &mut self,
            fate: Fate,
            from: ReplyTo<usize>,
            _: &mut Context<Self>,
        ) -> Next {
            match fate {
                Fate::CountReferences => {
                    let n = from.slot.as_ref().map_or(0, Arc::strong_count);
                    from.reply(n);
                }
                Fate::DroppedByAnotherProcess => {
                    let (done, dropped) = tokio::sync::oneshot::channel();
                    crate::spawn(move |_p: crate::Process<()>| async move {
                        drop(from);
                        let _ = done.send(());
                    });
                    let _ = dropped.await;
                }
                Fate::RepliedOnAnotherThread => {
                    std::thread::scope(|s| {
                        s.spawn(move || from.reply(7));
                    });
                }
                Fate::DroppedOnAnotherThread => {
                    std::thread::scope(|s| {
                        s.spawn(move || drop(from));
                    });
                }
            }
            Next::Continue
        }
    }

    /// The loop holds no reference of its own to the slot of a call its handler replies to:
    /// the caller's and the `ReplyTo`'s are all there are (the loop used to clone one for
    /// the handler's length).
    #[test]
    fn the_loop_takes_no_reference_to_a_call_its_handler_replies_to() {
        crate::run(|_p: crate::Process<()>| async move {
            let s = crate::otp::server::start(Fates).await.unwrap();
            let t = Duration::from_secs(5);
            for _ in 0..3 {
                assert_eq!(s.call(Fate::CountReferences, t).await, Ok(2));
            }
        })
        .unwrap();
    }

    /// A `ReplyTo` dropped unanswered before its handler returns fails the call at once with
    /// `NoReply`, wherever it was dropped: in another process the handler waited for, on a
    /// thread it joined; one replied on a thread is a reply.
    #[test]
    fn a_reply_handle_dropped_elsewhere_before_the_handler_returns_is_no_reply() {
        crate::run(|_p: crate::Process<()>| async move {
            let s = crate::otp::server::start(Fates).await.unwrap();
            // A timeout here means `NoReply` never came.
            let t = Duration::from_secs(10);
            for _ in 0..3 {
                assert_eq!(
                    s.call(Fate::DroppedByAnotherProcess, t).await,
                    Err(CallError::NoReply)
                );
                assert_eq!(
                    s.call(Fate::DroppedOnAnotherThread, t).await,
                    Err(CallError::NoReply)
                );
                assert_eq!(s.call(Fate::RepliedOnAnotherThread, t).await, Ok(7));
            }
            // No watch left behind by the calls that went unanswered.
            let watchers = crate::rt::signals::peek_live(s.id(), |_, x| {
                x.as_ref().map_or(0, |x| x.watchers.len())
            });
            assert_eq!(watchers, Some(0));
            assert_eq!(s.call(Fate::CountReferences, t).await, Ok(2));
        })
        .unwrap();
    }
}
