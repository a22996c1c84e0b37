//! A connection whose peer does not read becomes busy once 1 MiB waits for its socket, as
//! a BEAM distribution port does: `Pid::send_async` to a process of that node waits until
//! the backlog is under the limit again, so a process streaming to a stalled node holds
//! its memory, and every message still arrives, in order, once the node reads again.
//! Checked against a real `erl` node stopped with SIGSTOP.
//!
//! One mote node per OS process, so every test of this file shares it.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{erl, erl_or_skip, unique};
use mote::Process;
use mote_dist::etf::WireTerm;

const COOKIE: &str = "node_busy_cookie";

/// Messages the test streams, 64 KiB each: 96 MiB in all, far more than the socket
/// buffers and the busy limit together.
const N: u64 = 1536;
const SIZE: usize = 64 * 1024;

fn signal(pid: &str, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([sig, pid])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill {sig} {pid}");
}

#[test]
fn send_async_waits_while_the_peer_does_not_read() {
    if !erl_or_skip("send_async_waits_while_the_peer_does_not_read") {
        return;
    }
    common::run(async {
        let (node, epmd_port) = common::start_node(COOKIE).await;
        let (name, erl_name) = (unique("sink"), format!("{}@127.0.0.1", unique("erl")));
        // A sink: tells its pid to the first `{hello, P}`, then checks that message I is
        // {I, Bin} with Bin 64 KiB, and prints the count at `done`.
        let eval = format!(
            "register({name}, self()), io:format(\"os ~s~n\", [os:getpid()]), \
             receive {{hello, P}} -> P ! {{sink, self()}} after 30000 -> exit(hello) end, \
             Loop = fun L(N) -> receive \
                 done -> io:format(\"count ~p~n\", [N]); \
                 {{N, B}} when byte_size(B) =:= {SIZE} -> L(N + 1); \
                 Other -> io:format(\"bad ~p ~p~n\", [N, Other]) \
               after 60000 -> io:format(\"stuck ~p~n\", [N]) end end, \
             Loop(0), halt()."
        );
        let mut erl = erl("-name", &erl_name, COOKIE, epmd_port, &[], &eval);
        let os_pid = erl.expect("os").await;
        let sent = Arc::new(AtomicU64::new(0));
        let (counter, node2) = (sent.clone(), node.clone());
        let (stopped_tx, stopped_rx) = tokio::sync::oneshot::channel::<()>();
        let (name2, erl2) = (name.clone(), erl_name.clone());
        let os_pid2 = os_pid.clone();
        mote::spawn(move |mut p: Process<WireTerm>| async move {
            assert!(mote::dist::expose(p.pid()));
            node2.send_named(&name2, &erl2, &(WireTerm::atom("hello").unwrap(), p.pid()));
            let sink = match p.recv_timeout(common::WAIT).await {
                Some(WireTerm::Tuple(t)) if t.len() == 2 => match &t[1] {
                    WireTerm::Pid(pid) => {
                        mote_dist::node_table::typed_pid::<(u64, WireTerm)>(pid).unwrap()
                    }
                    other => panic!("not a pid: {other:?}"),
                },
                other => panic!("expected {{sink, Pid}}, got {other:?}"),
            };
            // The connection is up: stop the node, then stream.
            signal(&os_pid2, "-STOP");
            let _ = stopped_tx.send(());
            let bin = WireTerm::Binary(vec![7u8; SIZE].into());
            for i in 0..N {
                sink.send_async((i, bin.clone())).await;
                counter.store(i + 1, Ordering::SeqCst);
            }
            node2.send_named(&name2, &erl2, &WireTerm::atom("done").unwrap());
        });
        stopped_rx.await.expect("the stream starts");
        tokio::time::sleep(Duration::from_secs(3)).await;
        let while_stopped = sent.load(Ordering::SeqCst);
        // Let the node read again before any assertion, so a failure does not leave it
        // stopped.
        signal(&os_pid, "-CONT");
        // Loopback socket buffers take a few MiB (Linux's default maximum: 4 MiB to send,
        // 6 MiB to receive), the backlog 1 MiB more.
        assert!(
            while_stopped * (SIZE as u64) < 32 << 20,
            "{while_stopped} messages of 64 KiB queued for a node that reads nothing"
        );
        assert!(
            while_stopped > 0,
            "nothing sent before the connection was busy"
        );
        assert_eq!(erl.expect("count").await, N.to_string(), "{}", erl.output());
        assert_eq!(sent.load(Ordering::SeqCst), N);
        drop(node);
    });
}
