//! The wire layer against a real `erl` on loopback: ping, sends both ways, the term zoo,
//! wrong cookies, and garbage from a raw socket.

mod common;

use common::*;
use mote_dist::connection::{ControlMessage, FrameBuilder};
use mote_dist::epmd::EpmdServer;
use mote_dist::etf::WireTerm;
use mote_dist::handshake::{HandshakeError, NodeName};

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
    assert!(matches!(err, HandshakeError::BadCookie { .. }), "{err}");
}
