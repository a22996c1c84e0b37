//! A mote node (`mote_dist::node`) and real `erl` nodes on loopback: ping, sends by name
//! and by pid in both directions, a term zoo through a mote process and back, refused
//! cookies. The mote node runs its embedded EPMD, which the `erl` nodes use too.
//!
//! One mote node per OS process, so every test of this file shares it (and a tokio
//! runtime that outlives each test).

mod common;

use common::{erl, erl_or_skip, unique, within};
use mote::{Pid, Process};
use mote_dist::etf::{Atom, WireTerm};
use mote_dist::node::{Node, NodeDown, NodeEvent};
use tokio::sync::OnceCell;

const COOKIE: &str = "node_erl_cookie";

/// The mote node of this test process, and its EPMD port.
async fn node() -> &'static (Node, u16) {
    static NODE: OnceCell<(Node, u16)> = OnceCell::const_new();
    NODE.get_or_init(|| common::start_node(COOKIE)).await
}

use common::run;

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

/// What an [`agent`] is told, by Erlang code (`{link, Pid}`, `{exit_with, Reason}`, ...).
#[derive(serde::Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
enum Cmd {
    /// Link to this pid.
    Link(Pid<WireTerm>),
    /// Monitor this pid, then answer `monitoring` to the second pid.
    Monitor(Pid<WireTerm>, Pid<WireTerm>),
    /// End with this reason.
    ExitWith(WireTerm),
    /// Send `{agent_pid, MyPid}` to this pid.
    SendMe(Pid<WireTerm>),
    #[serde(skip)]
    Exit(mote::Exit),
    #[serde(skip)]
    Down(mote::Down),
}

impl From<mote::Exit> for Cmd {
    fn from(e: mote::Exit) -> Self {
        Cmd::Exit(e)
    }
}

impl From<mote::Down> for Cmd {
    fn from(d: mote::Down) -> Self {
        Cmd::Down(d)
    }
}

/// What an agent saw: the exit signals it trapped and the `Down`s it got.
#[derive(Debug)]
enum Seen {
    Exit(mote::ProcessId, mote::ExitReason),
    Down(mote::ProcessId, mote::ExitReason),
}

/// A mote process registered as `name` that does what Erlang code tells it, trapping
/// exits, and reports the signals it gets.
fn agent(name: &str) -> tokio::sync::mpsc::UnboundedReceiver<Seen> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let pid = mote::spawn(move |mut p: Process<Cmd>| async move {
        p.trap_exit(true);
        let me = WireTerm::Pid(mote_dist::node_table::to_wire(p.id()));
        while let Some(cmd) = p.recv_timeout(common::WAIT).await {
            match cmd {
                Cmd::Link(pid) => p.link(pid).unwrap(),
                Cmd::Monitor(pid, tell) => {
                    p.monitor(pid);
                    tell.send(WireTerm::atom("monitoring").unwrap());
                }
                Cmd::ExitWith(reason) => p.exit(mote::ExitReason::from_term((&reason).into())),
                Cmd::SendMe(to) => to.send(WireTerm::Tuple(vec![
                    WireTerm::atom("agent_pid").unwrap(),
                    me.clone(),
                ])),
                Cmd::Exit(e) => {
                    let _ = tx.send(Seen::Exit(e.from, e.reason));
                }
                Cmd::Down(d) => {
                    let _ = tx.send(Seen::Down(d.pid, d.reason));
                }
            }
        }
    });
    mote_dist::node::register(name, pid).unwrap();
    rx
}

async fn seen(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Seen>) -> Seen {
    within("an agent to see a signal", rx.recv()).await.unwrap()
}

fn term(erl: &str) -> mote::Term {
    // The few reasons these tests use, built by hand.
    match erl {
        "boom" => mote::Term::atom("boom"),
        "{shutdown,done}" => {
            mote::Term::tuple([mote::Term::atom("shutdown"), mote::Term::atom("done")])
        }
        other => panic!("no term for {other}"),
    }
}

