//! [`ServerRef`]: a server's address, and the call, cast and stop protocols.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use super::reply::{NoReply, ReplyTo};
use super::request::{Handles, Request, Typed};
use super::run::{Envelope, Msg};
use super::Server;
use crate::process::registry::RegistryError;
use crate::rt::completion::{ExitWatch, Waiter};
use crate::values::exit::ExitReason;
use crate::values::pid::{Pid, ProcessId};

/// The address of a server whose callbacks are `S`: call, cast, send info, stop. `Copy`,
/// like a [`Pid`]. With the `dist` feature it may address a server of another node (by
/// `{Name, Node}`, or received in a message), used the same way.
///
/// ```
/// use std::time::Duration;
/// use mote::server::{self, CallError, Context, Next, ReplyTo, Server, ServerOptions, ServerRef};
///
/// struct Echo;
/// impl Server for Echo {
///     type Call = String;
///     type Reply = String;
///     type Cast = ();
///     type Info = ();
///     async fn handle_call(&mut self, s: String, from: ReplyTo<String>, _: &mut Context<Self>) -> Next {
///         from.reply(s);
///         Next::Continue
///     }
/// }
///
/// mote::run(|_p: mote::Process<()>| async move {
///     ServerOptions::new().name("echo").start(Echo).await.unwrap();
///     let echo = ServerRef::<Echo>::named("echo").unwrap();
///     let t = Duration::from_secs(1);
///     assert_eq!(echo.call("hi".to_string(), t).await.as_deref(), Ok("hi"));
///     echo.stop(mote::ExitReason::Normal, t).await.unwrap();
///     assert_eq!(echo.call("hi".to_string(), t).await, Err(CallError::NoProc));
/// })
/// .unwrap();
/// ```
pub struct ServerRef<S: Server> {
    pid: Pid<Envelope<S>>,
    _server: PhantomData<fn() -> S>,
}

/// Why a [`ServerRef::call`] returned no reply (Erlang's `{Reason, {gen_server, call, ...}}`
/// exits, as values).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The server was not alive when called (Erlang's `noproc`), or the request reached
    /// it as it was ending, after it had stopped receiving.
    #[error("noproc: the server is not alive")]
    NoProc,
    /// No reply within the timeout; a reply that comes later is dropped.
    #[error("timeout: the server did not reply in time")]
    Timeout,
    /// The server ended during the call, with this reason (`normal` too).
    #[error("the server exited during the call: {0}")]
    Exit(ExitReason),
    /// The handler dropped the call's [`ReplyTo`] without replying (a mote addition). For
    /// a server of another node (the `dist` feature) also: the request did not encode, the
    /// reply did not decode as `S::Reply` (both logged), or a typed request
    /// ([`ServerRef::request`]), which does not cross nodes.
    ///
    /// A node that cannot be reached, or is lost during a call, is
    /// `Exit(`[`ExitReason::NoConnection`]`)`: the reason the call's monitor of the server
    /// gives (Erlang's call exits with `{nodedown, Node}`).
    #[error("the server dropped the call without replying")]
    NoReply,
    /// A server called itself, which could only time out (Erlang's `calling_self`).
    #[error("calling_self: a server cannot call itself")]
    CallingSelf,
    /// [`call_named`]: the name is held by a process that is not a server of this type
    /// ([`RegistryError::WrongType`]; Erlang, untyped, would send the request anyway).
    #[error(transparent)]
    Name(RegistryError),
}

