//! The wire layer against a real `erl` on loopback: ping, sends both ways, the term zoo,
//! wrong cookies, and garbage from a raw socket.

mod common;

use common::*;
use mote_dist::connection::{ControlMessage, FrameBuilder};
use mote_dist::epmd::EpmdServer;
use mote_dist::etf::{ErlPid, ErlRef, WireTerm};
use mote_dist::handshake::{DialError, HandshakeError, NodeName};

async fn embedded_epmd() -> EpmdServer {
    EpmdServer::bind("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

/// `net_adm:ping` from erl, published and hidden, long and short names: `pong`.
#[tokio::test]
async fn erl_pings_us_and_gets_pong() {
    if !erl_or_skip("erl_pings_us_and_gets_pong") {
        return;
    }
    let epmd = embedded_epmd().await;
    let port = epmd.local_addr().port();
    for (published, flag, host) in [(false, "-name", "127.0.0.1"), (true, "-sname", "vm")] {
        let ours = format!("{}@{host}", unique("mote"));
        let _node = TestNode::start(&ours, "cookie", port, published).await;
        for hidden in [false, true] {
            let name = format!("{}@{host}", unique("pinger"));
            let extra: &[&str] = if hidden { &["-hidden"] } else { &[] };
            let mut erl = erl(
                flag,
                &name,
                "cookie",
                port,
                extra,
                &format!(
                    "io:format(\"ping ~p~n\", [net_adm:ping('{ours}')]), \
                     io:format(\"nodes ~p~n\", [nodes(connected)]), halt()."
                ),
            );
            assert_eq!(
                erl.expect("ping ").await,
                "pong",
                "{flag} hidden={hidden} published={published}"
            );
            assert!(erl.expect("nodes ").await.contains(&ours));
        }
    }
}

/// We connect to erl, send to a registered process, and its reply reaches our pid.
#[tokio::test]
async fn we_send_to_a_registered_erl_process_and_it_replies() {
    if !erl_or_skip("we_send_to_a_registered_erl_process_and_it_replies") {
        return;
    }
    let epmd = embedded_epmd().await;
    let port = epmd.local_addr().port();
    let mut node = TestNode::start(
        &format!("{}@127.0.0.1", unique("mote")),
        "cookie",
        port,
        false,
    )
    .await;
    let erl_name: NodeName = format!("{}@127.0.0.1", unique("echo")).parse().unwrap();
    let mut erl = erl(
        "-name",
        erl_name.as_str(),
        "cookie",
        port,
        &[],
        "register(echo, self()), io:format(\"ready~n\"), \
         receive {From, Msg} -> From ! {echoed, Msg, node()} end, \
         receive stop -> ok end.",
    );
    erl.expect("ready").await;
    let sender = within("connecting to erl", node.connect(&erl_name))
        .await
        .expect("handshake");
    assert!(sender
        .peer()
        .flags
        .contains(mote_dist::handshake::DistFlags::MANDATORY));

    let me = node.pid(7);
    let frame = FrameBuilder::new(&ControlMessage::RegSend {
        from: me.clone(),
        to_name: atom("echo"),
    })
    .unwrap()
    .payload_term(&WireTerm::Tuple(vec![
        WireTerm::Pid(me.clone()),
        WireTerm::atom("hello").unwrap(),
    ]))
    .unwrap()
    .finish()
    .unwrap();
    sender.send(frame).await.unwrap();

    let (from, msg) = node.next_message().await;
    assert_eq!(from, erl_name);
    let to = match &msg.control {
        ControlMessage::Send { to } | ControlMessage::SendSender { to, .. } => to.clone(),
        other => panic!("expected a send, got {other:?}"),
    };
    assert_eq!(to, me);
    assert_eq!(
        msg.payload_term(&Default::default()).unwrap(),
        WireTerm::Tuple(vec![
            WireTerm::atom("echoed").unwrap(),
            WireTerm::atom("hello").unwrap(),
            WireTerm::Atom(erl_name.atom().clone()),
        ])
    );
}

/// A wrong cookie is refused in both roles: no challenge ack, no connection.
#[tokio::test]
async fn wrong_cookie_is_refused_both_ways() {
    if !erl_or_skip("wrong_cookie_is_refused_both_ways") {
        return;
    }
    let epmd = embedded_epmd().await;
    let port = epmd.local_addr().port();
    let mut node = TestNode::start(
        &format!("{}@127.0.0.1", unique("mote")),
        "ours",
        port,
        false,
    )
    .await;

    // erl (another cookie) pings us: pang, and our acceptor reports the bad digest.
    let erl_name: NodeName = format!("{}@127.0.0.1", unique("other")).parse().unwrap();
    let mut erl = erl(
        "-name",
        erl_name.as_str(),
        "theirs",
        port,
        &[],
        &format!(
            "io:format(\"ready~n\"), io:format(\"ping ~p~n\", [net_adm:ping('{}')]), receive stop -> ok end.",
            node.local.name
        ),
    );
    assert_eq!(erl.expect("ping ").await, "pang");
    match node.next_seen().await {
        Seen::HandshakeFailed(e) => assert!(e.contains("different cookie"), "{e}"),
        other => panic!("expected a failed handshake, got {other:?}"),
    }

    // We connect to erl with our cookie: erl sends no ack.
    let err = within("connecting with a wrong cookie", node.connect(&erl_name))
        .await
        .unwrap_err();
    assert!(
        matches!(err, DialError::Handshake(HandshakeError::BadCookie { .. })),
        "{err}"
    );
}

/// The Rust side of the zoo (see `tests/erl/mote_zoo.erl`): everything but erl's own
/// pid, reference and port, which are `None` here.
fn zoo(peer_pid: &ErlPid, peer_ref: &ErlRef) -> Vec<Option<WireTerm>> {
    use num_bigint::BigInt;
    let a = |s: &str| Some(WireTerm::atom(s).unwrap());
    let i = |v: i64| Some(WireTerm::Int(v));
    let big = |v: BigInt| Some(WireTerm::BigInt(v));
    let f = |v: f64| Some(WireTerm::Float(v));
    let bin = |b: &[u8]| Some(WireTerm::Binary(b.to_vec().into()));
    let ints = |r: std::ops::RangeInclusive<i64>| r.map(WireTerm::Int).collect::<Vec<_>>();
    vec![
        a("ok"),
        a("héllo"),
        a("日本語"),
        a(""),
        a(&"a".repeat(255)),
        i(0),
        i(255),
        i(256),
        i(-1),
        i(2147483647),
        i(-2147483648),
        i(2147483648),
        i(-2147483649),
        i(i64::MAX),
        i(i64::MIN),
        big(BigInt::from(u64::MAX)),
        big(BigInt::from(u64::MAX) + 1),
        big(BigInt::from(1u8) << 200u32),
        big(-(BigInt::from(1u8) << 200u32)),
        f(1.5),
        f(-2.5e-300),
        f(1.0e300),
        f(0.0),
        bin(b""),
        bin(&[1, 2, 3]),
        Some(WireTerm::BitBinary {
            data: vec![0b0010_0000].into(),
            last_bits: 3,
        }),
        bin("héllo".as_bytes()),
        Some(WireTerm::ByteList(b"abc".to_vec().into())),
        Some(WireTerm::List(vec![])),
        Some(WireTerm::List(vec![
            WireTerm::Int(1000),
            WireTerm::Int(2000),
        ])),
        Some(WireTerm::ImproperList(
            ints(1..=2),
            Box::new(WireTerm::Int(3)),
        )),
        Some(WireTerm::ImproperList(
            vec![WireTerm::atom("a").unwrap()],
            Box::new(WireTerm::atom("b").unwrap()),
        )),
        Some(WireTerm::Tuple(ints(1..=300))),
        Some(WireTerm::Map(vec![
            (WireTerm::Int(1), WireTerm::Float(2.5)),
            (
                WireTerm::atom("a").unwrap(),
                WireTerm::Map(vec![(
                    WireTerm::atom("b").unwrap(),
                    WireTerm::ByteList(vec![1, 2].into()),
                )]),
            ),
            (WireTerm::Binary("k".into()), WireTerm::Tuple(vec![])),
        ])),
        None,
        Some(WireTerm::Pid(peer_pid.clone())),
        None,
        Some(WireTerm::Ref(peer_ref.clone())),
        None,
        Some(WireTerm::List(ints(1..=100_000))),
        bin(&vec![7; 1 << 20]),
    ]
}

/// Sends `{Tag, OurPid, ...rest}` to erl's `zoo` process and returns the payload of its
/// reply.
async fn ask_zoo(
    node: &mut TestNode,
    sender: &mote_dist::connection::DistSender,
    body: Vec<WireTerm>,
) -> WireTerm {
    let me = node.pid(1);
    let frame = FrameBuilder::new(&ControlMessage::RegSend {
        from: me,
        to_name: atom("zoo"),
    })
    .unwrap()
    .payload_term(&WireTerm::Tuple(body))
    .unwrap()
    .finish()
    .unwrap();
    sender.send(frame).await.unwrap();
    let (_, msg) = node.next_message().await;
    msg.payload_term(&Default::default()).unwrap()
}

/// The term zoo both ways: erl checks `=:=` on what we encode, we decode what
/// `term_to_binary` makes, and send it back for erl to check again; funs survive the trip
/// opaque and still work on the BEAM.
#[tokio::test]
async fn term_zoo_round_trips_with_erl() {
    if !erl_or_skip("term_zoo_round_trips_with_erl") {
        return;
    }
    let ebin = std::env::temp_dir().join(unique("mote_zoo_ebin"));
    std::fs::create_dir_all(&ebin).unwrap();
    let erlc = std::process::Command::new("erlc")
        .arg("-o")
        .arg(&ebin)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/erl/mote_zoo.erl"
        ))
        .status()
        .unwrap();
    assert!(erlc.success());

    let epmd = embedded_epmd().await;
    let port = epmd.local_addr().port();
    let mut node = TestNode::start(
        &format!("{}@127.0.0.1", unique("mote")),
        "cookie",
        port,
        false,
    )
    .await;
    let erl_name: NodeName = format!("{}@127.0.0.1", unique("zoo")).parse().unwrap();
    let mut erl = erl(
        "-name",
        erl_name.as_str(),
        "cookie",
        port,
        &["-pa", ebin.to_str().unwrap()],
        "mote_zoo:start().",
    );
    erl.expect("ready").await;
    let sender = within("connecting to erl", node.connect(&erl_name))
        .await
        .unwrap();
    let (me, my_ref) = (node.pid(1), node.reference(&[1, 2, 3]));
    let ours = zoo(&me, &my_ref);

    // erl's zoo, decoded by us.
    let reply = ask_zoo(
        &mut node,
        &sender,
        vec![
            WireTerm::atom("send_zoo").unwrap(),
            WireTerm::Pid(me.clone()),
            WireTerm::Pid(me.clone()),
            WireTerm::Ref(my_ref.clone()),
        ],
    )
    .await;
    let WireTerm::Tuple(mut reply) = reply else {
        panic!("{reply:?}")
    };
    let WireTerm::Tuple(theirs) = reply.pop().unwrap() else {
        panic!("not a zoo")
    };
    assert_eq!(theirs.len(), ours.len());
    for (i, (got, want)) in theirs.iter().zip(&ours).enumerate() {
        match want {
            Some(want) => assert_eq!(canonical(got), canonical(want), "zoo element {}", i + 1),
            None => assert!(
                matches!(got, WireTerm::Pid(p) if p.node == *erl_name.atom())
                    || matches!(got, WireTerm::Ref(r) if r.node == *erl_name.atom())
                    || matches!(got, WireTerm::Port(p) if p.node == *erl_name.atom()),
                "zoo element {} should be erl's own: {got:?}",
                i + 1
            ),
        }
    }

    // Our encoding of the zoo, with erl's identifiers as we decoded them: erl checks =:=.
    let mine: Vec<WireTerm> = ours
        .into_iter()
        .zip(theirs)
        .map(|(o, t)| o.unwrap_or(t))
        .collect();
    let checked = ask_zoo(
        &mut node,
        &sender,
        vec![
            WireTerm::atom("check").unwrap(),
            WireTerm::Pid(me.clone()),
            WireTerm::Pid(me.clone()),
            WireTerm::Ref(my_ref.clone()),
            WireTerm::Tuple(mine),
        ],
    )
    .await;
    assert_eq!(
        checked,
        WireTerm::Tuple(vec![
            WireTerm::atom("checked").unwrap(),
            WireTerm::List(vec![])
        ]),
        "erl output:\n{}",
        erl.output()
    );

    // Funs: opaque here, intact there.
    let funs = ask_zoo(
        &mut node,
        &sender,
        vec![
            WireTerm::atom("send_funs").unwrap(),
            WireTerm::Pid(me.clone()),
        ],
    )
    .await;
    let WireTerm::Tuple(funs) = funs else {
        panic!("{funs:?}")
    };
    assert!(
        matches!(&funs[1], WireTerm::Fun(_)) && matches!(&funs[2], WireTerm::Fun(_)),
        "{funs:?}"
    );
    let ok = ask_zoo(
        &mut node,
        &sender,
        vec![
            WireTerm::atom("check_funs").unwrap(),
            WireTerm::Pid(me),
            funs[1].clone(),
            funs[2].clone(),
        ],
    )
    .await;
    assert_eq!(
        ok,
        WireTerm::Tuple(vec![
            WireTerm::atom("funs_ok").unwrap(),
            WireTerm::ByteList(vec![3, 2, 1].into()),
            WireTerm::Int(42)
        ])
    );
    std::fs::remove_dir_all(&ebin).unwrap();
}

