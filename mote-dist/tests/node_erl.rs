//! A mote node (`mote_dist::node`) and real `erl` nodes on loopback: ping, sends by name
//! and by pid in both directions, a term zoo through a mote process and back, refused
//! cookies. The mote node runs its embedded EPMD, which the `erl` nodes use too.
//!
//! One mote node per OS process, so every test of this file shares it (and a tokio
//! runtime that outlives each test).

mod common;

use std::sync::OnceLock;

use common::{erl, erl_or_skip, unique, within};
use mote::{Pid, Process};
use mote_dist::etf::{Atom, WireTerm};
use mote_dist::node::{Node, NodeOptions};
use tokio::sync::OnceCell;

const COOKIE: &str = "node_erl_cookie";

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    })
}

/// The mote node of this test process, and its EPMD port.
async fn node() -> &'static (Node, u16) {
    static NODE: OnceCell<(Node, u16)> = OnceCell::const_new();
    NODE.get_or_init(|| async {
        let epmd_port = common::free_port();
        let node = NodeOptions::new(format!("{}@127.0.0.1", unique("mote")))
            .cookie(COOKIE)
            .epmd_port(epmd_port)
            .start_epmd(true)
            .start()
            .await
            .expect("mote node starts");
        (node, epmd_port)
    })
    .await
}

fn run(test: impl std::future::Future<Output = ()>) {
    runtime().block_on(test)
}

/// The term zoo: every integer encoding edge, bignums, UTF-8 atoms, floats, binaries,
/// strings, an improper list, a big tuple, nested maps, pids and refs of both nodes, a
/// 100,000-element list and a 1 MiB binary (Erlang source, bound to `Zoo`).
const ZOO: &str = "Zoo = [atom, 'ünïcödé_атом', 0, -1, 255, 256, -2147483648, 2147483647, \
    2147483648, -2147483649, 1 bsl 64, -(1 bsl 100), 1 bsl 2000, 3.14, -0.5, 1.0e300, \
    <<\"bin\">>, <<>>, \"str\", [], [1|2], [a, b | c], list_to_tuple(lists:seq(1, 300)), \
    {}, #{a => #{b => [1]}, <<\"k\">> => {x}}, self(), make_ref(), \
    lists:seq(1, 100000), binary:copy(<<7>>, 1048576)]";

/// A mote process that answers `{From, Term}` with `{Me, Term}`, registered as `name`.
fn spawn_echo(name: &str) {
    let echo = mote::spawn(|mut p: Process<(Pid<WireTerm>, WireTerm)>| async move {
        let me = WireTerm::Pid(mote_dist::node_table::to_wire(p.id()));
        loop {
            let (from, term) = p.recv().await;
            from.send(WireTerm::Tuple(vec![me.clone(), term]));
        }
        #[allow(unreachable_code)]
        ()
    });
    mote_dist::node::register(name, echo).unwrap();
}

/// Erlang pings the mote node, sends the zoo to a registered mote process by name, gets
/// it back from that process's pid, sends it again by pid; then the mote node sends to
/// a name registered on the Erlang node.
async fn erl_talks_to_mote(hidden: bool) {
    let (node, epmd_port) = node().await;
    let echo = unique("echo");
    spawn_echo(&echo);
    let erl_name = format!("{}@127.0.0.1", unique("erl"));
    let eval = format!(
        "Mote = '{mote}', Echo = '{echo}', \
         pong = net_adm:ping(Mote), io:format(\"pong~n\"), \
         {ZOO}, \
         {{Echo, Mote}} ! {{self(), Zoo}}, \
         EchoPid = receive {{P, Zoo}} -> P after 30000 -> exit(no_reply_by_name) end, \
         io:format(\"by_name_ok ~s~n\", [node(EchoPid)]), \
         EchoPid ! {{self(), {{by_pid, Zoo}}}}, \
         receive {{EchoPid, {{by_pid, Zoo}}}} -> ok after 30000 -> exit(no_reply_by_pid) end, \
         io:format(\"by_pid_ok~n\"), \
         register(tester, self()), io:format(\"registered~n\"), \
         receive {{from_mote, X}} -> io:format(\"from_mote ~p~n\", [X]) \
           after 30000 -> exit(nothing_from_mote) end, \
         halt().",
        mote = node.name(),
    );
    let mut extra = vec![];
    if hidden {
        extra.push("-hidden");
    }
    let mut erl = erl("-name", &erl_name, COOKIE, *epmd_port, &extra, &eval);
    erl.expect("pong").await;
    assert_eq!(erl.expect("by_name_ok").await, node.name().as_str());
    erl.expect("by_pid_ok").await;
    erl.expect("registered").await;
    assert!(node.ping(&erl_name).await, "already connected");
    let message = WireTerm::Tuple(vec![
        WireTerm::Atom(Atom::new("from_mote").unwrap()),
        WireTerm::Int(42),
    ]);
    node.send_named("tester", &erl_name, &message);
    assert_eq!(erl.expect("from_mote").await, "42");
}

