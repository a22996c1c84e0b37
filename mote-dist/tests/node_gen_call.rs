//! `gen_server` calls and `rpc` between a mote node and real `erl` nodes: Erlang calling
//! a served mote server (by name and pid, an undecodable request, a slow server, a late
//! reply), mote calling an Erlang `gen_server` (by name and pid, timeout, a reply of the
//! wrong type, an unreachable node), and `rpc:call`/`erpc:call`/`rpc:block_call`/`rex`
//! into registered mote functions (success, `undef` as Erlang gives it, bad arguments, a
//! panic, a timeout, a refused remote spawn).
//!
//! One mote node per OS process, so every test of this file shares it (and a tokio
//! runtime that outlives each test).

mod common;

use std::time::Duration;

use common::{erl, erl_or_skip, unique, within};
use mote::server::{self, Context, Next, ReplyTo, Server};
use mote_dist::connection::{ControlMessage, FrameBuilder};
use mote_dist::etf::{Atom, ErlPid, WireTerm};
use mote_dist::node::{Node, RemoteCallError};
use serde::Deserialize;
use tokio::sync::OnceCell;

const COOKIE: &str = "node_gen_call_cookie";

/// The mote node of this test process, and its EPMD port.
async fn node() -> &'static (Node, u16) {
    static NODE: OnceCell<(Node, u16)> = OnceCell::const_new();
    NODE.get_or_init(|| common::start_node(COOKIE)).await
}

use common::run;

/// Tests that count the node's pending calls take turns (the count is the node's).
static CALLERS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn atom(s: &str) -> Atom {
    Atom::new(s).unwrap()
}

/// A counter's requests, as Erlang writes them: `{add, N}`, `get`, `{sleep, Ms}`.
#[derive(Debug, Deserialize)]
enum CounterCall {
    Add(i64),
    Get,
    /// Sleeps inside the server, then replies the count.
    Sleep(u64),
}

struct Counter(i64);

impl Server for Counter {
    type Call = CounterCall;
    type Reply = i64;
    type Cast = ();
    type Info = ();

    async fn handle_call(
        &mut self,
        call: CounterCall,
        from: ReplyTo<i64>,
        _: &mut Context<Self>,
    ) -> Next {
        match call {
            CounterCall::Add(n) => self.0 += n,
            CounterCall::Get => {}
            CounterCall::Sleep(ms) => mote::sleep(Duration::from_millis(ms)).await,
        }
        from.reply(self.0);
        Next::Continue
    }
}

