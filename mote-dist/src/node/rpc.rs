//! `rpc` into mote: functions registered by module and function name ([`register_fn`]),
//! called by Erlang's `rpc:call`, `erpc:call`, `rpc:block_call` and ei's `erl_rpc`.
//!
//! Two protocols arrive here:
//!
//! * **erpc** (what `rpc:call` and `erpc:call` use since OTP 23): a SPAWN_REQUEST for
//!   `erpc:execute_call(Res, M, F, A)` with the option `monitor`. The node spawns a mote
//!   process for the call, answers SPAWN_REPLY with its pid (flag 2: monitor set up), runs
//!   the function and ends the call as `execute_call` ends its process: with the exit reason
//!   `{Res, return, Value}` (or `{Res, error, Reason, Stack}`), sent as the monitor's DOWN
//!   (PAYLOAD_MONITOR_P_EXIT, the monitor's reference being the request id). A spawn of any
//!   other function not registered for spawning (`register_spawn`) is answered with the
//!   error `notsup`:
//!   Erlang's caller sees `{badrpc, notsup}` or `{erpc, notsup}`.
//! * **rex** (the registered `rpc` server): `{'$gen_call', From, {call | block_call, M, F,
//!   A, GroupLeader}}` from `rpc:block_call`, answered `{Tag, Result}`; `{From, {call, M, F,
//!   A, GroupLeader}}` from ei callers, answered `{rex, Result}`; `{From, features_request}`,
//!   answered `{features_reply, Node, [erpc]}`. The group leader is ignored: a mote
//!   function has no Erlang I/O.
//!
//! Failures give the terms Erlang gives, so callers need not know the node is not a BEAM:
//! an unregistered `M:F` raises `undef` with the stack `[{M, F, Args, []}]` (so
//! `rpc:call` returns `{badrpc, {'EXIT', {undef, [{M, F, Args, []}]}}}`, as between two
//! Erlang nodes); arguments that do not decode as the function's argument type raise
//! `function_clause` with the same stack (Erlang's answer when no clause matches); a panic
//! raises `{rust_panic, Message}` (`Message` a binary). A registered function has one
//! arity, the arity of its argument tuple: called with another number of arguments its
//! arguments do not decode, so the caller gets `function_clause` where Erlang would say
//! `undef`.

use std::any::Any;
use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, LazyLock};
use std::task::{Context, Poll};

use bytes::Bytes;
use parking_lot::RwLock;
use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};

use super::connections::Shared;
use super::gen_call::{node_pid, reply_frame, BoxFuture, ErasedReply, Replies};
use crate::connection::{ControlMessage, DistMessage, DistSender, FrameBuilder, ProcessRef};
use crate::etf::{Atom, DecodeError, EncodeError, ErlPid, WireTerm};
use crate::node_table;
use crate::serde::Options;

/// A registered function, its types erased: decodes the encoded argument tuple and starts
/// the call.
type Invoke = dyn Fn(&[u8], &Options) -> Result<BoxFuture<ErasedReply>, DecodeError> + Send + Sync;

/// A function's module and name.
type FunctionName = (Atom, Atom);

/// The registered functions by module and function name.
static FUNCTIONS: LazyLock<RwLock<HashMap<FunctionName, Arc<Invoke>>>> =
    LazyLock::new(Default::default);

