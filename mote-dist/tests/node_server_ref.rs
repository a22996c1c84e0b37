//! `ServerRef`s of servers on other nodes, used as local ones: a mote node calls, casts,
//! sends info to and stops mote servers of a second mote node (a copy of this test binary
//! in its own OS process: the `child_node` test, which does nothing unless
//! `MOTE_CHILD_EPMD` is set) through references made by `{Name, Node}`, received inside a
//! message and received inside a call's reply; and an Erlang `gen_server` through one
//! (tests/erl/mote_kv.erl).
//!
//! One mote node per OS process, so the tests of this file share it (and a tokio runtime
//! that outlives each test).

mod common;

use std::time::Duration;

use common::{erl, erl_or_skip, run, unique, WAIT};
use mote::server::{self, CallError, Context, Next, ReplyTo, Server, ServerRef, StopError};
use mote::{ExitReason, Process};
use mote_dist::etf::{Atom, WireTerm};
use mote_dist::node::{Node, NodeOptions};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::OnceCell;

const COOKIE: &str = "node_server_ref_cookie";

/// Tests that count the node's pending calls take turns (the count is the node's).
static CALLERS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A counter's requests.
#[derive(Debug, Serialize, Deserialize)]
enum CounterCall {
    Add(i64),
    Get,
    /// Sleeps inside the server, then replies the count.
    Sleep(u64),
    /// Stops the server with the reason named, without replying (after a short sleep, so
    /// the caller is waiting).
    StopWith(String),
}

/// A counter: calls, casts and info messages all add to it.
struct Counter(i64);

impl Server for Counter {
    type Call = CounterCall;
    type Reply = i64;
    type Cast = i64;
    type Info = i64;

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
            CounterCall::StopWith(reason) => {
                mote::sleep(Duration::from_millis(100)).await;
                drop(from);
                return Next::Stop(reason_named(&reason));
            }
        }
        from.reply(self.0);
        Next::Continue
    }

    async fn handle_cast(&mut self, n: i64, _: &mut Context<Self>) -> Next {
        self.0 += n;
        Next::Continue
    }

    async fn handle_info(&mut self, n: i64, _: &mut Context<Self>) -> Next {
        self.0 += n;
        Next::Continue
    }
}

/// The exit reasons the tests use, by name.
fn reason_named(name: &str) -> ExitReason {
    match name {
        "normal" => ExitReason::Normal,
        "boom" => ExitReason::custom("boom"),
        "shutdown_bye" => ExitReason::shutdown_with(mote::Term::atom("bye")),
        other => panic!("no reason named {other}"),
    }
}

/// Makes counters on the child node and answers with references to them.
struct Factory;

#[derive(Debug, Serialize, Deserialize)]
enum FactoryCall {
    /// A new counter starting at this count, served (under a fresh name).
    NewCounter(i64),
    /// Whether this reference, sent back, is a local server of this node (it deserialized
    /// here as a checked local `ServerRef`), and its count.
    Count(ServerRef<Counter>),
}

#[derive(Debug, Serialize, Deserialize)]
enum FactoryReply {
    Counter(ServerRef<Counter>),
    Count(i64),
}

impl Server for Factory {
    type Call = FactoryCall;
    type Reply = FactoryReply;
    type Cast = ();
    type Info = ();

    async fn handle_call(
        &mut self,
        call: FactoryCall,
        from: ReplyTo<FactoryReply>,
        _: &mut Context<Self>,
    ) -> Next {
        match call {
            FactoryCall::NewCounter(n) => {
                let c = server::start(Counter(n)).await.unwrap();
                mote_dist::node::serve(&unique("counter"), c).unwrap();
                from.reply(FactoryReply::Counter(c));
            }
            FactoryCall::Count(c) => {
                assert!(
                    c.id().is_local(),
                    "a reference to our own server is local here"
                );
                // A local call from inside a server: answered after this handler returns.
                mote::spawn(move |_p: Process<()>| async move {
                    let n = c.call(CounterCall::Get, WAIT).await.unwrap();
                    from.reply(FactoryReply::Count(n));
                });
            }
        }
        Next::Continue
    }
}

/// What the parent's inbox receives from the child: a reference to its `counter`.
#[derive(Debug, Serialize, Deserialize)]
enum Hello {
    Counter(ServerRef<Counter>),
}

/// The second node (run by [`parent_and_child`] in a child process).
#[test]
fn child_node() {
    let Ok(epmd) = std::env::var("MOTE_CHILD_EPMD") else {
        return; // run directly: nothing to do
    };
    let parent = std::env::var("MOTE_PARENT_NODE").unwrap();
    let name = std::env::var("MOTE_CHILD_NAME").unwrap();
    mote::run(move |_p: Process<()>| async move {
        let node = NodeOptions::new(name)
            .cookie(COOKIE)
            .epmd_port(epmd.parse().unwrap())
            .start()
            .await
            .expect("child node starts");
        let counter = server::start(Counter(0)).await.unwrap();
        mote_dist::node::serve("counter", counter).unwrap();
        let factory = server::start(Factory).await.unwrap();
        mote_dist::node::serve("factory", factory).unwrap();
        // A reference inside a message: the parent's inbox gets our counter.
        node.send_named("inbox", &parent, &Hello::Counter(counter));
        println!("child_ready");
        mote::sleep(WAIT * 3).await;
    })
    .unwrap_or_else(|e| panic!("child run failed: {e:?}"));
}