/// Erlang calls two served mote servers: by name, by pid; a request that does not decode
/// times out and leaves the server serving; a slow call to one server does not hold up a
/// call to the other on the same connection; a reply after the caller's timeout does not
/// reach its mailbox.
#[test]
fn erl_calls_a_served_mote_server() {
    if !erl_or_skip("erl_calls_a_served_mote_server") {
        return;
    }
    run(async {
        let (node, epmd_port) = node().await;
        let (counter, other) = (unique("counter"), unique("other"));
        let c = server::start(Counter(0)).await.unwrap();
        mote_dist::node::serve(&counter, c).unwrap();
        let o = server::start(Counter(0)).await.unwrap();
        mote_dist::node::serve(&other, o).unwrap();
        assert_eq!(
            mote::whereis(&counter),
            Some(c.id()),
            "served under its name"
        );

        let erl_name = format!("{}@127.0.0.1", unique("erl"));
        let eval = format!(
            "Mote = '{mote}', C = {{'{counter}', Mote}}, O = {{'{other}', Mote}}, \
             5 = gen_server:call(C, {{add, 5}}), \
             7 = gen_server:call(C, {{add, 2}}), \
             io:format(\"get ~p~n\", [gen_server:call(C, get)]), \
             {{'EXIT', {{Bogus, _}}}} = (catch gen_server:call(C, {{bogus, 1}}, 500)), \
             io:format(\"bogus ~p ~p~n\", [Bogus, gen_server:call(C, get)]), \
             Self = self(), \
             spawn(fun() -> Self ! {{slow, gen_server:call(C, {{sleep, 2000}})}} end), \
             timer:sleep(200), \
             T0 = erlang:monotonic_time(millisecond), \
             1 = gen_server:call(O, {{add, 1}}), \
             io:format(\"other_ms ~p~n\", [erlang:monotonic_time(millisecond) - T0]), \
             receive {{slow, 7}} -> ok after 10000 -> exit(no_slow_reply) end, \
             {{'EXIT', {{Late, _}}}} = (catch gen_server:call(C, {{sleep, 400}}, 50)), \
             timer:sleep(1000), \
             {{message_queue_len, Stray}} = process_info(self(), message_queue_len), \
             io:format(\"late ~p ~p~n\", [Late, Stray]), \
             register(tester, self()), io:format(\"registered~n\"), \
             receive {{server, P}} -> io:format(\"by_pid ~p ~p~n\", [node(P), gen_server:call(P, {{add, 3}})]) \
               after 30000 -> exit(no_pid) end, \
             halt().",
            mote = node.name(),
        );
        let mut erl = erl("-name", &erl_name, COOKIE, *epmd_port, &[], &eval);
        assert_eq!(erl.expect("get").await, "7");
        assert_eq!(erl.expect("bogus").await, "timeout 7");
        let other_ms: u64 = erl.expect("other_ms").await.parse().unwrap();
        assert!(
            other_ms < 1500,
            "a call to another server waited for the slow one: {other_ms} ms"
        );
        assert_eq!(erl.expect("late").await, "timeout 0", "no stray late reply");
        erl.expect("registered").await;
        let pid = WireTerm::Pid(mote_dist::node_table::to_wire(c.id()));
        node.send_named("tester", &erl_name, &(atom("server"), pid));
        assert_eq!(erl.expect("by_pid").await, format!("'{}' 10", node.name()));
    });
}

/// Compiles `tests/erl/mote_kv.erl` into a fresh directory.
fn compile_kv() -> std::path::PathBuf {
    let ebin = std::env::temp_dir().join(unique("mote_kv_ebin"));
    std::fs::create_dir_all(&ebin).unwrap();
    let erlc = std::process::Command::new("erlc")
        .arg("-o")
        .arg(&ebin)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/erl/mote_kv.erl"
        ))
        .status()
        .unwrap();
    assert!(erlc.success());
    ebin
}