/// Garbage after a handshake closes that connection; the node still answers erl.
#[tokio::test]
async fn garbage_from_a_raw_socket_leaves_the_node_serving_erl() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    if !erl_or_skip("garbage_from_a_raw_socket_leaves_the_node_serving_erl") {
        return;
    }
    let epmd = embedded_epmd().await;
    let port = epmd.local_addr().port();
    let mut node = TestNode::start(
        &format!("{}@127.0.0.1", unique("mote")),
        "cookie",
        port,
        false,
    )
    .await;

    let raw = mote_dist::handshake::LocalNode::new(
        "raw@127.0.0.1".parse().unwrap(),
        mote_dist::handshake::Cookie::new("cookie"),
        1,
    );
    let s = tokio::net::TcpStream::connect(node.addr).await.unwrap();
    let (mut s, _) = mote_dist::handshake::connect(s, &raw, &node.local.name, &Default::default())
        .await
        .unwrap();
    s.write_all(&[0, 0, 0, 5, 112, 131, 104, 9, 9])
        .await
        .unwrap();
    match node.next_seen().await {
        Seen::Closed(name, e) => assert!(
            name.as_str() == "raw@127.0.0.1" && e.contains("bad term"),
            "{e}"
        ),
        other => panic!("{other:?}"),
    }
    within("the raw connection to close", async {
        let mut buf = [0u8; 64];
        while !matches!(s.read(&mut buf).await, Ok(0) | Err(_)) {}
    })
    .await;

    let mut erl = erl(
        "-name",
        &format!("{}@127.0.0.1", unique("pinger")),
        "cookie",
        port,
        &[],
        &format!(
            "io:format(\"ping ~p~n\", [net_adm:ping('{}')]), halt().",
            node.local.name
        ),
    );
    assert_eq!(erl.expect("ping ").await, "pong");
}
