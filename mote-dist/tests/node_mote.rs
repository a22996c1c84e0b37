//! Two mote nodes in two OS processes: this test binary starts a copy of itself as the
//! second node (the `child_node` test, which does nothing unless `MOTE_CHILD_EPMD` is
//! set). Typed messages go both ways, by name and by pid, and the pids inside them work
//! on the other node unchanged.

mod common;

use std::time::Duration;

use mote::{Pid, Process};
use mote_dist::node::NodeOptions;
use tokio::io::{AsyncBufReadExt, BufReader};

const COOKIE: &str = "node_mote_cookie";
const WAIT: Duration = Duration::from_secs(60);

/// The second node (run by `two_mote_nodes_exchange_typed_messages` in a child process).
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
        // Answers `(ReplyTo, Text)` with the text in upper case, at `ReplyTo`.
        let echo = mote::spawn(|mut p: Process<(Pid<String>, String)>| async move {
            while let Some((reply_to, text)) = p.recv_timeout(WAIT).await {
                reply_to.send(text.to_uppercase());
            }
        });
        mote_dist::node::register("upper", echo).unwrap();
        // Spawns a worker per request and answers with its pid.
        let factory = mote::spawn(|mut p: Process<Pid<ToParent>>| async move {
            while let Some(reply_to) = p.recv_timeout(WAIT).await {
                let worker = mote::spawn(|mut w: Process<WorkerCmd>| async move {
                    match w.recv_timeout(WAIT).await {
                        Some(WorkerCmd::ExitWith(reason)) => w.exit(reason_named(&reason)),
                        None => {}
                    }
                });
                mote::dist::expose(worker);
                reply_to.send(ToParent::Worker(worker));
            }
        });
        mote_dist::node::register("factory", factory).unwrap();
        // Functions other nodes may spawn here.
        mote_dist::node::register_spawn(
            "remote",
            "worker",
            |(_,): (u8,), w: Process<WorkerCmd>| worker_body(w),
        )
        .unwrap();
        mote_dist::node::register_spawn(
            "remote",
            "hello",
            |(to,): (Pid<ToParent>,), w: Process<WorkerCmd>| async move {
                to.send(ToParent::Worker(w.pid()));
                worker_body(w).await
            },
        )
        .unwrap();
        // The child dials the parent: a send by name to a node not connected yet.
        node.send_named("inbox", &parent, &"hello from the child".to_string());
        println!("child_ready");
        mote::sleep(WAIT).await;
    })
    .unwrap_or_else(|e| panic!("child run failed: {e:?}"));
}

/// A worker: ends with the reason it is told.
async fn worker_body(mut w: Process<WorkerCmd>) {
    if let Some(WorkerCmd::ExitWith(reason)) = w.recv_timeout(WAIT).await {
        w.exit(reason_named(&reason))
    }
}

/// What a worker on the child node is told.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
enum WorkerCmd {
    ExitWith(String),
}

/// The exit reasons the semantics cases use, by name.
fn reason_named(name: &str) -> mote::ExitReason {
    match name {
        "normal" => mote::ExitReason::Normal,
        "boom" => mote::ExitReason::custom("boom"),
        "shutdown_x" => mote::ExitReason::shutdown_with(mote::Term::atom("x")),
        other => panic!("no reason named {other}"),
    }
}

/// What the parent's test process receives.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
enum ToParent {
    Worker(Pid<WorkerCmd>),
    #[serde(skip)]
    Exit(mote::Exit),
    #[serde(skip)]
    Down(mote::Down),
}

impl From<mote::Exit> for ToParent {
    fn from(e: mote::Exit) -> Self {
        ToParent::Exit(e)
    }
}

impl From<mote::Down> for ToParent {
    fn from(d: mote::Down) -> Self {
        ToParent::Down(d)
    }
}

async fn next(p: &mut Process<ToParent>) -> ToParent {
    p.recv_timeout(WAIT).await.expect("a signal in time")
}

async fn new_worker(p: &mut Process<ToParent>) -> Pid<WorkerCmd> {
    match next(p).await {
        ToParent::Worker(w) => w,
        other => panic!("expected a worker, got {other:?}"),
    }
}