/// mote calls a real `gen_server` (tests/erl/mote_kv.erl): by name and by pid, a reply
/// that does not decode as asked, a timeout whose late reply is dropped, an unknown name,
/// an unreachable node, malformed addresses.
#[test]
fn mote_calls_an_erlang_gen_server() {
    if !erl_or_skip("mote_calls_an_erlang_gen_server") {
        return;
    }
    run(async {
        let _turn = CALLERS.lock().await;
        let (node, epmd_port) = node().await;
        let ebin = compile_kv();
        let erl_name = format!("{}@127.0.0.1", unique("kv"));
        let mut erl = erl(
            "-name",
            &erl_name,
            COOKIE,
            *epmd_port,
            &["-pa", ebin.to_str().unwrap()],
            "mote_kv:start(kv).",
        );
        erl.expect("ready").await;
        let t = Duration::from_secs(10);

        let put = (atom("put"), atom("who"), "mote");
        let ok: Atom = node.call("kv", &erl_name, &put, t).await.unwrap();
        assert_eq!(ok, "ok");
        let who: String = node
            .call("kv", &erl_name, &(atom("get"), atom("who")), t)
            .await
            .unwrap();
        assert_eq!(who, "mote");

        // By pid: the server's pid, as the server itself gives it.
        let pid: ErlPid = node.call("kv", &erl_name, &atom("self"), t).await.unwrap();
        assert_eq!(pid.node.as_str(), erl_name);
        let id = mote_dist::node_table::from_wire(&pid);
        let who: String = node
            .call_pid(id, &(atom("get"), atom("who")), t)
            .await
            .unwrap();
        assert_eq!(who, "mote");

        // A reply of another type than asked for.
        let r = node
            .call::<_, i64>("kv", &erl_name, &(atom("get"), atom("who")), t)
            .await;
        assert!(matches!(r, Err(RemoteCallError::BadReply(_))), "{r:?}");

        // A timeout: the entry goes at once, and the late reply finds none.
        let slow = (atom("sleep"), 500);
        let r = node
            .call::<_, WireTerm>("kv", &erl_name, &slow, Duration::from_millis(50))
            .await;
        assert!(matches!(r, Err(RemoteCallError::Timeout)), "{r:?}");
        assert_eq!(node.pending_calls(), 0);
        tokio::time::sleep(Duration::from_millis(900)).await;
        assert_eq!(node.pending_calls(), 0);
        let slept: (Atom, i64) = node
            .call("kv", &erl_name, &(atom("sleep"), 1), t)
            .await
            .unwrap();
        assert_eq!(
            slept,
            (atom("slept"), 1),
            "the late reply was not taken for this one"
        );

        // Nobody holds the name: the call's monitor says `noproc` long before the timeout.
        let started = std::time::Instant::now();
        let r = node
            .call::<_, WireTerm>("nobody_here", &erl_name, &atom("get"), t)
            .await;
        assert!(matches!(r, Err(RemoteCallError::NoProc)), "{r:?}");
        assert!(
            started.elapsed() < t,
            "noproc came from the monitor, not the timeout"
        );
        assert_eq!(node.pending_calls(), 0);

        let r = node
            .call::<_, WireTerm>("kv", "nobody@127.0.0.1", &atom("get"), t)
            .await;
        assert!(matches!(r, Err(RemoteCallError::NoConnection)), "{r:?}");
        let r = node
            .call::<_, WireTerm>("kv", "no_host_part", &atom("get"), t)
            .await;
        assert!(matches!(r, Err(RemoteCallError::BadAddress(_))), "{r:?}");
        assert_eq!(node.pending_calls(), 0);

        // The server ends without replying: the call fails with its reason, at once.
        let stop = (atom("stop"), (atom("shutdown"), atom("bye")));
        let r = node.call::<_, WireTerm>("kv", &erl_name, &stop, t).await;
        match r {
            Err(RemoteCallError::Exit(reason)) => {
                assert_eq!(
                    reason,
                    mote::ExitReason::shutdown_with(mote::Term::atom("bye"))
                )
            }
            other => panic!("expected the server's exit reason, got {other:?}"),
        }
        assert_eq!(node.pending_calls(), 0);
        erl.kill().await;
    });
}

/// A node calls a server it serves itself, by name and by pid, through the same encoding
/// (runs without erl).
#[test]
fn node_calls_its_own_served_server() {
    run(async {
        let _turn = CALLERS.lock().await;
        let (node, _) = node().await;
        let name = unique("self_counter");
        let c = server::start(Counter(40)).await.unwrap();
        mote_dist::node::serve(&name, c).unwrap();
        let me = node.name().as_str();
        let t = Duration::from_secs(10);
        let add = WireTerm::Tuple(vec![WireTerm::atom("add").unwrap(), WireTerm::Int(2)]);
        let n: i64 = node.call(&name, me, &add, t).await.unwrap();
        assert_eq!(n, 42);
        let n: i64 = node.call_pid(c.id(), &atom("get"), t).await.unwrap();
        assert_eq!(n, 42);
        // A request the server's type does not have: not answered.
        let r = node
            .call::<_, i64>(&name, me, &atom("bogus"), Duration::from_millis(200))
            .await;
        assert!(matches!(r, Err(RemoteCallError::Timeout)), "{r:?}");
        assert_eq!(node.pending_calls(), 0);
        // The name is taken by the server: serving it again is fine, another is refused.
        mote_dist::node::serve(&name, c).unwrap();
        let o = server::start(Counter(0)).await.unwrap();
        assert!(mote_dist::node::serve(&name, o).is_err());
    });
}