#[test]
fn erl_pings_and_sends_by_name_and_pid_published() {
    if !erl_or_skip("erl_pings_and_sends_by_name_and_pid_published") {
        return;
    }
    run(erl_talks_to_mote(false));
}

#[test]
fn erl_pings_and_sends_by_name_and_pid_hidden() {
    if !erl_or_skip("erl_pings_and_sends_by_name_and_pid_hidden") {
        return;
    }
    run(erl_talks_to_mote(true));
}

/// The mote node dials first: it pings an Erlang node, sends it a message holding a
/// local pid (by name), and the Erlang process answers to that pid.
#[test]
fn mote_dials_erl_and_gets_answers_at_its_pid() {
    if !erl_or_skip("mote_dials_erl_and_gets_answers_at_its_pid") {
        return;
    }
    run(async {
        let (node, epmd_port) = node().await;
        let erl_name = format!("{}@127.0.0.1", unique("erl"));
        let eval = "register(replier, self()), io:format(\"ready~n\"), \
             receive {<<\"hi\">>, P} -> P ! {reply, node(), P} end, \
             receive stop -> ok after 30000 -> ok end.";
        let mut erl = erl("-name", &erl_name, COOKIE, *epmd_port, &[], eval);
        erl.expect("ready").await;
        assert!(!node.nodes().contains(&erl_name));
        assert!(node.ping(&erl_name).await, "mote dials erl");
        assert!(node.nodes().contains(&erl_name));

        let (tx, rx) = tokio::sync::oneshot::channel();
        let node2 = node.clone();
        let erl_name2 = erl_name.clone();
        mote::spawn(move |mut p: Process<WireTerm>| async move {
            assert!(mote::dist::expose(p.pid()));
            node2.send_named("replier", &erl_name2, &("hi", p.pid()));
            let _ = tx.send(p.recv().await);
        });
        let reply = within("the reply at the mote pid", rx).await.unwrap();
        let WireTerm::Tuple(t) = reply else {
            panic!("not a tuple: {reply:?}")
        };
        assert_eq!(t[0], WireTerm::atom("reply").unwrap());
        assert_eq!(t[1], WireTerm::atom(&erl_name).unwrap());
        // The pid came back as the same wire pid: this node's name and creation.
        let WireTerm::Pid(p) = &t[2] else {
            panic!("not a pid: {:?}", t[2])
        };
        assert_eq!(p.node.as_str(), node.name().as_str());
        assert_eq!(p.creation, node.creation());
    });
}

/// A node with another cookie is refused in both directions, and refusing it does not
/// stop this node from serving others, or from trying again later.
#[test]
fn wrong_cookie_is_refused_both_ways() {
    if !erl_or_skip("wrong_cookie_is_refused_both_ways") {
        return;
    }
    run(async {
        let (node, epmd_port) = node().await;
        let erl_name = format!("{}@127.0.0.1", unique("erl"));
        let eval = format!(
            "io:format(\"ready~n\"), \
             R = net_adm:ping('{}'), io:format(\"ping ~p~n\", [R]), \
             receive stop -> ok after 30000 -> ok end.",
            node.name()
        );
        let mut erl = erl("-name", &erl_name, "another_cookie", *epmd_port, &[], &eval);
        erl.expect("ready").await;
        assert_eq!(erl.expect("ping").await, "pang");
        assert!(!node.ping(&erl_name).await, "our cookie is refused too");
        assert!(!node.ping(&erl_name).await, "and again, later");
        assert!(!node.nodes().contains(&erl_name));
        assert!(!node.ping("nobody@127.0.0.1").await, "no such node");
    });
}

/// Pids and remote typed pids: a `Pid<M>` of the Erlang node deserializes from a message,
/// and one of this node only for an exposed process of that message type.
#[test]
fn pids_in_messages_are_checked() {
    run(async {
        let _ = node().await;
        let (tx, rx) = tokio::sync::oneshot::channel();
        mote::spawn(move |p: Process<u8>| async move {
            let bytes = mote_dist::serde::to_vec(&p.pid()).unwrap();
            let unexposed = mote_dist::serde::from_slice::<Pid<u8>>(&bytes).is_err();
            mote::dist::expose(p.pid());
            let exposed = mote_dist::serde::from_slice::<Pid<u8>>(&bytes).ok();
            let wrong_type = mote_dist::serde::from_slice::<Pid<String>>(&bytes).is_err();
            let _ = tx.send((unexposed, exposed == Some(p.pid()), wrong_type));
        });
        assert_eq!(rx.await.unwrap(), (true, true, true));
    });
}