/// Calls the server registered as `name` (Erlang's `gen_server:call(Name, Request,
/// Timeout)`): the name is resolved when the request is sent, so the caller need not look
/// it up first. Nobody holding the name fails at once with [`CallError::NoProc`]; a
/// server calling itself by its own name gets [`CallError::CallingSelf`].
///
/// ```
/// use std::time::Duration;
/// use mote::server::{self, CallError, Context, Next, ReplyTo, Server, ServerOptions};
///
/// struct Echo;
/// impl Server for Echo {
///     type Call = u8;
///     type Reply = u8;
///     type Cast = ();
///     type Info = ();
///     async fn handle_call(&mut self, n: u8, from: ReplyTo<u8>, _: &mut Context<Self>) -> Next {
///         from.reply(n);
///         Next::Continue
///     }
/// }
///
/// mote::run(|_p: mote::Process<()>| async move {
///     let t = Duration::from_secs(5);
///     assert_eq!(server::call_named::<Echo>("echo_doc", 1, t).await, Err(CallError::NoProc));
///     ServerOptions::new().name("echo_doc").start(Echo).await.unwrap();
///     assert_eq!(server::call_named::<Echo>("echo_doc", 7, t).await, Ok(7));
/// })
/// .unwrap();
/// ```
pub fn call_named<S: Server>(
    name: &str,
    request: S::Call,
    timeout: Duration,
) -> impl Future<Output = Result<S::Reply, CallError>> + Send + 'static {
    let server = match crate::process::registry::lookup::<Envelope<S>>(name) {
        Ok(pid) => Ok(ServerRef::<S>::from_pid(pid)),
        Err(e @ RegistryError::WrongType { .. }) => Err(CallError::Name(e)),
        Err(_) => Err(CallError::NoProc),
    };
    let call = server.map(|server| server.call(request, timeout));
    async move { call?.await }
}

/// Casts to the server registered as `name` (Erlang's `gen_server:cast(Name, Request)`):
/// always a silent success, as in OTP, even when nobody holds the name (or, mote's
/// addition, when its holder is not a server of this type: the message is dropped).
///
/// ```
/// use mote::server::{self, Server};
///
/// struct Sink;
/// impl Server for Sink { type Call = (); type Reply = (); type Cast = u8; type Info = (); }
///
/// mote::run(|_p: mote::Process<()>| async move {
///     server::cast_named::<Sink>("nobody_sinks_here", 1); // no error, no panic
/// })
/// .unwrap();
/// ```
pub fn cast_named<S: Server>(name: &str, message: S::Cast) {
    if let Ok(pid) = crate::process::registry::lookup::<Envelope<S>>(name) {
        ServerRef::<S>::from_pid(pid).cast(message);
    }
}

/// Why a [`ServerRef::stop`] did not end as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StopError {
    /// The server was not alive.
    #[error("noproc: the server is not alive")]
    NoProc,
    /// It did not end within the timeout (it is still running).
    #[error("timeout: the server did not stop in time")]
    Timeout,
    /// It ended with another reason (its `terminate` panicked, say).
    #[error("the server exited with {0}, not the reason asked for")]
    Exit(ExitReason),
}

impl<S: Server> ServerRef<S> {
    pub(crate) fn from_pid(pid: Pid<Envelope<S>>) -> Self {
        ServerRef {
            pid,
            _server: PhantomData,
        }
    }

    /// The server registered as `name`, if it is a server of type `S`.
    pub fn named(name: &str) -> Result<Self, RegistryError> {
        crate::process::registry::lookup::<Envelope<S>>(name).map(Self::from_pid)
    }

    /// The server of type `S` whose process is `id`, if it is one (alive, and started as a
    /// server of this type): a typed reference from a bare id, as
    /// [`which_children`](crate::supervisor::SupervisorRef::which_children) or a
    /// [`Down`](crate::Down) gives them. `None` for a dead process, a plain process, or a
    /// server of another type.
    ///
    /// ```
    /// use mote::server::{self, Server, ServerRef};
    /// struct A;
    /// impl Server for A { type Call = (); type Reply = (); type Cast = (); type Info = (); }
    /// struct B;
    /// impl Server for B { type Call = (); type Reply = (); type Cast = (); type Info = (); }
    ///
    /// mote::run(|p: mote::Process<()>| async move {
    ///     let a = server::start(A).await.unwrap();
    ///     assert_eq!(ServerRef::<A>::from_id(a.id()), Some(a));
    ///     assert_eq!(ServerRef::<B>::from_id(a.id()), None);
    ///     assert_eq!(ServerRef::<A>::from_id(p.id()), None);
    /// })
    /// .unwrap();
    /// ```
    pub fn from_id(id: ProcessId) -> Option<Self> {
        // SAFETY: a server of state `S` records `Envelope<S>`'s id unless told another tag,
        // and the other tags are each private to one behaviour's own state type.
        unsafe { Self::from_id_as(id, std::any::TypeId::of::<Envelope<S>>()) }
    }