/// `rpc:call`, `erpc:call`, `rpc:block_call` and a raw `rex` request from Erlang reach
/// registered mote functions; an unknown function fails exactly as between two Erlang
/// nodes; bad arguments, a panic, a timeout and a refused remote spawn.
#[test]
fn erl_rpc_calls_registered_functions() {
    if !erl_or_skip("erl_rpc_calls_registered_functions") {
        return;
    }
    run(async {
        let (node, epmd_port) = node().await;
        let m = unique("math");
        mote_dist::node::register_fn(&m, "add", |(a, b): (i64, i64)| async move { a + b }).unwrap();
        mote_dist::node::register_fn(&m, "greet", |(who,): (String,)| async move {
            format!("hello {who}")
        })
        .unwrap();
        mote_dist::node::register_fn(&m, "boom", |(): ()| async move {
            if true {
                panic!("boom");
            }
        })
        .unwrap();
        mote_dist::node::register_fn(&m, "sleep", |(ms,): (u64,)| async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            ms
        })
        .unwrap();

        let erl_name = format!("{}@127.0.0.1", unique("erl"));
        let eval = format!(
            "Mote = '{mote}', M = '{m}', \
             io:format(\"add ~p ~p~n\", [rpc:call(Mote, M, add, [1, 2]), rpc:call(Mote, M, add, [1000, 2000])]), \
             io:format(\"greet ~p~n\", [rpc:call(Mote, M, greet, [<<\"erl\">>])]), \
             U = rpc:call(Mote, nomod, nofun, [1, 2]), L = rpc:call(node(), nomod, nofun, [1, 2]), \
             io:format(\"undef ~p ~p~n\", [U =:= L, U]), \
             io:format(\"clause ~p~n\", [rpc:call(Mote, M, add, [a])]), \
             io:format(\"panic ~p~n\", [rpc:call(Mote, M, boom, [])]), \
             io:format(\"erpc ~p~n\", [erpc:call(Mote, M, add, [5, 6])]), \
             io:format(\"block ~p~n\", [rpc:block_call(Mote, M, add, [2, 3])]), \
             BU = rpc:block_call(Mote, nomod, nofun, [1]), BL = rpc:block_call(node(), nomod, nofun, [1]), \
             io:format(\"block_undef ~p ~p~n\", [BU =:= BL, BU]), \
             {{rex, Mote}} ! {{self(), {{call, M, add, [4, 5], user}}}}, \
             receive {{rex, R}} -> io:format(\"rex ~p~n\", [R]) after 10000 -> exit(no_rex) end, \
             io:format(\"timeout ~p~n\", [rpc:call(Mote, M, sleep, [2000], 100)]), \
             ReqId = erlang:spawn_request(Mote, lists, seq, [1, 2], []), \
             receive {{spawn_reply, ReqId, Status, Why}} -> io:format(\"spawn ~p ~p~n\", [Status, Why]) \
               after 10000 -> exit(no_spawn_reply) end, \
             io:format(\"after ~p~n\", [rpc:call(Mote, M, add, [7, 8])]), \
             halt().",
            mote = node.name(),
        );
        let mut erl = erl("-name", &erl_name, COOKIE, *epmd_port, &[], &eval);
        assert_eq!(erl.expect("add").await, "3 3000");
        assert_eq!(erl.expect("greet").await, "<<\"hello erl\">>");
        assert_eq!(
            erl.expect("undef").await,
            "true {badrpc,{'EXIT',{undef,[{nomod,nofun,[1,2],[]}]}}}"
        );
        assert_eq!(
            erl.expect("clause").await,
            format!("{{badrpc,{{'EXIT',{{function_clause,[{{{m},add,[a],[]}}]}}}}}}")
        );
        assert_eq!(
            erl.expect("panic").await,
            format!("{{badrpc,{{'EXIT',{{{{rust_panic,<<\"boom\">>}},[{{{m},boom,[],[]}}]}}}}}}")
        );
        assert_eq!(erl.expect("erpc").await, "11");
        assert_eq!(erl.expect("block").await, "5");
        assert_eq!(
            erl.expect("block_undef").await,
            "true {badrpc,{'EXIT',{undef,[{nomod,nofun,[1],[]}]}}}"
        );
        assert_eq!(erl.expect("rex").await, "9");
        assert_eq!(erl.expect("timeout").await, "{badrpc,timeout}");
        assert_eq!(erl.expect("spawn").await, "error notsup");
        assert_eq!(erl.expect("after").await, "15");
    });
}