/// Links and monitors in both directions between mote processes and Erlang processes,
/// with Erlang's exit reasons (`{shutdown, T}` included) kept across the wire, and
/// monitors by pid and by `{Name, Node}`.
#[test]
fn links_and_monitors_cross_both_ways_published() {
    if !erl_or_skip("links_and_monitors_cross_both_ways_published") {
        return;
    }
    run(links_and_monitors(false));
}

#[test]
fn links_and_monitors_cross_both_ways_hidden() {
    if !erl_or_skip("links_and_monitors_cross_both_ways_hidden") {
        return;
    }
    run(links_and_monitors(true));
}

async fn links_and_monitors(hidden: bool) {
    {
        let (node, epmd_port) = node().await;
        let names: Vec<String> = (0..5).map(|_| unique("agent")).collect();
        let _a1 = agent(&names[0]);
        let mut a2 = agent(&names[1]);
        let mut a3 = agent(&names[2]);
        let _a4 = agent(&names[3]);
        let _a5 = agent(&names[4]);
        let erl_name = format!("{}@127.0.0.1", unique("erl"));
        let eval = format!(
            "Mote = '{mote}', [A1, A2, A3, A4, A5] = [{{list_to_atom(N), Mote}} || N <- [{names}]], \
             process_flag(trap_exit, true), \
             A1 ! {{link, self()}}, A1 ! {{exit_with, {{shutdown, bye}}}}, \
             receive {{'EXIT', P1, R1}} -> io:format(\"a1 ~p ~p~n\", [node(P1) =:= Mote, R1]) \
               after 30000 -> exit(a1) end, \
             A2 ! {{send_me, self()}}, \
             P2 = receive {{agent_pid, X2}} -> X2 after 30000 -> exit(a2) end, \
             spawn(fun() -> link(P2), exit(boom) end), \
             Y = spawn(fun() -> receive go -> exit({{shutdown, done}}) end end), \
             A3 ! {{monitor, Y, self()}}, \
             receive monitoring -> Y ! go after 30000 -> exit(a3) end, \
             A4 ! {{send_me, self()}}, \
             P4 = receive {{agent_pid, X4}} -> X4 after 30000 -> exit(a4) end, \
             R4 = monitor(process, P4), A4 ! {{exit_with, {{shutdown, x}}}}, \
             receive {{'DOWN', R4, process, P4, W4}} -> io:format(\"a4 ~p~n\", [W4]) \
               after 30000 -> exit(a4down) end, \
             R5 = monitor(process, A5), A5 ! {{exit_with, killed_by_test}}, \
             receive {{'DOWN', R5, process, Who5, W5}} -> io:format(\"a5 ~p ~p~n\", [Who5 =:= A5, W5]) \
               after 30000 -> exit(a5down) end, \
             R6 = monitor(process, {{no_such_name, Mote}}), \
             receive {{'DOWN', R6, process, _, W6}} -> io:format(\"a6 ~p~n\", [W6]) \
               after 30000 -> exit(a6down) end, \
             halt().",
            mote = node.name(),
            names = names
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", "),
        );
        let extra: &[&str] = if hidden { &["-hidden"] } else { &[] };
        let mut erl = erl("-name", &erl_name, COOKIE, *epmd_port, extra, &eval);
        // mote links to Erlang and ends with {shutdown, bye}: Erlang traps that reason.
        assert_eq!(erl.expect("a1").await, "true {shutdown,bye}");
        // Erlang links to a mote process and ends with boom: the trapping agent sees it.
        match seen(&mut a2).await {
            Seen::Exit(from, reason) => {
                assert!(!from.is_local());
                assert_eq!(reason, mote::ExitReason::from_term(term("boom")));
            }
            other => panic!("expected an exit signal, got {other:?}"),
        }
        // mote monitors an Erlang process that ends with {shutdown, done}.
        match seen(&mut a3).await {
            Seen::Down(pid, reason) => {
                assert!(!pid.is_local());
                assert_eq!(reason, mote::ExitReason::from_term(term("{shutdown,done}")));
                assert!(reason.is_shutdown());
            }
            other => panic!("expected a Down, got {other:?}"),
        }
        // Erlang monitors mote processes, by pid and by {Name, Node}.
        assert_eq!(erl.expect("a4").await, "{shutdown,x}");
        assert_eq!(erl.expect("a5").await, "true killed_by_test");
        assert_eq!(erl.expect("a6").await, "noproc");
    }
}