    /// The server whose process `id` was recorded as `tag` at its start.
    ///
    /// # Safety
    /// Only servers of state type `S` record `tag` (so their mailbox takes `Envelope<S>`).
    pub(crate) unsafe fn from_id_as(id: ProcessId, tag: std::any::TypeId) -> Option<Self> {
        let recorded = crate::rt::signals::peek_live(id, |_, s| s.as_ref()?.behaviour).flatten();
        // SAFETY: the process recorded `tag`, which (the caller's promise) only servers of
        // state `S` do, so its mailbox takes `Envelope<S>`.
        (recorded == Some(tag)).then(|| Self::from_pid(unsafe { Pid::from_id(id) }))
    }

    /// The server's process id. For a reference by `{Name, Node}` of another node (the
    /// `dist` feature), a placeholder id of that node: the server's pid is known there.
    pub fn id(&self) -> ProcessId {
        self.pid.id()
    }

    /// The server's process as a [`Pid`] of its [`Envelope`]s (for timers, the registry).
    /// An `Envelope` does not cross nodes: for a server of another node, send through
    /// [`ServerRef::info`] and [`ServerRef::cast`].
    pub fn pid(&self) -> Pid<Envelope<S>> {
        self.pid
    }

    /// Sends a request and waits up to `timeout` for the reply (Erlang's
    /// `gen_server:call/3`). [`Duration::MAX`] waits forever, as `infinity` does.
    ///
    /// The timeout never ends a call early, and may end it up to about a millisecond and a
    /// quarter late: its timer counts whole milliseconds, as Erlang's do, and a call made
    /// soon after another on the same thread starts its timer from a clock reading up to a
    /// quarter of a millisecond ahead, which spares it a clock read.
    ///
    /// Callable from anywhere: any process (whatever its message type), a tokio task, plain
    /// async code. Errors are explained at [`CallError`]. The request is sent when `call`
    /// is called; the returned future only waits (and borrows nothing).
    ///
    /// A reference to a server of another node (the `dist` feature:
    /// `ServerRef::named_on`, or one that arrived in a message) speaks the `gen_server`
    /// protocol through the distribution layer, with the same errors; its node lost or
    /// unreachable is `Exit(`[`ExitReason::NoConnection`]`)`.
    #[inline]
    pub fn call(
        &self,
        request: S::Call,
        timeout: Duration,
    ) -> impl Future<Output = Result<S::Reply, CallError>> + Send + 'static {
        #[cfg(feature = "dist")]
        if !self.pid.id().is_local() {
            return wait_reply(
                Err(Box::new(super::remote::call::<S>(
                    self.pid.id(),
                    request,
                    timeout,
                ))),
                timeout,
            );
        }
        wait_reply(self.send_call(request).map_err(Early::failed), timeout)
    }

    /// Sends a typed request ([`Request`]) and waits up to `timeout` for its reply, of the
    /// request's own type: for servers that implement [`Handles`] for it. As
    /// [`ServerRef::call`] otherwise (errors, callable from anywhere, sent when called);
    /// [`server::call`](super::call) is this with a 5 s timeout.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mote::server::{self, Context, Handles, Request, Server};
    ///
    /// struct Clock(u64);
    /// impl Server for Clock { type Call = (); type Reply = (); type Cast = (); type Info = (); }
    ///
    /// struct Now;
    /// impl Request for Now { type Reply = u64; }
    /// impl Handles<Now> for Clock {
    ///     async fn handle(&mut self, _: Now, _: &mut Context<Self>) -> u64 {
    ///         self.0 += 1;
    ///         self.0
    ///     }
    /// }
    ///
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let clock = server::start(Clock(0)).await.unwrap();
    ///     assert_eq!(clock.request(Now, Duration::from_secs(5)).await, Ok(1));
    /// })
    /// .unwrap();
    /// ```
    pub fn request<R>(
        &self,
        request: R,
        timeout: Duration,
    ) -> impl Future<Output = Result<R::Reply, CallError>> + Send + 'static
    where
        S: Handles<R>,
        R: Request,
    {
        let sent = self.send_with(|from| Msg::Typed(Box::new(Typed { request, from })));
        wait_reply(sent.map_err(Early::failed), timeout)
    }

    /// The synchronous half of a call: send the request with its reply slot.
    #[allow(clippy::type_complexity)]
    fn send_call(&self, request: S::Call) -> Result<Waiter<Result<S::Reply, NoReply>>, CallError> {
        self.send_with(|from| Msg::Call(request, from))
    }

    /// Sends the message `make` builds around a fresh reply slot. No watch is put on the
    /// server: a server that is not alive refuses the message (`NoProc`), and one that ends
    /// with the request queued or held fails the slot with its reason (see [`ReplyTo`]).
    #[allow(clippy::type_complexity)]
    #[inline]
    fn send_with<T: Send + 'static>(
        &self,
        make: impl FnOnce(ReplyTo<T>) -> Msg<S>,
    ) -> Result<Waiter<Result<T, NoReply>>, CallError> {
        let caller = crate::self_id();
        if caller == Some(self.pid.id()) {
            return Err(CallError::CallingSelf);
        }
        // A typed request to another node's server: its types are not known to be serde.
        #[cfg(feature = "dist")]
        if !self.pid.id().is_local() {
            return Err(super::remote::request(
                self.pid.id(),
                std::any::type_name::<T>(),
            ));
        }
        let mut slot = Waiter::reused();
        let request = Envelope(make(ReplyTo {
            slot: Some(Arc::clone(slot.completion())),
            caller,
            server: self.pid.id(),
        }));
        match self.pid.send_or_return(request) {
            Ok(before_exit) => {
                // The server began to exit as the request went in: it may never read or
                // drop it until its slot is recycled. An outcome already there (its exit
                // reason, from its last drain) stays.
                if !before_exit {
                    slot.fail(ExitReason::NoProc);
                }
                Ok(slot)
            }
            Err(refused) => {
                // Dropping the refused request drops its reply slot: close the slot first,
                // so that the drop has nothing to report.
                slot.close();
                drop(refused);
                Err(CallError::NoProc)
            }
        }
    }

    /// Sends a request without waiting (Erlang's `gen_server:cast/2`): silently dropped if
    /// the server is not alive.
    ///
    /// To a server of another node it is `{'$gen_cast', Request}`, as Erlang's.
    pub fn cast(&self, message: S::Cast) {
        #[cfg(feature = "dist")]
        if !self.pid.id().is_local() {
            return super::remote::cast::<S>(self.pid.id(), message);
        }
        self.pid.send(Envelope(Msg::Cast(message)));
    }

    /// Sends an info message, handled by [`Server::handle_info`]. To a server of another
    /// node it is the message itself, as Erlang's `Server ! Info`.
    pub fn info(&self, message: S::Info) {
        #[cfg(feature = "dist")]
        if !self.pid.id().is_local() {
            return super::remote::info::<S>(self.pid.id(), message);
        }
        self.pid.send(Envelope::info(message));
    }

    /// Asks the server to stop with `reason` and waits up to `timeout` until it has ended
    /// (Erlang's `gen_server:stop/3`): [`Server::terminate`] runs first.
    ///
    /// A server of another node is stopped as `gen_server:stop` does it (the system message
    /// `sys:terminate` sends); a mote server answers it once served by the distribution
    /// layer.
    pub async fn stop(&self, reason: ExitReason, timeout: Duration) -> Result<(), StopError> {
        #[cfg(feature = "dist")]
        if !self.pid.id().is_local() {
            return super::remote::stop(self.pid.id(), reason, timeout).await;
        }
        let mut slot = Waiter::<()>::new();
        let watch = ExitWatch::new(self.pid.id(), slot.completion());
        if !watch.is_active() {
            return Err(StopError::NoProc);
        }
        self.pid.send(Envelope(Msg::Stop(reason.clone())));
        let ended = crate::rt::timeout_wheel::timeout(timeout, slot.wait())
            .await
            .map_err(|_| StopError::Timeout)?;
        match ended {
            Err(r) if r == reason => Ok(()),
            Err(ExitReason::NoProc) => Err(StopError::NoProc),
            Err(other) => Err(StopError::Exit(other)),
            Ok(()) => unreachable!("only the server's exit fills this slot"),
        }
    }
}

