//! Typed requests: a server that takes several request types, each with its own reply type
//! ([`Request`], [`Handles`], [`call`]).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use super::reply::ReplyTo;
use super::{CallError, Context, Next, Server, ServerRef};

/// A request a server may take with [`Handles`], and the type of its reply. Implement it,
/// or derive it with `#[derive(Request)]` and `#[reply(Type)]`
/// ([the derive](macro@crate::server::Request)).
///
/// ```
/// use mote::server::Request;
///
/// struct GetUser(u64);
/// struct User { id: u64, name: String }
///
/// impl Request for GetUser {
///     type Reply = Option<User>;
/// }
/// # let _ = User { id: 1, name: String::new() };
/// ```
pub trait Request: Send + 'static {
    /// What the server answers to this request.
    type Reply: Send + 'static;
}

/// A server's handler of one [`Request`] type: implement it once per request type, and
/// callers get each request's own reply type from [`call`] or [`ServerRef::request`], with
/// no reply enum to match and no `unreachable!` arms.
///
/// It lives beside the single-enum style ([`Server::Call`] with
/// [`Server::handle_call`]), which is unchanged: a server may use either, or both. A typed
/// request is served in the same order as every other message, one at a time.
///
/// The handler answers by returning its reply; the server then waits for the next message
/// ([`Next::Continue`]). For what the enum style can do beyond that (a deferred reply through
/// a kept [`ReplyTo`], answering [`Next::Stop`] or a timeout), use [`Server::handle_call`].
/// A panic in the handler stops the server as a panic in `handle_call` does, and the caller
/// gets [`CallError::Exit`].
///
/// Cost: a typed request travels boxed (its request type is erased in the mailbox) and its
/// handler's future is boxed too; the enum style allocates neither.
///
/// ```
/// use std::collections::HashMap;
/// use mote::server::{self, Context, Handles, Request, Server};
///
/// #[derive(Default)]
/// struct Users(HashMap<u64, String>);
/// impl Server for Users { type Call = (); type Reply = (); type Cast = (); type Info = (); }
///
/// struct AddUser(u64, String);
/// impl Request for AddUser { type Reply = bool; }
///
/// struct GetUser(u64);
/// impl Request for GetUser { type Reply = Option<String>; }
///
/// impl Handles<AddUser> for Users {
///     async fn handle(&mut self, AddUser(id, name): AddUser, _: &mut Context<Self>) -> bool {
///         self.0.insert(id, name).is_none()
///     }
/// }
///
/// impl Handles<GetUser> for Users {
///     async fn handle(&mut self, GetUser(id): GetUser, _: &mut Context<Self>) -> Option<String> {
///         self.0.get(&id).cloned()
///     }
/// }
///
/// mote::run(|_p: mote::Process<()>| async move {
///     let users = server::start(Users::default()).await.unwrap();
///     assert_eq!(server::call(&users, AddUser(1, "ada".into())).await, Ok(true));
///     let name: Option<String> = server::call(&users, GetUser(1)).await.unwrap();
///     assert_eq!(name.as_deref(), Some("ada"));
///     assert_eq!(server::call(&users, GetUser(2)).await, Ok(None));
/// })
/// .unwrap();
/// ```
pub trait Handles<R: Request>: Server {
    /// Handles `request` and returns its reply.
    fn handle(
        &mut self,
        request: R,
        ctx: &mut Context<Self>,
    ) -> impl Future<Output = R::Reply> + Send;
}

/// The default timeout of [`call`]: 5 s, as `gen_server:call/2`'s.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// Sends a typed request to `server` and waits up to 5 s ([`DEFAULT_CALL_TIMEOUT`], as
/// `gen_server:call/2`) for its reply. [`ServerRef::request`] takes a timeout. See
/// [`Handles`] for an example; errors are those of [`ServerRef::call`].
pub fn call<S, R>(
    server: &ServerRef<S>,
    request: R,
) -> impl Future<Output = Result<R::Reply, CallError>> + Send + 'static
where
    S: Handles<R>,
    R: Request,
{
    server.request(request, DEFAULT_CALL_TIMEOUT)
}

/// A typed request in the mailbox, its type erased: it knows how to run its handler.
pub(super) trait TypedCall<S: Server>: Send {
    /// Runs the handler and replies; the future is what the server loop awaits.
    fn run<'a>(
        self: Box<Self>,
        server: &'a mut S,
        ctx: &'a mut Context<S>,
    ) -> Pin<Box<dyn Future<Output = Next> + Send + 'a>>;
}

/// A request and its caller's answer slot.
pub(super) struct Typed<R: Request> {
    pub(super) request: R,
    pub(super) from: ReplyTo<R::Reply>,
}

impl<S: Handles<R>, R: Request> TypedCall<S> for Typed<R> {
    fn run<'a>(
        self: Box<Self>,
        server: &'a mut S,
        ctx: &'a mut Context<S>,
    ) -> Pin<Box<dyn Future<Output = Next> + Send + 'a>> {
        let Typed { request, from } = *self;
        Box::pin(async move {
            let reply = server.handle(request, ctx).await;
            from.reply(reply);
            Next::Continue
        })
    }
}