/// Makes `f` callable from other nodes as `module:function` (`rpc:call(MoteNode, module,
/// function, Args)` from Erlang or Elixir). Registering the same name again replaces the
/// function. Fails only if a name is not a valid atom (over 255 characters).
///
/// The Erlang argument list arrives as a tuple: `f` takes a tuple type with one element per
/// argument (`(i64, i64)` for `[1, 2]`, `(String,)` for one, `()` for none), decoded by the
/// serde mapping of [`crate::serde`]; what it returns is encoded the same way and is the
/// value of the `rpc:call`. Each call runs in a mote process of its own. Failures reach the
/// caller as Erlang's own: `undef` for an unregistered function, `function_clause` for
/// arguments that do not decode, `{rust_panic, Message}` for a panic (see
/// docs/distribution.md, "Calls and rpc").
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let _node = mote_dist::node::NodeOptions::new("mote@127.0.0.1").cookie("c").start().await?;
/// mote_dist::node::register_fn("math", "add", |(a, b): (i64, i64)| async move { a + b })?;
/// // Erlang: 3 = rpc:call('mote@127.0.0.1', math, add, [1, 2]).
/// # Ok(()) }
/// ```
pub fn register_fn<A, R, F, Fut>(module: &str, function: &str, f: F) -> Result<(), EncodeError>
where
    A: DeserializeOwned + 'static,
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: Serialize + Send + 'static,
{
    let key = (Atom::new(module)?, Atom::new(function)?);
    let invoke: Arc<Invoke> = Arc::new(move |args: &[u8], opts: &Options| {
        let args: A = crate::serde::from_slice_with(args, opts)?;
        let call = f(args);
        Ok(Box::pin(async move { Box::new(call.await) as ErasedReply }) as BoxFuture<_>)
    });
    FUNCTIONS.write().insert(key, invoke);
    Ok(())
}

/// One call: `M:F(Args)`, `Args` as the caller sent the list.
struct Call {
    module: Atom,
    function: Atom,
    args: WireTerm,
}

/// How a call ended.
enum Outcome {
    /// The function returned this.
    Return(ErasedReply),
    /// It raised this error (class `error`).
    Error(WireTerm),
}

impl Call {
    /// `{call | block_call, M, F, A, GroupLeader}`, the request `rex` serves.
    fn from_rex(request: WireTerm) -> Option<Call> {
        let WireTerm::Tuple(t) = request else {
            return None;
        };
        let [WireTerm::Atom(kind), WireTerm::Atom(module), WireTerm::Atom(function), args, _] =
            <[WireTerm; 5]>::try_from(t).ok()?
        else {
            return None;
        };
        (kind == "call" || kind == "block_call").then_some(Call {
            module,
            function,
            args,
        })
    }

    /// What Erlang's stack trace of an error in `M:F(Args)` is reduced to by erpc.
    fn stack(&self) -> WireTerm {
        WireTerm::List(vec![WireTerm::Tuple(vec![
            WireTerm::Atom(self.module.clone()),
            WireTerm::Atom(self.function.clone()),
            self.args.clone(),
            WireTerm::List(Vec::new()),
        ])])
    }

    /// Runs the call to its end.
    async fn run(&self, opts: &Options) -> Outcome {
        let call = match self.start(opts) {
            Ok(call) => call,
            Err(reason) => return Outcome::Error(reason),
        };
        match (CatchUnwind(call)).await {
            Ok(value) => Outcome::Return(value),
            Err(message) => Outcome::Error(WireTerm::Tuple(vec![
                atom("rust_panic"),
                WireTerm::Binary(Bytes::from(message)),
            ])),
        }
    }

    /// Finds the function and decodes the arguments, or the error Erlang would raise.
    fn start(&self, opts: &Options) -> Result<BoxFuture<ErasedReply>, WireTerm> {
        let key = (self.module.clone(), self.function.clone());
        let invoke = FUNCTIONS.read().get(&key).cloned();
        let Some(invoke) = invoke else {
            return Err(atom("undef"));
        };
        // The argument list becomes a tuple, the shape of a Rust argument tuple.
        let tuple = match &self.args {
            WireTerm::List(items) => WireTerm::Tuple(items.clone()),
            WireTerm::ByteList(bytes) => {
                WireTerm::Tuple(bytes.iter().map(|&b| WireTerm::Int(b.into())).collect())
            }
            _ => return Err(atom("function_clause")),
        };
        let encoded = tuple.encode().map_err(|_| atom("function_clause"))?;
        invoke(&encoded, opts).map_err(|e| {
            tracing::info!(module = %self.module, function = %self.function, "rpc arguments do not decode: {e}");
            atom("function_clause")
        })
    }
}

fn atom(name: &str) -> WireTerm {
    WireTerm::atom(name).expect("a short atom")
}