/// Why a call has no local reply slot to wait on: it failed before sending, or (the `dist`
/// feature) its server is on another node and the wait is the transport's.
///
/// Boxed where a call's future holds it, so that the future's `Result<Waiter, Box<Early>>`
/// is two words: inline (a `CallError` is 48 bytes), the call's future started by copying
/// the whole argument into its body's state with wide loads of the tag and the waiter just
/// stored in narrower pieces, a stalled store-to-load forward on every call. The box is
/// made only for a call that fails before it is sent, or that goes to another node (whose
/// wait is boxed already).
pub(super) enum Early {
    Failed(CallError),
    #[cfg(feature = "dist")]
    Remote(
        std::pin::Pin<
            Box<dyn Future<Output = Result<super::remote::BoxedReply, CallError>> + Send>,
        >,
    ),
}

impl Early {
    /// A call that failed before it was sent, boxed for its future.
    #[cold]
    fn failed(error: CallError) -> Box<Early> {
        Box::new(Early::Failed(error))
    }
}

/// The waiting half of a call: the reply, or why none came.
#[allow(clippy::type_complexity)]
async fn wait_reply<T: Send + 'static>(
    sent: Result<Waiter<Result<T, NoReply>>, Box<Early>>,
    timeout: Duration,
) -> Result<T, CallError> {
    let slot = match sent {
        Ok(sent) => sent,
        Err(early) => match *early {
            Early::Failed(e) => return Err(e),
            // The remote branch: the same future type as a local call's, so a local call
            // pays nothing for it but this arm of a match it already made.
            #[cfg(feature = "dist")]
            Early::Remote(wait) => {
                let reply = wait.await?;
                return reply
                    .downcast::<T>()
                    .map(|r| *r)
                    .map_err(|_| CallError::NoReply);
            }
        },
    };
    let mut waiting = Waiting(Some(slot));
    let outcome = match crate::rt::timeout_wheel::timeout(timeout, &mut waiting).await {
        Ok(outcome) => outcome,
        // A reply that raced the timer is still a reply.
        Err(_) => waiting.close().ok_or(CallError::Timeout)?,
    };
    match outcome {
        Ok(Ok(reply)) => Ok(reply),
        Ok(Err(NoReply)) => Err(CallError::NoReply),
        // The request reached the server after it had ended (see `ReplyTo`'s drop).
        Err(ExitReason::NoProc) => Err(CallError::NoProc),
        Err(reason) => Err(CallError::Exit(reason)),
    }
}

