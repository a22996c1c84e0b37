//! [`ReplyTo`]: the answer slot of one call (Erlang's `From`).

use std::sync::Arc;

use crate::rt::completion::Completion;
use crate::values::pid::ProcessId;

/// The caller's answer slot, given to [`Server::handle_call`](super::Server::handle_call).
///
/// Answer with [`ReplyTo::reply`], from the handler or later (keep it in the state and reply
/// while handling another message: a deferred reply). If the caller has already given up
/// (timed out), the reply is dropped: it never turns up anywhere.
///
/// Dropping a `ReplyTo` without replying, in a handler that returns [`Next::Continue`](super::Next),
/// fails the call at once with [`CallError::NoReply`](super::CallError::NoReply). Deviation
/// from Erlang, where the caller waits for its timeout: a reply that can no longer come is
/// reported when it is known. If the server stops instead, the caller gets the exit reason.
///
/// ```
/// use std::time::Duration;
/// use mote::server::{self, Context, Next, ReplyTo, Server};
///
/// /// Answers each `Wait` only when a `Release` comes: a deferred reply.
/// #[derive(Default)]
/// struct Gate { waiting: Vec<ReplyTo<&'static str>> }
///
/// enum Call { Wait, Release }
///
/// impl Server for Gate {
///     type Call = Call;
///     type Reply = &'static str;
///     type Cast = ();
///     type Info = ();
///
///     async fn handle_call(&mut self, call: Call, from: ReplyTo<&'static str>, _ctx: &mut Context<Self>) -> Next {
///         match call {
///             Call::Wait => self.waiting.push(from),
///             Call::Release => {
///                 for waiter in self.waiting.drain(..) {
///                     waiter.reply("open");
///                 }
///                 from.reply("released");
///             }
///         }
///         Next::Continue
///     }
/// }
///
/// mote::run(|_p: mote::Process<()>| async move {
///     let gate = server::start(Gate::default()).await.unwrap();
///     let t = Duration::from_secs(1);
///     let waiter = mote::spawn(move |_w: mote::Process<()>| async move {
///         assert_eq!(gate.call(Call::Wait, t).await, Ok("open"));
///     });
///     while gate.call(Call::Release, t).await.is_ok() && mote::is_alive(waiter) {
///         mote::sleep(Duration::from_millis(1)).await;
///     }
/// })
/// .unwrap();
/// ```
pub struct ReplyTo<R: Send + 'static> {
    pub(super) slot: Option<Arc<Completion<Result<R, NoReply>>>>,
    pub(super) caller: Option<ProcessId>,
    /// The server the call was sent to.
    pub(super) server: ProcessId,
}

/// The handler dropped the call's [`ReplyTo`] without replying.
#[derive(Debug)]
pub(crate) struct NoReply;

impl<R: Send + 'static> ReplyTo<R> {
    /// Answers the call, at once. Does nothing if the caller has given up.
    ///
    /// Deviation: a handler that replies and then answers
    /// [`Next::Stop`](super::Next::Stop) replies before [`Server::terminate`](super::Server::terminate)
    /// runs, where `gen_server`'s `{stop, Reason, Reply, State}` runs `terminate` first;
    /// keep the `ReplyTo` in the state and reply from `terminate` for OTP's order.
    #[inline]
    pub fn reply(mut self, reply: R) {
        if let Some(slot) = self.slot.take() {
            // SAFETY: this handle is the slot's sole producer while it holds it: it is made
            // only by `ServerRef::send_with`, whose own `fail(NoProc)` comes only when the
            // request went into a mailbox its process no longer reads (so no handler has
            // this handle to reply with), and the watches that may fail the slot are put in
            // place only after a handle let go of it unanswered (`Drop`, below).
            let _ = unsafe { slot.complete_as_sole_producer(Ok(reply)) };
        }
    }

    /// The calling process, if the call came from a process (Erlang's `From`'s pid): to
    /// monitor or link it while the reply is deferred.
    pub fn caller(&self) -> Option<ProcessId> {
        self.caller
    }

    /// Whether the caller still waits for the reply (it has not timed out or gone away).
    pub fn is_waiting(&self) -> bool {
        self.slot.as_ref().is_some_and(|s| !s.is_done())
    }
}

/// Unanswered. A call puts no watch on its server (a lock on the server per call, taken
/// from every caller's core, was a third of a contended call's cost); the reply slot itself
/// reports what became of the call:
/// * dropped among the messages that reached the server after it had ended: `noproc`, as a
///   call to a dead server;
/// * dropped anywhere else (by the server's handler, its state, its end, or another process
///   it was handed to): the caller waits on, now watching the server; the server's exit
///   reason comes if it ends, and its loop says `NoReply` at once if the handler that got
///   this call returns without stopping.
impl<R: Send + 'static> Drop for ReplyTo<R> {
    fn drop(&mut self) {
        let Some(slot) = self.slot.take() else {
            return;
        };
        if crate::rt::mailbox::leftovers::dropping_leftovers() {
            slot.fail(crate::ExitReason::NoProc);
        } else {
            slot.abandon_in(self.server);
        }
    }
}

impl<R: Send + 'static> std::fmt::Debug for ReplyTo<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplyTo")
            .field("caller", &self.caller)
            .field("waiting", &self.is_waiting())
            .finish()
    }
}