/// The exit reason `erpc:execute_call` ends its process with.
struct ErpcExit<'a> {
    res: &'a WireTerm,
    call: &'a Call,
    outcome: &'a Outcome,
}

impl Serialize for ErpcExit<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.outcome {
            Outcome::Return(value) => (self.res, atom("return"), &**value).serialize(s),
            Outcome::Error(reason) => {
                (self.res, atom("error"), reason, self.call.stack()).serialize(s)
            }
        }
    }
}

/// The value `rpc:call` returns: the function's, or `{badrpc, {'EXIT', {Reason, Stack}}}`.
struct RexResult<'a> {
    call: &'a Call,
    outcome: &'a Outcome,
}

impl Serialize for RexResult<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.outcome {
            Outcome::Return(value) => value.serialize(s),
            Outcome::Error(reason) => {
                (atom("badrpc"), (atom("EXIT"), (reason, self.call.stack()))).serialize(s)
            }
        }
    }
}

/// A future whose panic becomes its output (the panic's message), so a panicking
/// function answers its caller instead of leaving it waiting.
struct CatchUnwind(BoxFuture<ErasedReply>);

impl Future for CatchUnwind {
    type Output = Result<ErasedReply, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match std::panic::catch_unwind(AssertUnwindSafe(|| self.0.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Err(panic) => Poll::Ready(Err(panic_message(&*panic))),
        }
    }
}