/// Waits for a call's reply; closes the slot if dropped before it came (the caller was
/// killed, a `select!` dropped the call), so a late reply is discarded and
/// `ReplyTo::is_waiting` turns false. Done with the slot, it hands it back for the thread's
/// next call ([`Waiter::recycle`]).
struct Waiting<T: 'static>(Option<Waiter<T>>);

impl<T: 'static> Waiting<T> {
    /// Gives up: returns an outcome that arrived before, if any.
    fn close(&mut self) -> Option<Result<T, ExitReason>> {
        let mut slot = self.0.take()?;
        let outcome = slot.close();
        slot.recycle();
        outcome
    }
}

impl<T: 'static> Future for Waiting<T> {
    type Output = Result<T, ExitReason>;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let slot = self.0.as_mut().expect("polled after it ended");
        let outcome = std::task::ready!(slot.poll_take(cx));
        if let Some(slot) = self.0.take() {
            slot.recycle();
        }
        Poll::Ready(outcome)
    }
}

impl<T: 'static> Drop for Waiting<T> {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

impl<S: Server> Clone for ServerRef<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Server> Copy for ServerRef<S> {}

impl<S: Server> PartialEq for ServerRef<S> {
    fn eq(&self, other: &Self) -> bool {
        self.pid == other.pid
    }
}

impl<S: Server> Eq for ServerRef<S> {}

impl<S: Server> std::fmt::Debug for ServerRef<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ServerRef({})", self.pid.id())
    }
}