/// The local semantics of links, monitors and exit reasons, with the other process on
/// the child node (run from `two_mote_nodes_exchange_typed_messages`, which owns the
/// child).
async fn semantics_across_nodes(
    p: &mut Process<ToParent>,
    child: &str,
    node: &mote_dist::node::Node,
) {
    let worker = |p: &Process<ToParent>| {
        node.send_named("factory", child, &p.pid());
    };
    p.trap_exit(true);

    // 1. Linked and monitored; ends with {shutdown, x}: the exit signal, then the Down,
    //    both with that reason (the BEAM delivers EXIT before DOWN).
    worker(p);
    let w = new_worker(p).await;
    p.link(w).unwrap();
    let m = p.monitor(w);
    w.send(WorkerCmd::ExitWith("shutdown_x".into()));
    match next(p).await {
        ToParent::Exit(e) => assert_eq!((e.from, e.reason), (w.id(), reason_named("shutdown_x"))),
        other => panic!("case 1: expected the exit signal first, got {other:?}"),
    }
    match next(p).await {
        ToParent::Down(d) => {
            assert_eq!(
                (d.monitor, d.pid, d.reason.clone()),
                (m, w.id(), reason_named("shutdown_x"))
            );
            assert!(d.reason.is_shutdown());
        }
        other => panic!("case 1: expected the Down, got {other:?}"),
    }

    // 2. A normal end reaches a trapping linked process as an exit signal `normal`.
    worker(p);
    let w = new_worker(p).await;
    p.link(w).unwrap();
    w.send(WorkerCmd::ExitWith("normal".into()));
    match next(p).await {
        ToParent::Exit(e) => assert_eq!((e.from, e.reason), (w.id(), mote::ExitReason::Normal)),
        other => panic!("case 2: got {other:?}"),
    }

    // 3. and 4. A non-trapping process linked to a remote one dies with its abnormal
    //    reason, and survives its normal end.
    for (reason, survives) in [("boom", false), ("normal", true)] {
        worker(p);
        let w = new_worker(p).await;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let linked = mote::spawn(move |mut l: Process<()>| async move {
            l.link(w).unwrap();
            let _ = tx.send(());
            l.recv().await;
        });
        rx.await.unwrap();
        let m = p.monitor(linked);
        // When the linked process survives, the worker's end is seen through a monitor of
        // our own (made before the worker is told to end), then it must still be alive.
        let mw = survives.then(|| p.monitor(w));
        w.send(WorkerCmd::ExitWith(reason.into()));
        if let Some(mw) = mw {
            match next(p).await {
                ToParent::Down(d) => {
                    assert_eq!((d.monitor, d.reason), (mw, mote::ExitReason::Normal))
                }
                other => panic!("case 4: got {other:?}"),
            }
            mote::sleep(Duration::from_millis(50)).await;
            assert!(
                mote::is_alive(linked),
                "a normal exit signal does not end it"
            );
            mote::exit(linked, mote::ExitReason::Kill);
            match next(p).await {
                ToParent::Down(d) => assert_eq!(d.monitor, m),
                other => panic!("case 4: got {other:?}"),
            }
        } else {
            match next(p).await {
                ToParent::Down(d) => {
                    assert_eq!((d.monitor, d.reason), (m, reason_named(reason)), "case 3")
                }
                other => panic!("case 3: got {other:?}"),
            }
        }
    }

    // 5. A monitor or a link to a remote process that has ended: `noproc`.
    worker(p);
    let w = new_worker(p).await;
    let mw = p.monitor(w);
    w.send(WorkerCmd::ExitWith("normal".into()));
    match next(p).await {
        ToParent::Down(d) => assert_eq!(d.monitor, mw),
        other => panic!("case 5: got {other:?}"),
    }
    let m = p.monitor(w);
    match next(p).await {
        ToParent::Down(d) => assert_eq!((d.monitor, d.reason), (m, mote::ExitReason::NoProc)),
        other => panic!("case 5: got {other:?}"),
    }
    p.link(w).unwrap();
    match next(p).await {
        ToParent::Exit(e) => assert_eq!((e.from, e.reason), (w.id(), mote::ExitReason::NoProc)),
        other => panic!("case 5: got {other:?}"),
    }

    // 6. exit/2 with `kill` across nodes: killed.
    worker(p);
    let w = new_worker(p).await;
    let m = p.monitor(w);
    mote::exit(w, mote::ExitReason::Kill);
    match next(p).await {
        ToParent::Down(d) => assert_eq!((d.monitor, d.reason), (m, mote::ExitReason::Killed)),
        other => panic!("case 6: got {other:?}"),
    }

    // 8. Remote spawn: synchronous (a pid back), linked before it runs, refused for an
    //    unknown function; asynchronous spawns report through their own messages.
    let w: Pid<WorkerCmd> = node
        .spawn(child, "remote", "worker", &(0u8,))
        .await
        .unwrap();
    assert!(!w.id().is_local());
    let m = p.monitor(w);
    w.send(WorkerCmd::ExitWith("shutdown_x".into()));
    match next(p).await {
        ToParent::Down(d) => assert_eq!((d.monitor, d.reason), (m, reason_named("shutdown_x"))),
        other => panic!("case 8: got {other:?}"),
    }
    let opts = mote_dist::node::RemoteSpawn::new().link();
    let w: Pid<WorkerCmd> = node
        .spawn_with(child, "remote", "worker", &(0u8,), opts)
        .await
        .unwrap();
    w.send(WorkerCmd::ExitWith("boom".into()));
    match next(p).await {
        ToParent::Exit(e) => assert_eq!((e.from, e.reason), (w.id(), reason_named("boom"))),
        other => panic!("case 8 (link): got {other:?}"),
    }
    let refused = node
        .spawn::<_, WorkerCmd>(child, "remote", "no_such_fn", &(0u8,))
        .await;
    assert!(matches!(refused, Err(mote_dist::node::SpawnError::Refused(r)) if r == "notsup"));
    let bad_args = node
        .spawn::<_, WorkerCmd>(child, "remote", "worker", &("x", 1))
        .await;
    assert!(matches!(bad_args, Err(mote_dist::node::SpawnError::Refused(r)) if r == "badarg"));
    for _ in 0..10 {
        node.spawn_async(child, "remote", "hello", &(p.pid(),))
            .unwrap();
    }
    let mut spawned = std::collections::HashSet::new();
    for _ in 0..10 {
        match next(p).await {
            ToParent::Worker(w) => {
                spawned.insert(w);
                w.send(WorkerCmd::ExitWith("normal".into()));
            }
            other => panic!("case 8 (async): got {other:?}"),
        }
    }
    assert_eq!(spawned.len(), 10);

    // 7. A demonitored remote process's end sends nothing.
    worker(p);
    let w = new_worker(p).await;
    let m = p.monitor(w);
    assert!(p.demonitor(m));
    w.send(WorkerCmd::ExitWith("boom".into()));
    assert!(p.recv_timeout(Duration::from_millis(300)).await.is_none());
}