/// The reply's route, seen on the wire by a node made of this crate's parts (runs without
/// erl): a call tagged `[alias | Ref]` (OTP 24+) is answered through the alias
/// (ALIAS_SEND), so the caller's node drops a reply that comes after the caller gave up;
/// a plain reference tag is answered by a send to the caller's pid. Both echo the tag.
#[test]
fn served_replies_go_through_the_callers_alias() {
    run(async {
        let (node, epmd_port) = node().await;
        let name = unique("alias_counter");
        let c = server::start(Counter(1)).await.unwrap();
        mote_dist::node::serve(&name, c).unwrap();
        let mut peer = common::TestNode::start(
            &format!("{}@127.0.0.1", unique("raw")),
            COOKIE,
            *epmd_port,
            false,
        )
        .await;
        let mote_name: mote_dist::handshake::NodeName = node.name().as_str().parse().unwrap();
        let to_mote = within("connecting to the mote node", peer.connect(&mote_name))
            .await
            .unwrap();
        let caller = peer.pid(7);
        let reference = peer.reference(&[1, 2, 3]);
        let alias_tag = WireTerm::ImproperList(
            vec![WireTerm::atom("alias").unwrap()],
            Box::new(WireTerm::Ref(reference.clone())),
        );
        let plain_tag = WireTerm::Ref(peer.reference(&[4, 5, 6]));
        for tag in [alias_tag.clone(), plain_tag.clone()] {
            let call = WireTerm::Tuple(vec![
                WireTerm::atom("$gen_call").unwrap(),
                WireTerm::Tuple(vec![WireTerm::Pid(caller.clone()), tag]),
                WireTerm::atom("get").unwrap(),
            ]);
            let frame = FrameBuilder::new(&ControlMessage::RegSend {
                from: caller.clone(),
                to_name: atom(&name),
            })
            .unwrap()
            .payload_term(&call)
            .unwrap()
            .finish()
            .unwrap();
            to_mote.send(frame).await.unwrap();
        }
        // Each call's reply is sent by a task of its own: they may come in either order.
        let (_, first) = peer.next_message().await;
        let (_, second) = peer.next_message().await;
        let (by_alias, by_pid) = match first.control {
            ControlMessage::AliasSend { .. } => (first, second),
            _ => (second, first),
        };
        match &by_alias.control {
            ControlMessage::AliasSend { from, alias } => {
                assert_eq!(alias, &reference);
                assert_eq!(from, &mote_dist::node_table::to_wire(c.id()));
            }
            other => panic!("an [alias | Ref] call answered with {other:?}"),
        }
        let reply = by_alias.payload_term(&Default::default()).unwrap();
        assert_eq!(reply, WireTerm::Tuple(vec![alias_tag, WireTerm::Int(1)]));
        match &by_pid.control {
            ControlMessage::SendSender { to, .. } => assert_eq!(to, &caller),
            other => panic!("a plain-tag call answered with {other:?}"),
        }
        let reply = by_pid.payload_term(&Default::default()).unwrap();
        assert_eq!(reply, WireTerm::Tuple(vec![plain_tag, WireTerm::Int(1)]));
    });
}