/// The mote node of this test process, and its EPMD port.
async fn node() -> &'static (Node, u16) {
    static NODE: OnceCell<(Node, u16)> = OnceCell::const_new();
    NODE.get_or_init(|| common::start_node(COOKIE)).await
}

/// Starts the child node; returns it (killed when dropped), its name, and the reference
/// to its `counter` it sent in a message.
async fn start_child(
    node: &Node,
    epmd_port: u16,
) -> (tokio::process::Child, String, ServerRef<Counter>) {
    let child_name = format!("{}@127.0.0.1", unique("child"));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let inbox = mote::spawn(move |mut p: Process<Hello>| async move {
        while let Some(hello) = p.recv_timeout(WAIT).await {
            let _ = tx.send(hello);
        }
    });
    mote_dist::node::register("inbox", inbox).unwrap();
    let mut child = tokio::process::Command::new(std::env::current_exe().unwrap())
        .args(["child_node", "--exact", "--nocapture", "--test-threads=1"])
        .env("MOTE_CHILD_EPMD", epmd_port.to_string())
        .env("MOTE_PARENT_NODE", node.name().as_str())
        .env("MOTE_CHILD_NAME", &child_name)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    tokio::time::timeout(WAIT, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.contains("child_ready") {
                return;
            }
        }
        panic!("the child ended before it was ready");
    })
    .await
    .expect("the child node starts");
    let Hello::Counter(counter) = tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("the child's hello in time")
        .expect("the inbox is alive");
    (child, child_name, counter)
}

/// Calls, casts, info messages and stops through references to servers of another mote
/// node: by `{Name, Node}`, received in a message and in a reply; the errors of a local
/// call (NoProc, Exit mid-call, Timeout, the node unreachable).
#[test]
fn a_server_ref_of_another_mote_node_works_as_a_local_one() {
    if std::env::var("MOTE_CHILD_EPMD").is_ok() {
        return; // inside the child
    }
    run(async {
        let _turn = CALLERS.lock().await;
        let (node, epmd_port) = node().await;
        let (mut child, child_name, from_message) = start_child(node, *epmd_port).await;
        let t = WAIT;

        // By {Name, Node}: the same server as the one in the message.
        let by_name = node.server::<Counter>("counter", &child_name).unwrap();
        assert_eq!(by_name.remote_name().map(|n| n.as_str()), Some("counter"));
        assert!(!from_message.id().is_local());
        assert_eq!(by_name.call(CounterCall::Add(5), t).await, Ok(5));
        assert_eq!(from_message.call(CounterCall::Get, t).await, Ok(5));
        // A cast and an info message, then a call behind them on the one connection.
        by_name.cast(2);
        from_message.info(3);
        from_message.cast(10);
        by_name.info(20);
        assert_eq!(by_name.call(CounterCall::Get, t).await, Ok(40));

        // Timeout: the late reply is dropped, the next call gets its own.
        let r = by_name
            .call(CounterCall::Sleep(500), Duration::from_millis(50))
            .await;
        assert_eq!(r, Err(CallError::Timeout));
        assert_eq!(
            node.pending_calls(),
            0,
            "a call that timed out leaves no entry"
        );
        assert_eq!(from_message.call(CounterCall::Add(1), t).await, Ok(41));

        // NoProc: nobody has the name there.
        let nobody = node.server::<Counter>("nobody_here", &child_name).unwrap();
        let started = std::time::Instant::now();
        assert_eq!(
            nobody.call(CounterCall::Get, t).await,
            Err(CallError::NoProc)
        );
        assert!(
            started.elapsed() < t,
            "noproc came from the monitor, not the timeout"
        );
        nobody.cast(1); // a silent success, as gen_server:cast

        // A reference inside a reply: a new counter of the child's factory.
        let factory = node.server::<Factory>("factory", &child_name).unwrap();
        let FactoryReply::Counter(made) =
            factory.call(FactoryCall::NewCounter(100), t).await.unwrap()
        else {
            panic!("expected a counter")
        };
        assert_eq!(made.call(CounterCall::Add(1), t).await, Ok(101));
        // Sent back to its node, it is a checked local reference there.
        let FactoryReply::Count(n) = factory.call(FactoryCall::Count(made), t).await.unwrap()
        else {
            panic!("expected a count")
        };
        assert_eq!(n, 101);

        // The server ends during the call: Exit with its reason, then NoProc.
        let r = made
            .call(CounterCall::StopWith("shutdown_bye".into()), t)
            .await;
        assert_eq!(r, Err(CallError::Exit(reason_named("shutdown_bye"))));
        assert_eq!(made.call(CounterCall::Get, t).await, Err(CallError::NoProc));

        // Stop through a remote reference (gen_server:stop's protocol), then NoProc.
        let FactoryReply::Counter(other) =
            factory.call(FactoryCall::NewCounter(0), t).await.unwrap()
        else {
            panic!("expected a counter")
        };
        assert_eq!(other.stop(reason_named("shutdown_bye"), t).await, Ok(()));
        assert_eq!(
            other.call(CounterCall::Get, t).await,
            Err(CallError::NoProc)
        );
        assert_eq!(
            other.stop(ExitReason::Normal, t).await,
            Err(StopError::NoProc)
        );

        // Stopped by name: the name's server ends normally.
        assert_eq!(by_name.stop(ExitReason::Normal, t).await, Ok(()));
        assert_eq!(
            by_name.call(CounterCall::Get, t).await,
            Err(CallError::NoProc)
        );
        assert_eq!(
            from_message.call(CounterCall::Get, t).await,
            Err(CallError::NoProc)
        );
        assert_eq!(node.pending_calls(), 0);

        // The child's node goes away: a call to it fails at once with noconnection.
        let FactoryReply::Counter(last) =
            factory.call(FactoryCall::NewCounter(0), t).await.unwrap()
        else {
            panic!("expected a counter")
        };
        let waiting = tokio::spawn(last.call(CounterCall::Sleep(60_000), t));
        tokio::time::sleep(Duration::from_millis(200)).await;
        child.kill().await.unwrap();
        let r = tokio::time::timeout(t, waiting).await.unwrap().unwrap();
        assert_eq!(r, Err(CallError::Exit(ExitReason::NoConnection)));
    });
}