fn panic_message(panic: &(dyn Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// A frame with this control message and payload, or the error logged.
fn frame<P: Serialize + ?Sized>(
    control: &ControlMessage,
    payload: Option<&P>,
    opts: &Options,
) -> Option<Bytes> {
    let built = FrameBuilder::new(control).and_then(|f| match payload {
        Some(p) => f.payload(p, opts)?.finish(),
        None => f.finish(),
    });
    built
        .map_err(|e| tracing::warn!(op = control.op(), "rpc answer not encodable: {e}"))
        .ok()
}

impl Shared {
    /// A SPAWN_REQUEST: an erpc call is served by a process of its own; anything else is
    /// refused with `notsup`.
    pub(crate) fn spawn_request(&self, peer: &Atom, sender: &DistSender, msg: &DistMessage) {
        let (ControlMessage::SpawnRequest {
            req_id,
            from,
            module,
            function,
            arity,
            options,
            ..
        }
        | ControlMessage::SpawnRequestTt {
            req_id,
            from,
            module,
            function,
            arity,
            options,
            ..
        }) = &msg.control
        else {
            return;
        };
        let replies = Replies::Conn(sender.clone());
        let opts = self.serde;
        let refuse = |reason: &str| {
            let reply = ControlMessage::SpawnReply {
                req_id: req_id.clone(),
                to: from.clone(),
                flags: 0,
                result: atom(reason),
            };
            if let Some(f) = frame::<()>(&reply, None, &opts) {
                replies.send(f);
            }
        };
        if module != "erpc" || function != "execute_call" || *arity != 4 {
            tracing::info!(peer = %peer, "spawn request for {module}:{function}/{arity} refused: remote spawn is not served");
            return refuse("notsup");
        }
        let args = match msg.payload_term(&opts.limits) {
            Ok(WireTerm::List(args)) => <[WireTerm; 4]>::try_from(args).ok(),
            _ => None,
        };
        let Some([res, WireTerm::Atom(module), WireTerm::Atom(function), args]) = args else {
            tracing::info!(peer = %peer, "erpc request with malformed arguments refused");
            return refuse("badarg");
        };
        let has = |option: &str| match options {
            WireTerm::List(o) => o
                .iter()
                .any(|o| matches!(o, WireTerm::Atom(a) if a == option)),
            _ => false,
        };
        let (link, monitor) = (has("link"), has("monitor"));
        let flags = u32::from(link) | (u32::from(monitor) << 1);
        let call = Call {
            module,
            function,
            args,
        };
        let (req_id, caller) = (req_id.clone(), from.clone());
        mote::spawn(move |p: mote::Process<()>| async move {
            let me = node_table::to_wire(p.id());
            let spawned = ControlMessage::SpawnReply {
                req_id: req_id.clone(),
                to: caller.clone(),
                flags,
                result: WireTerm::Pid(me.clone()),
            };
            // Sent by the process itself, so it always precedes the process's end.
            if let Some(f) = frame::<()>(&spawned, None, &opts) {
                replies.send(f);
            }
            let outcome = call.run(&opts).await;
            let reason = ErpcExit {
                res: &res,
                call: &call,
                outcome: &outcome,
            };
            if monitor {
                let down = ControlMessage::PayloadMonitorPExit {
                    from: ProcessRef::Pid(me.clone()),
                    to: caller.clone(),
                    reference: req_id,
                };
                if let Some(f) = frame(&down, Some(&reason), &opts) {
                    replies.send(f);
                }
            }
            if link {
                let exit = ControlMessage::PayloadExit {
                    from: me,
                    to: caller,
                };
                if let Some(f) = frame(&exit, Some(&reason), &opts) {
                    replies.send(f);
                }
            }
        });
    }

    /// A message to `rex`, Erlang's rpc server.
    pub(crate) fn rex(&self, peer: &Atom, replies: Replies, payload: Option<&Bytes>) {
        let opts = self.serde;
        let term = payload.and_then(|p| WireTerm::decode_bytes_with(p, &opts.limits).ok());
        let Some(WireTerm::Tuple(t)) = term else {
            return tracing::debug!(peer = %peer, "message to rex that is not a tuple dropped");
        };
        match <[WireTerm; 3]>::try_from(t) {
            // gen_server:call(rex, {call | block_call, M, F, A, GL}) from rpc:block_call.
            Ok([WireTerm::Atom(label), WireTerm::Tuple(from_tag), request])
                if label == "$gen_call" =>
            {
                let Ok([WireTerm::Pid(from), tag]) = <[WireTerm; 2]>::try_from(from_tag) else {
                    return tracing::debug!(peer = %peer, "malformed $gen_call to rex dropped");
                };
                let Some(call) = Call::from_rex(request) else {
                    return tracing::debug!(peer = %peer, "request to rex not served dropped");
                };
                tokio::spawn(async move {
                    let outcome = call.run(&opts).await;
                    let result = RexResult {
                        call: &call,
                        outcome: &outcome,
                    };
                    match reply_frame(node_pid(), &from, &tag, &result, &opts) {
                        Ok(f) => replies.send(f),
                        Err(e) => tracing::warn!("rpc answer not encodable: {e}"),
                    }
                });
            }
            Ok(_) => tracing::debug!(peer = %peer, "message to rex not served dropped"),
            Err(t) => self.rex_info(peer, replies, t),
        }
    }

    /// `{From, Request}` messages to `rex`: ei's `erl_rpc` calls and the features query.
    fn rex_info(&self, peer: &Atom, replies: Replies, t: Vec<WireTerm>) {
        let opts = self.serde;
        let Ok([WireTerm::Pid(from), request]) = <[WireTerm; 2]>::try_from(t) else {
            return tracing::debug!(peer = %peer, "message to rex not served dropped");
        };
        let send_to = |to: ErlPid| ControlMessage::SendSender {
            from: node_pid(),
            to,
        };
        if request == atom("features_request") {
            let me = WireTerm::Atom(self.local.name.atom().clone());
            let features = (atom("features_reply"), me, vec![atom("erpc")]);
            if let Some(f) = frame(&send_to(from), Some(&features), &opts) {
                replies.send(f);
            }
            return;
        }
        let Some(call) = Call::from_rex(request) else {
            return tracing::debug!(peer = %peer, "request to rex not served dropped");
        };
        tokio::spawn(async move {
            let outcome = call.run(&opts).await;
            let result = RexResult {
                call: &call,
                outcome: &outcome,
            };
            if let Some(f) = frame(&send_to(from), Some(&(atom("rex"), result)), &opts) {
                replies.send(f);
            }
        });
    }
}
