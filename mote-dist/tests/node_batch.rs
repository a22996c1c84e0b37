//! Frames a mote process sends wait in their connection's batch until its poll ends (or
//! the batch passes 64 KiB), then go out in one write: these tests check, against a real
//! `erl` node, that nothing is lost, reordered or left waiting by that.
//!
//! One mote node per OS process, so every test of this file shares it.

mod common;

use std::time::Duration;

use common::{erl, erl_or_skip, unique, within};
use mote::Process;
use mote_dist::etf::WireTerm;
use mote_dist::node::Node;
use tokio::sync::OnceCell;

const COOKIE: &str = "node_batch_cookie";

async fn node() -> &'static (Node, u16) {
    static NODE: OnceCell<(Node, u16)> = OnceCell::const_new();
    NODE.get_or_init(|| common::start_node(COOKIE)).await
}

/// The size of the binary in message `i`: mostly small frames (copied into the batch),
/// every 7th above the copy limit (its own slice of the write), every 13th long enough to
/// be a piece of its frame (not copied into it), every 1000th larger than the whole batch
/// (written at once, behind the batch).
fn size(i: u64) -> usize {
    if i % 1000 == 999 {
        100_000
    } else if i % 13 == 0 {
        20_000
    } else if i % 7 == 0 {
        5_000
    } else {
        10
    }
}

/// The same sizes in Erlang, bound to `Size`.
const SIZE_ERL: &str = "Size = fun(I) when I rem 1000 =:= 999 -> 100000; \
    (I) when I rem 13 =:= 0 -> 20000; (I) when I rem 7 =:= 0 -> 5000; (_) -> 10 end";

fn message(i: u64) -> (u64, WireTerm) {
    (i, WireTerm::Binary(vec![(i % 251) as u8; size(i)].into()))
}

/// The shared mote node, and an `erl` node running `eval(name)`, a script that registers a
/// process as `name` (a fresh `prefix` name) and prints `ready` once it has: the node, the
/// name, the erl node's name and the erl OS process.
async fn erl_running(
    prefix: &str,
    eval: impl Fn(&str) -> String,
) -> (&'static Node, String, String, common::Proc) {
    let (node, epmd_port) = node().await;
    let (name, erl_name) = (unique(prefix), format!("{}@127.0.0.1", unique("erl")));
    let mut erl = erl("-name", &erl_name, COOKIE, *epmd_port, &[], &eval(&name));
    erl.expect("ready").await;
    (node, name, erl_name, erl)
}

/// An Erlang collector registered as `name`: tells its pid to the first `{hello, P}`,
/// links to it, traps exits and checks that `{I, Bin}` arrive with I = 0, 1, 2... and the
/// right size and bytes, until an exit signal, which it prints with the count (`exit N Reason`).
fn collector_eval(name: &str) -> String {
    format!(
        "register({name}, self()), process_flag(trap_exit, true), {SIZE_ERL}, \
         io:format(\"ready~n\"), \
         receive {{hello, P}} -> link(P), P ! {{collector, self()}} after 30000 -> exit(hello) end, \
         Loop = fun L(N) -> receive \
             {{'EXIT', _, R}} -> io:format(\"exit ~p ~p~n\", [N, R]); \
             {{N, B}} when is_binary(B) -> \
               case B =:= binary:copy(<<(N rem 251)>>, Size(N)) of \
                 true -> L(N + 1); \
                 false -> io:format(\"bad_size ~p ~p~n\", [N, byte_size(B)]) \
               end; \
             Other -> io:format(\"bad ~p ~p~n\", [N, Other]) \
           after 30000 -> io:format(\"stuck ~p~n\", [N]) end end, \
         Loop(0), halt()."
    )
}