/// When the connection to a node is lost, every link and monitor across it fires with
/// `noconnection`; a later send connects again.
#[test]
fn connection_loss_is_noconnection_and_a_later_send_reconnects() {
    if !erl_or_skip("connection_loss_is_noconnection_and_a_later_send_reconnects") {
        return;
    }
    run(async {
        let (node, epmd_port) = node().await;
        let name = unique("agent");
        let mut rx = agent(&name);
        let erl_name = format!("{}@127.0.0.1", unique("erl"));
        let eval = format!(
            "A = {{'{name}', '{mote}'}}, register(target, self()), \
             A ! {{link, self()}}, A ! {{monitor, self(), self()}}, \
             receive monitoring -> io:format(\"linked~n\") after 30000 -> exit(t) end, \
             receive stop -> ok end.",
            mote = node.name(),
        );
        let mut erl1 = erl("-name", &erl_name, COOKIE, *epmd_port, &[], &eval);
        erl1.expect("linked").await;
        let mut watch = node_watcher(node, &erl_name);
        // A node that cannot be reached is down at once.
        let nobody = "nobody_here@127.0.0.1";
        node.monitor_node(watch.pid, nobody);
        assert_eq!(
            watch.next_of(nobody).await,
            Watched::Down(NodeDown(nobody.into()))
        );
        erl1.kill().await;
        let mut got = vec![];
        for _ in 0..2 {
            got.push(match seen(&mut rx).await {
                Seen::Exit(_, r) => ("exit", r),
                Seen::Down(_, r) => ("down", r),
            });
        }
        got.sort_by_key(|(k, _)| *k);
        assert_eq!(
            got,
            vec![
                ("down", mote::ExitReason::NoConnection),
                ("exit", mote::ExitReason::NoConnection)
            ]
        );
        assert!(!node.nodes().contains(&erl_name));
        // monitor_node's one nodedown and monitor_nodes' event, in either order.
        let mut events = vec![
            watch.next_of(&erl_name).await,
            watch.next_of(&erl_name).await,
        ];
        events.sort_by_key(|e| format!("{e:?}"));
        assert_eq!(
            events,
            vec![
                Watched::Down(NodeDown(erl_name.clone())),
                Watched::Event(NodeEvent::Down(erl_name.clone())),
            ]
        );
        // The node comes back under the same name: the next send connects again.
        let mut erl2 = erl(
            "-name",
            &erl_name,
            COOKIE,
            *epmd_port,
            &[],
            "register(target, self()), io:format(\"ready~n\"), \
             receive M -> io:format(\"got ~p~n\", [M]) after 30000 -> exit(t) end.",
        );
        erl2.expect("ready").await;
        node.send_named("target", &erl_name, &WireTerm::atom("again").unwrap());
        assert_eq!(erl2.expect("got").await, "again");
        assert_eq!(
            watch.next_of(&erl_name).await,
            Watched::Event(NodeEvent::Up(erl_name.clone()))
        );
    });
}

/// What a node watcher process got.
#[derive(Debug, PartialEq)]
enum Watched {
    Down(NodeDown),
    Event(NodeEvent),
}

impl From<NodeDown> for Watched {
    fn from(d: NodeDown) -> Self {
        Watched::Down(d)
    }
}

impl From<NodeEvent> for Watched {
    fn from(e: NodeEvent) -> Self {
        Watched::Event(e)
    }
}

struct NodeWatcher {
    pid: Pid<Watched>,
    rx: tokio::sync::mpsc::UnboundedReceiver<Watched>,
}

