//! Two mote nodes in two OS processes: this test binary starts a copy of itself as the
//! second node (the `child_node` test, which does nothing unless `MOTE_CHILD_EPMD` is
//! set). Typed messages go both ways, by name and by pid, and the pids inside them work
//! on the other node unchanged.

use std::time::Duration;

use mote::{Pid, Process};
use mote_dist::node::NodeOptions;
use tokio::io::{AsyncBufReadExt, BufReader};

const COOKIE: &str = "node_mote_cookie";
const WAIT: Duration = Duration::from_secs(60);

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

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
        // The child dials the parent: a send by name to a node not connected yet.
        node.send_named("inbox", &parent, &"hello from the child".to_string());
        println!("child_ready");
        mote::sleep(WAIT).await;
    })
    .unwrap_or_else(|e| panic!("child run failed: {e:?}"));
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
        let epmd = free_port();
        let me = format!("parent{}@127.0.0.1", std::process::id());
        let child_name = format!("child{}@127.0.0.1", std::process::id());
        let node = NodeOptions::new(me.clone())
            .cookie(COOKIE)
            .epmd_port(epmd)
            .start_epmd(true)
            .start()
            .await
            .expect("parent node starts");

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
        let _ = child.kill().await;
    });
}
