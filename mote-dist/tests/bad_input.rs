//! Bad input from a peer ends that connection only, with a typed error; the node keeps
//! serving. Mote-to-mote over loopback (no erl needed).

mod common;

use std::time::Duration;

use common::*;
use mote_dist::connection::{ConnectionOptions, ControlMessage, FrameBuilder};
use mote_dist::epmd::EpmdServer;
use mote_dist::etf::WireTerm;
use mote_dist::handshake::{self, Cookie, HandshakeOptions, LocalNode, NodeName};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// Connects a raw socket to `node` and completes the handshake as `name`.
async fn handshaken(node: &TestNode, name: &str) -> TcpStream {
    let me = LocalNode::new(name.parse().unwrap(), Cookie::new("cookie"), 1);
    let stream = TcpStream::connect(node.addr).await.unwrap();
    let (stream, _) =
        handshake::connect(stream, &me, &node.local.name, &HandshakeOptions::default())
            .await
            .unwrap();
    stream
}

#[tokio::test]
async fn garbage_closes_that_connection_only() {
    let epmd = EpmdServer::bind("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let port = epmd.local_addr().port();
    let opts = ConnectionOptions {
        limits: mote_dist::etf::DecodeLimits {
            max_size: 1 << 20,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut node = TestNode::start_with(
        &format!("{}@127.0.0.1", unique("mote")),
        "cookie",
        port,
        false,
        Default::default(),
        opts,
    )
    .await;

    let mut deep = vec![
        112, 131, 104, 3, 97, 22, 88, 119, 3, b'a', b'@', b'b', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1,
    ];
    deep.extend_from_within(6..24);
    deep.push(131);
    for _ in 0..1000 {
        deep.extend_from_slice(&[104, 1]);
    }
    deep.push(106);
    let unknown_op = {
        let mut b = vec![112];
        b.extend(WireTerm::Tuple(vec![WireTerm::Int(99)]).encode().unwrap());
        b
    };
    let long_atom = {
        let mut b = vec![
            112, 131, 104, 4, 97, 6, 88, 119, 3, b'a', b'@', b'b', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
            1, 119, 0,
        ];
        b.extend_from_slice(&[118, 1, 0]);
        b.extend(std::iter::repeat_n(b'x', 256));
        b
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("not pass-through", frame(&[1, 2, 3]), "protocol error"),
        ("atom-cache header", frame(&[131, 68, 0]), "protocol error"),
        (
            "oversized frame",
            vec![0x7f, 0xff, 0xff, 0xff],
            "exceeds the limit",
        ),
        (
            "truncated control term",
            frame(&[112, 131, 104, 3, 97, 1]),
            "bad term",
        ),
        ("not a tuple", frame(&[112, 131, 97, 1]), "bad term"),
        ("unknown op", frame(&unknown_op), "unknown control op 99"),
        ("atom too long", frame(&long_atom), "255"),
        ("payload nested too deep", frame(&deep), "deeper"),
        ("payload missing", frame(&deep[..24]), "bad term"),
        (
            "truncated frame then EOF",
            vec![0, 0, 0, 10, 112, 131],
            "I/O error",
        ),
    ];
    for (i, (what, bytes, expected)) in cases.into_iter().enumerate() {
        let peer = format!("raw{i}@127.0.0.1");
        let mut s = handshaken(&node, &peer).await;
        s.write_all(&bytes).await.unwrap();
        if what.contains("EOF") {
            s.shutdown().await.unwrap();
        }
        match node.next_seen().await {
            Seen::Closed(name, e) => {
                assert_eq!(name.as_str(), peer);
                assert!(e.contains(expected), "{what}: {e}");
            }
            other => panic!("{what}: expected the connection closed, got {other:?}"),
        }
        closed(s).await;
    }

    // The node still serves: a well-formed connection delivers its message.
    let other: NodeName = format!("{}@127.0.0.1", unique("ok")).parse().unwrap();
    let mut s = handshaken(&node, other.as_str()).await;
    let to = node.pid(3);
    let f = FrameBuilder::new(&ControlMessage::Send { to: to.clone() })
        .unwrap()
        .payload(&"still here", &Default::default())
        .unwrap()
        .finish()
        .unwrap();
    s.write_all(&f).await.unwrap();
    let (from, msg) = node.next_message().await;
    assert_eq!(from, other);
    assert_eq!(msg.control, ControlMessage::Send { to });
    assert_eq!(
        msg.decode_payload::<String>(&Default::default()).unwrap(),
        "still here"
    );
}

#[tokio::test]
async fn a_stalled_or_broken_handshake_times_out_or_fails() {
    let epmd = EpmdServer::bind("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let hs = HandshakeOptions {
        timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let mut node = TestNode::start_with(
        &format!("{}@127.0.0.1", unique("mote")),
        "cookie",
        epmd.local_addr().port(),
        false,
        hs,
        Default::default(),
    )
    .await;
    let started = tokio::time::Instant::now();
    let silent = TcpStream::connect(node.addr).await.unwrap();
    match node.next_seen().await {
        Seen::HandshakeFailed(e) => assert!(e.contains("did not complete"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "timed out early"
    );
    closed(silent).await;

    for (what, bytes) in [
        (
            "old version 5 send_name",
            vec![0, 7, b'n', 0, 5, 0, 0, 0, 0],
        ),
        ("garbage", vec![0, 3, 1, 2, 3]),
        ("name without host", {
            let mut b = vec![0, 18, b'N'];
            b.extend_from_slice(
                &mote_dist::handshake::DistFlags::IMPLEMENTED
                    .bits()
                    .to_be_bytes(),
            );
            b.extend_from_slice(&[0, 0, 0, 1, 0, 3]);
            b.extend_from_slice(b"abc");
            b
        }),
    ] {
        let mut s = TcpStream::connect(node.addr).await.unwrap();
        s.write_all(&bytes).await.unwrap();
        match node.next_seen().await {
            Seen::HandshakeFailed(e) => assert!(e.contains("protocol error"), "{what}: {e}"),
            other => panic!("{what}: {other:?}"),
        }
        closed(s).await;
    }

    // Missing mandatory flags: refused with not_allowed.
    let mut me = LocalNode::new("old@127.0.0.1".parse().unwrap(), Cookie::new("cookie"), 1);
    me.flags.remove(mote_dist::handshake::DistFlags::UNLINK_ID);
    let s = TcpStream::connect(node.addr).await.unwrap();
    let err = handshake::connect(s, &me, &node.local.name, &HandshakeOptions::default())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not_allowed"), "{err}");
    match node.next_seen().await {
        Seen::HandshakeFailed(e) => assert!(e.contains("mandatory"), "{e}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn mote_nodes_connect_tick_and_detect_silence() {
    let epmd = EpmdServer::bind("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let port = epmd.local_addr().port();
    // Long enough that a loaded machine's scheduling delays cannot pass for silence (400 ms
    // once failed under a load average of 7), short next to Erlang's default of 60 s.
    let fast = ConnectionOptions {
        tick_time: Duration::from_millis(1000),
        ..Default::default()
    };
    let mut a = TestNode::start_with(
        &format!("{}@127.0.0.1", unique("a")),
        "cookie",
        port,
        true,
        Default::default(),
        fast.clone(),
    )
    .await;
    let b = TestNode::start_with(
        &format!("{}@127.0.0.1", unique("b")),
        "cookie",
        port,
        false,
        Default::default(),
        fast.clone(),
    )
    .await;

    // b connects to a; both stay idle for several tick times, kept alive by ticks.
    let to_a = b.connect(&a.local.name).await.unwrap();
    assert!(!to_a.peer().is_hidden());
    tokio::time::sleep(Duration::from_millis(3000)).await;
    let f = FrameBuilder::new(&ControlMessage::Send { to: a.pid(1) })
        .unwrap()
        .payload(&1u8, &Default::default())
        .unwrap()
        .finish()
        .unwrap();
    to_a.send(f).await.unwrap();
    let (from, _) = a.next_message().await;
    assert_eq!(from, b.local.name);

    // A peer that completes the handshake and then says nothing, not even ticks, is
    // declared down after the tick time. b's connection is not what this part checks: on a
    // starved machine (a test run beside real-time benchmarks) b's ticks can come late
    // enough for it to be declared down first, so its end is let pass.
    let s = handshaken(&a, "mute@127.0.0.1").await;
    loop {
        match a.next_seen().await {
            Seen::Closed(name, e) if name.as_str() == "mute@127.0.0.1" => {
                assert!(e.contains("silent"), "{e}");
                break;
            }
            Seen::Closed(name, _) if name == b.local.name => {}
            other => panic!("{other:?}"),
        }
    }
    drop(s);
}