impl NodeWatcher {
    /// The next event about `node` (the node is shared by the tests of this file, so
    /// `monitor_nodes` also reports the other tests' nodes).
    async fn next_of(&mut self, node: &str) -> Watched {
        loop {
            let w = within("a node event", self.rx.recv()).await.unwrap();
            let about = match &w {
                Watched::Down(NodeDown(n))
                | Watched::Event(NodeEvent::Up(n) | NodeEvent::Down(n)) => n,
            };
            if about == node {
                return w;
            }
        }
    }
}

/// A process that monitors `peer` (`monitor_node`) and every node (`monitor_nodes`),
/// forwarding what it gets.
fn node_watcher(node: &Node, peer: &str) -> NodeWatcher {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let pid = mote::spawn(move |mut p: Process<Watched>| async move {
        while let Some(w) = p.recv_timeout(common::WAIT).await {
            let _ = tx.send(w);
        }
    });
    node.monitor_node(pid, peer);
    node.monitor_nodes(pid);
    NodeWatcher { pid, rx }
}

/// mote monitors Erlang processes by `{Name, Node}`: the `Down` names the name and the
/// node, with the process's reason; an unknown name gives `noproc`.
#[test]
fn mote_monitors_erl_by_name() {
    if !erl_or_skip("mote_monitors_erl_by_name") {
        return;
    }
    run(async {
        let (node, epmd_port) = node().await;
        let erl_name = format!("{}@127.0.0.1", unique("erl"));
        let eval =
            "register(named, spawn(fun() -> receive go -> exit({shutdown, named}) end end)), \
             io:format(\"ready~n\"), receive stop -> ok after 30000 -> ok end.";
        let mut erl = erl("-name", &erl_name, COOKIE, *epmd_port, &[], eval);
        erl.expect("ready").await;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let (node2, erl2) = (node.clone(), erl_name.clone());
        mote::spawn(move |mut p: Process<mote::Down>| async move {
            let unknown = node2.monitor_name(&p, "nobody_has_this", &erl2).unwrap();
            let first = p.recv().await;
            let r = node2.monitor_name(&p, "named", &erl2).unwrap();
            // The monitor is in place before the process is told to end: the MONITOR_P
            // and this send travel in order on the one connection.
            node2.send_named("named", &erl2, &WireTerm::atom("go").unwrap());
            let second = p.recv().await;
            let _ = tx.send((unknown, first, r, second));
        });
        let (unknown, first, r, second) = within("the Downs", rx).await.unwrap();
        assert_eq!(
            (first.monitor, first.reason),
            (unknown, mote::ExitReason::NoProc)
        );
        assert_eq!(second.monitor, r);
        assert_eq!(
            second.reason,
            mote::ExitReason::shutdown_with(mote::Term::atom("named"))
        );
        let by_name = second.by_name.expect("a Down by name");
        assert_eq!(by_name.name, "named");
        assert_eq!(
            mote_dist::node_table::node_name(by_name.node)
                .unwrap()
                .as_str(),
            erl_name
        );
    });
}