/// A node that cannot be reached, and a malformed node name: `Exit(noconnection)` at once.
#[test]
fn a_server_ref_of_an_unreachable_node_fails_with_noconnection() {
    if std::env::var("MOTE_CHILD_EPMD").is_ok() {
        return;
    }
    run(async {
        let (node, _) = node().await;
        let t = WAIT;
        for at in ["nobody@127.0.0.1", "no_host_part"] {
            let s = node.server::<Counter>("counter", at).unwrap();
            let started = std::time::Instant::now();
            assert_eq!(
                s.call(CounterCall::Get, t).await,
                Err(CallError::Exit(ExitReason::NoConnection)),
                "{at}"
            );
            assert!(started.elapsed() < t);
            s.cast(1);
            s.info(1);
        }
        // This node's own name: looked up now, a local reference.
        let mine = server::start(Counter(7)).await.unwrap();
        let name = unique("mine");
        mote::register(&name, mine.pid()).unwrap();
        let local = node.server::<Counter>(&name, node.name().as_str()).unwrap();
        assert_eq!(local, mine);
        assert_eq!(local.call(CounterCall::Get, t).await, Ok(7));
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

/// The mote view of tests/erl/mote_kv.erl: `{put, K, V}` and `{get, K}` as calls,
/// `{put, K, V}` as a cast.
struct Kv;

#[derive(Debug, Serialize)]
enum KvCall {
    Put(Atom, String),
    Get(Atom),
    Sleep(u64),
}

impl Server for Kv {
    type Call = KvCall;
    type Reply = WireTerm;
    type Cast = KvCall;
    type Info = ();
}

/// A `ServerRef` to an Erlang `gen_server`: a call, a cast, a timeout, a stop.
#[test]
fn a_server_ref_reaches_an_erlang_gen_server() {
    if std::env::var("MOTE_CHILD_EPMD").is_ok()
        || !erl_or_skip("a_server_ref_reaches_an_erlang_gen_server")
    {
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
        let t = WAIT;
        let who = || Atom::new("who").unwrap();

        let kv = node.server::<Kv>("kv", &erl_name).unwrap();
        let ok = kv.call(KvCall::Put(who(), "mote".into()), t).await.unwrap();
        assert_eq!(ok, WireTerm::atom("ok").unwrap());
        // A cast, then a call behind it: the cast was handled first.
        kv.cast(KvCall::Put(who(), "cast".into()));
        let got = kv.call(KvCall::Get(who()), t).await.unwrap();
        assert_eq!(got, WireTerm::Binary(bytes::Bytes::from_static(b"cast")));

        let r = kv.call(KvCall::Sleep(300), Duration::from_millis(50)).await;
        assert_eq!(r, Err(CallError::Timeout));
        assert_eq!(node.pending_calls(), 0);

        let nobody = node.server::<Kv>("nobody_here", &erl_name).unwrap();
        assert_eq!(
            nobody.call(KvCall::Get(who()), t).await,
            Err(CallError::NoProc)
        );

        // gen_server:stop's protocol: the Erlang server terminates with the reason.
        let reason = ExitReason::shutdown_with(mote::Term::atom("bye"));
        assert_eq!(kv.stop(reason, t).await, Ok(()));
        assert_eq!(kv.call(KvCall::Get(who()), t).await, Err(CallError::NoProc));
        erl.kill().await;
    });
}