#[test]
fn two_mote_nodes_exchange_typed_messages() {
    if std::env::var("MOTE_CHILD_EPMD").is_ok() {
        return; // inside the child
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let me = format!("parent{}@127.0.0.1", std::process::id());
        let child_name = format!("child{}@127.0.0.1", std::process::id());
        let (node, epmd) = common::start_with_epmd(|port| {
            NodeOptions::new(me.clone())
                .cookie(COOKIE)
                .epmd_port(port)
                .start_epmd(true)
        })
        .await;

        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let inbox = mote::spawn(move |mut p: Process<String>| async move {
            while let Some(text) = p.recv_timeout(WAIT).await {
                let _ = tx.send(text);
            }
        });
        mote_dist::node::register("inbox", inbox).unwrap();

        let mut child = tokio::process::Command::new(std::env::current_exe().unwrap())
            .args(["child_node", "--exact", "--nocapture", "--test-threads=1"])
            .env("MOTE_CHILD_EPMD", epmd.to_string())
            .env("MOTE_PARENT_NODE", &me)
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

        // By name, from the child (which dialled us).
        let got = tokio::time::timeout(WAIT, rx.recv()).await.unwrap();
        assert_eq!(got.as_deref(), Some("hello from the child"));
        assert!(node.nodes().contains(&child_name));

        // By name to the child, with our pid inside: the child answers at that pid.
        node.send_named("upper", &child_name, &(inbox, "ping".to_string()));
        let got = tokio::time::timeout(WAIT, rx.recv()).await.unwrap();
        assert_eq!(got.as_deref(), Some("PING"));

        // Links, monitors and exit reasons with the other process on the child node.
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        let (node2, child2) = (node.clone(), child_name.clone());
        mote::spawn(move |mut p: Process<ToParent>| async move {
            mote::dist::expose(p.pid());
            let result = futures_util::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(
                semantics_across_nodes(&mut p, &child2, &node2),
            ))
            .await;
            let _ = done_tx.send(result.map_err(|e| {
                e.downcast_ref::<String>().cloned().unwrap_or_else(|| {
                    e.downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .unwrap_or_default()
                })
            }));
        });
        let outcome = tokio::time::timeout(WAIT * 2, done_rx)
            .await
            .unwrap()
            .unwrap();
        if let Err(message) = outcome {
            panic!("semantics across nodes: {message}");
        }
        let _ = child.kill().await;
    });
}