/// Malformed frames and terms from a raw socket (after a good handshake), and a handshake
/// that stalls, close that connection only: the node goes on serving the others.
#[test]
fn bad_input_closes_that_connection_only() {
    use mote_dist::handshake::{self, Cookie, HandshakeOptions, LocalNode};
    use tokio::io::AsyncWriteExt;
    use tokio::net::TcpStream;

    use common::{closed, frame};

    run(async {
        let (node, _) = node().await;
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], node.port()));
        let handshaken = |name: String| async move {
            let me = LocalNode::new(name.parse().unwrap(), Cookie::new(COOKIE), 1);
            let stream = TcpStream::connect(addr).await.unwrap();
            handshake::connect(stream, &me, node.name(), &HandshakeOptions::default())
                .await
                .unwrap()
                .0
        };
        // A handshake that stalls: connected, and silent.
        let stalled = TcpStream::connect(addr).await.unwrap();
        let bad_frames: Vec<Vec<u8>> = vec![
            frame(&[1, 2, 3]),                            // not a pass-through frame
            frame(&[112, 131, 104, 9]),                   // a truncated control term
            frame(&[112, 131, 104, 2, 97, 2, 100, 0, 1]), // truncated atom
            (u32::MAX - 1).to_be_bytes().to_vec(),        // a frame longer than any limit
            frame(&[112, 131, 104, 1, 97, 99]),           // an unknown control op
        ];
        for (i, bad) in bad_frames.into_iter().enumerate() {
            let mut s = handshaken(format!("{}@127.0.0.1", unique(&format!("raw{i}_")))).await;
            s.write_all(&bad).await.unwrap();
            closed(s).await;
        }
        // Meanwhile the node serves others: a good connection delivers a message.
        let (tx, rx) = tokio::sync::oneshot::channel();
        let inbox = mote::spawn(move |mut p: Process<WireTerm>| async move {
            let _ = tx.send(p.recv().await);
        });
        let name = unique("inbox");
        mote_dist::node::register(&name, inbox).unwrap();
        let peer = format!("{}@127.0.0.1", unique("good"));
        let mut s = handshaken(peer.clone()).await;
        let me = mote_dist::etf::ErlPid {
            node: mote_dist::etf::Atom::new(&peer).unwrap(),
            id: 1,
            serial: 0,
            creation: 1,
        };
        let good = mote_dist::connection::FrameBuilder::new(
            &mote_dist::connection::ControlMessage::RegSend {
                from: me,
                to_name: mote_dist::etf::Atom::new(&name).unwrap(),
            },
        )
        .unwrap()
        .payload_term(&WireTerm::atom("still_serving").unwrap())
        .unwrap()
        .finish()
        .unwrap();
        s.write_all(&good).await.unwrap();
        let got = within("the good message", rx).await.unwrap();
        assert_eq!(got, WireTerm::atom("still_serving").unwrap());
        // The stalled handshake is given up after the handshake timeout (7 s).
        closed(stalled).await;
    });
}

/// Erlang spawns registered mote functions: `spawn/4` gets a mote pid that works, and
/// `spawn_link/4` links the new process to the caller before it runs (its end reaches the
/// trapping caller with its reason).
#[test]
fn erl_spawns_registered_mote_functions() {
    if !erl_or_skip("erl_spawns_registered_mote_functions") {
        return;
    }
    run(async {
        let (node, epmd_port) = node().await;
        mote_dist::node::register_spawn(
            "mote_worker",
            "greet",
            |(to, n): (Pid<WireTerm>, i64), p: Process<WireTerm>| async move {
                let me = WireTerm::Pid(mote_dist::node_table::to_wire(p.id()));
                to.send(WireTerm::Tuple(vec![
                    WireTerm::atom("hello").unwrap(),
                    me,
                    WireTerm::Int(n * 2),
                ]));
            },
        )
        .unwrap();
        mote_dist::node::register_spawn(
            "mote_worker",
            "crash",
            |(): (), p: Process<()>| async move {
                p.exit(mote::ExitReason::shutdown_with(mote::Term::atom("spawned")))
            },
        )
        .unwrap();
        let erl_name = format!("{}@127.0.0.1", unique("erl"));
        let eval = format!(
            "Mote = '{mote}', process_flag(trap_exit, true), \
             P = spawn(Mote, mote_worker, greet, [self(), 21]), \
             receive {{hello, P, N}} -> io:format(\"greeted ~p ~p~n\", [node(P) =:= Mote, N]) \
               after 30000 -> exit(no_greeting) end, \
             L = spawn_link(Mote, mote_worker, crash, []), \
             receive {{'EXIT', L, Why}} -> io:format(\"linked_exit ~p~n\", [Why]) \
               after 30000 -> exit(no_exit) end, \
             halt().",
            mote = node.name()
        );
        let mut erl = erl("-name", &erl_name, COOKIE, *epmd_port, &[], &eval);
        assert_eq!(erl.expect("greeted").await, "true 42");
        assert_eq!(erl.expect("linked_exit").await, "{shutdown,spawned}");
    });
}