impl<S: Server> From<ServerRef<S>> for ProcessId {
    fn from(server: ServerRef<S>) -> ProcessId {
        server.pid.id()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::otp::server::{Context, Next};

    /// What a call's future starts from is two words, so that it moves in registers: as
    /// anything wider it was copied in loads that straddled its narrower stores (see
    /// [`Early`]), and the waiter is one pointer (its waker id lives in the slot).
    #[test]
    fn what_a_call_sends_its_wait_is_two_words() {
        let word = std::mem::size_of::<usize>();
        assert_eq!(std::mem::size_of::<Waiter<Result<u64, NoReply>>>(), word);
        assert_eq!(
            std::mem::size_of::<Result<Waiter<Result<u64, NoReply>>, Box<Early>>>(),
            2 * word
        );
    }

    struct Echo;

    impl Server for Echo {
        type Call = u64;
        type Reply = u64;
        type Cast = ();
        type Info = ();

        async fn handle_call(
            &mut self,
            ms: u64,
            from: ReplyTo<u64>,
            _: &mut Context<Self>,
        ) -> Next {
            crate::sleep(Duration::from_millis(ms)).await;
            from.reply(ms);
            Next::Continue
        }
    }

    /// Holds every call until asked to answer them all, in an order unlike the callers'.
    #[derive(Default)]
    struct Hold(Vec<(u64, ReplyTo<u64>)>);

    /// The call that makes [`Hold`] answer.
    const ANSWER: u64 = u64::MAX;
    /// The call that asks [`Hold`] how many calls it holds.
    const HELD: u64 = u64::MAX - 1;

    impl Server for Hold {
        type Call = u64;
        type Reply = u64;
        type Cast = ();
        type Info = ();

        async fn handle_call(&mut self, n: u64, from: ReplyTo<u64>, _: &mut Context<Self>) -> Next {
            if n == HELD {
                from.reply(self.0.len() as u64);
                return Next::Continue;
            }
            if n != ANSWER {
                self.0.push((n, from));
                return Next::Continue;
            }
            let held = std::mem::take(&mut self.0);
            from.reply(held.len() as u64);
            // Odd positions from the back, then even ones from the front: the watches
            // leave from both ends and the middle.
            let (odd, even): (Vec<_>, Vec<_>) =
                held.into_iter().enumerate().partition(|(i, _)| i % 2 == 1);
            for (_, (n, from)) in odd.into_iter().rev().chain(even) {
                from.reply(n * 2);
            }
            Next::Continue
        }
    }

    fn watchers(id: ProcessId) -> usize {
        crate::rt::signals::peek_live(id, |_, s| s.as_ref().map_or(0, |s| s.watchers.len()))
            .expect("the server is alive")
    }

    /// A call puts no watch on the server: not while it waits, not after a reply, a timeout
    /// or the caller's death.
    #[test]
    fn calls_put_no_watch_on_the_server() {
        crate::run(|_p: crate::Process<()>| async move {
            let s = crate::otp::server::start(Echo).await.unwrap();
            for _ in 0..100 {
                assert_eq!(s.call(0, Duration::from_secs(5)).await, Ok(0));
            }
            assert_eq!(
                s.call(50, Duration::from_millis(1)).await,
                Err(CallError::Timeout)
            );
            assert_eq!(watchers(s.id()), 0);
            let caller = crate::spawn(move |_c: crate::Process<()>| async move {
                let _ = s.call(10_000, Duration::MAX).await;
            });
            // The server is asleep in the caller's request, the caller waits.
            crate::sleep(Duration::from_millis(20)).await;
            assert!(crate::is_alive(caller));
            assert_eq!(watchers(s.id()), 0);
            crate::exit(caller, ExitReason::Kill);
            while crate::is_alive(caller) {
                crate::sleep(Duration::from_millis(1)).await;
            }
            assert_eq!(watchers(s.id()), 0);
        })
        .unwrap();
    }

    /// Drops every call it gets, and stops when the request says so.
    struct Drop1;

    impl Server for Drop1 {
        type Call = bool;
        type Reply = ();
        type Cast = ();
        type Info = ();

        async fn handle_call(
            &mut self,
            stop: bool,
            _from: ReplyTo<()>,
            _: &mut Context<Self>,
        ) -> Next {
            if stop {
                Next::Stop(ExitReason::shutdown_with("bye"))
            } else {
                Next::Continue
            }
        }
    }

    /// A reply slot dropped unanswered watches its server only until the outcome is known:
    /// `NoReply` when the server goes on (and the watch is gone), its exit reason when the
    /// handler stops it.
    #[test]
    fn an_unanswered_call_reports_no_reply_or_the_exit_and_leaves_no_watch() {
        crate::run(|_p: crate::Process<()>| async move {
            let s = crate::otp::server::start(Drop1).await.unwrap();
            let t = Duration::from_secs(5);
            for _ in 0..10 {
                assert_eq!(s.call(false, t).await, Err(CallError::NoReply));
            }
            assert_eq!(watchers(s.id()), 0);
            assert_eq!(
                s.call(true, t).await,
                Err(CallError::Exit(ExitReason::shutdown_with("bye")))
            );
            assert_eq!(s.call(false, t).await, Err(CallError::NoProc));
        })
        .unwrap();
    }

    /// Calls still queued when the server ends get its exit reason; calls held in its state
    /// too; a caller that gave up on a held call leaves no watch behind.
    #[test]
    fn held_and_queued_calls_get_the_exit_reason() {
        crate::run(|mut p: crate::Process<Result<u64, CallError>>| async move {
            let s = crate::otp::server::start(Hold::default()).await.unwrap();
            let me = p.pid();
            for n in 0..10 {
                crate::spawn(move |_c: crate::Process<()>| async move {
                    me.send(s.call(n, Duration::MAX).await);
                });
            }
            while s.call(HELD, Duration::MAX).await != Ok(10) {
                crate::sleep(Duration::from_millis(1)).await;
            }
            // One more that gives up: its slot is closed when the server drops it.
            assert_eq!(
                s.call(100, Duration::from_millis(1)).await,
                Err(CallError::Timeout)
            );
            let reason = ExitReason::shutdown_with("over");
            s.stop(reason.clone(), Duration::from_secs(5))
                .await
                .unwrap();
            for _ in 0..10 {
                assert_eq!(p.recv().await, Err(CallError::Exit(reason.clone())));
            }
        })
        .unwrap();
    }

    /// A server killed while calls wait in its mailbox (and one is being handled): every
    /// caller gets `Killed`, none waits for its timeout.
    #[test]
    fn queued_calls_get_the_reason_of_a_killed_server() {
        crate::run(|mut p: crate::Process<Result<u64, CallError>>| async move {
            let s = crate::otp::server::start(Echo).await.unwrap();
            let me = p.pid();
            for _ in 0..6 {
                crate::spawn(move |_c: crate::Process<()>| async move {
                    me.send(s.call(60_000, Duration::from_secs(60)).await);
                });
            }
            // The callers have sent their requests: one is being handled, five wait.
            crate::sleep(Duration::from_millis(50)).await;
            crate::exit(s.id(), ExitReason::Kill);
            for _ in 0..6 {
                assert_eq!(p.recv().await, Err(CallError::Exit(ExitReason::Killed)));
            }
        })
        .unwrap();
    }

    #[test]
    fn many_callers_answered_out_of_order_each_get_their_reply_and_leave_no_watch() {
        const CALLERS: u64 = 1_000;
        crate::run(|mut p: crate::Process<Result<u64, CallError>>| async move {
            let s = crate::otp::server::start(Hold::default()).await.unwrap();
            let me = p.pid();
            for n in 0..CALLERS {
                crate::spawn(move |_c: crate::Process<()>| async move {
                    let r = s.call(n, Duration::MAX).await.map(|twice| twice - n);
                    me.send(r);
                });
            }
            // A caller watches the server before it sends: count what the server holds.
            while s.call(HELD, Duration::MAX).await != Ok(CALLERS) {
                crate::sleep(Duration::from_millis(1)).await;
            }
            assert_eq!(watchers(s.id()), 0, "a call puts no watch on the server");
            assert_eq!(s.call(ANSWER, Duration::MAX).await, Ok(CALLERS));
            let mut got = Vec::new();
            for _ in 0..CALLERS {
                got.push(p.recv().await.expect("every call is answered"));
            }
            got.sort_unstable();
            // Each caller got twice its own request back.
            assert_eq!(got, (0..CALLERS).collect::<Vec<_>>());
            assert_eq!(watchers(s.id()), 0);
        })
        .unwrap();
    }
}