/// A mote process sends thousands of messages (several batches, binaries larger than a
/// batch among them) in one poll, then ends: its link's exit signal reaches Erlang after
/// all of them, in order.
#[test]
fn a_burst_then_an_exit_signal_arrive_in_order() {
    if !erl_or_skip("a_burst_then_an_exit_signal_arrive_in_order") {
        return;
    }
    common::run(async {
        let (node, name, erl_name, mut erl) = erl_running("coll", collector_eval).await;
        const N: u64 = 5_000;
        let node = node.clone();
        mote::spawn(move |mut p: Process<WireTerm>| async move {
            assert!(mote::dist::expose(p.pid()));
            node.send_named(
                &name,
                &erl_name,
                &(WireTerm::atom("hello").unwrap(), p.pid()),
            );
            // Linked by Erlang: our end is an exit signal to it.
            p.recv_timeout(common::WAIT)
                .await
                .expect("the collector's pid");
            for i in 0..N {
                node.send_named(&name, &erl_name, &message(i));
            }
            // Ends in the same poll: the exit signal goes out after the poll's batch.
            mote::ExitReason::custom("done")
        });
        assert_eq!(erl.expect("exit").await, format!("{N} done"));
    });
}

/// A send from a tokio task between a process's buffered sends (in the same poll) goes out
/// after the ones before it and before the ones after it; and an exit signal sent with
/// `mote::exit` inside the poll comes last.
#[test]
fn a_tokio_task_send_between_buffered_sends_keeps_its_place() {
    if !erl_or_skip("a_tokio_task_send_between_buffered_sends_keeps_its_place") {
        return;
    }
    common::run(async {
        let (node, name, erl_name, mut erl) = erl_running("coll", collector_eval).await;
        let handle = tokio::runtime::Handle::current();
        let node = node.clone();
        mote::spawn(move |mut p: Process<WireTerm>| async move {
            assert!(mote::dist::expose(p.pid()));
            node.send_named(
                &name,
                &erl_name,
                &(WireTerm::atom("hello").unwrap(), p.pid()),
            );
            let collector = match p.recv_timeout(common::WAIT).await {
                Some(WireTerm::Tuple(t)) if t.len() == 2 => match &t[1] {
                    WireTerm::Pid(pid) => mote_dist::node_table::from_wire(pid),
                    other => panic!("not a pid: {other:?}"),
                },
                other => panic!("expected {{collector, Pid}}, got {other:?}"),
            };
            for i in 0..100 {
                node.send_named(&name, &erl_name, &message(i));
            }
            // Message 100 from a tokio task, while 0..100 wait for this poll's end: the
            // process blocks its thread until the task has sent it.
            let (done, wait) = std::sync::mpsc::channel();
            let (n2, name2, erl2) = (node.clone(), name.clone(), erl_name.clone());
            handle.spawn(async move {
                n2.send_named(&name2, &erl2, &message(100));
                done.send(()).unwrap();
            });
            wait.recv().unwrap();
            for i in 101..200 {
                node.send_named(&name, &erl_name, &message(i));
            }
            mote::exit(collector, mote::ExitReason::custom("stop"));
            mote::sleep(Duration::from_secs(60)).await;
        });
        assert_eq!(erl.expect("exit").await, "200 stop");
    });
}

/// A process that sends and then waits in `recv` ends its poll: its message goes out
/// then, so round trips complete (and quickly), one after another.
#[test]
fn a_send_then_receive_is_written_when_the_poll_ends() {
    if !erl_or_skip("a_send_then_receive_is_written_when_the_poll_ends") {
        return;
    }
    common::run(async {
        let (node, name, erl_name, _erl) = erl_running("echo", |name| {
            format!(
                "register({name}, self()), io:format(\"ready~n\"), \
                 Loop = fun L() -> receive {{P, M}} -> P ! M, L() after 30000 -> ok end end, \
                 Loop(), halt()."
            )
        })
        .await;
        assert!(node.ping(&erl_name).await);
        let (tx, rx) = tokio::sync::oneshot::channel();
        let node = node.clone();
        mote::spawn(move |mut p: Process<WireTerm>| async move {
            assert!(mote::dist::expose(p.pid()));
            let mut slowest = Duration::ZERO;
            for i in 0..200i64 {
                let sent = std::time::Instant::now();
                node.send_named(&name, &erl_name, &(p.pid(), i));
                // Far below the tick interval (15 s), which would also write the batch.
                let reply = p.recv_timeout(Duration::from_secs(5)).await;
                assert_eq!(reply, Some(WireTerm::Int(i)), "round trip {i}");
                slowest = slowest.max(sent.elapsed());
            }
            let _ = tx.send(slowest);
        });
        let slowest = within("200 round trips", rx).await.unwrap();
        assert!(
            slowest < Duration::from_secs(2),
            "slowest round trip {slowest:?}"
        );
    });
}
