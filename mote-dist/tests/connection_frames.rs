//! The connected phase's framing over streams that cut frames anywhere: the receiver
//! reads many frames at once and slices them out of its buffer, so frames split across
//! reads, frames larger than a read, and ticks between them must all come out whole and
//! in order.

use bytes::Bytes;
use mote_dist::connection::{self, ControlMessage, FrameBuilder};
use mote_dist::etf::{Atom, ErlPid, WireTerm};
use mote_dist::handshake::{accept, connect, Cookie, HandshakeOptions, LocalNode};
use tokio::io::AsyncWriteExt;

fn pid() -> ErlPid {
    ErlPid {
        node: Atom::new("b@h").unwrap(),
        id: 1,
        serial: 0,
        creation: 2,
    }
}

/// Message `i`: a binary whose size and bytes depend on `i`, some far larger than a read.
fn message(i: usize) -> WireTerm {
    let len = match i % 5 {
        0 => 0,
        1 => 3,
        2 => 100,
        3 => 70_000,
        _ => 300_000 + i,
    };
    WireTerm::Tuple(vec![
        WireTerm::Int(i as i64),
        WireTerm::Binary((0..len).map(|j| (i + j) as u8).collect::<Vec<u8>>().into()),
    ])
}

fn frame(i: usize) -> Bytes {
    FrameBuilder::new(&ControlMessage::Send { to: pid() })
        .unwrap()
        .payload_term(&message(i))
        .unwrap()
        .finish()
        .unwrap()
}

#[tokio::test]
async fn frames_cut_anywhere_arrive_whole_and_in_order() {
    let a = LocalNode::new("a@h".parse().unwrap(), Cookie::new("c"), 1);
    let b = LocalNode::new("b@h".parse().unwrap(), Cookie::new("c"), 2);
    // A small pipe: the receiver sees frames in pieces of at most 1000 bytes.
    let (sa, sb) = tokio::io::duplex(1000);
    let opts = HandshakeOptions::default();
    let (ra, rb) = tokio::join!(connect(sa, &a, &b.name, &opts), accept(sb, &b, &opts));
    let ((mut raw, _), (sb, a_info)) = (ra.unwrap(), rb.unwrap());
    let (_to_a, mut from_a) = connection::start(sb, a_info, Default::default());

    const N: usize = 60;
    let writer = tokio::spawn(async move {
        for i in 0..N {
            // Ticks between frames, and writes that end mid-frame.
            raw.write_all(&[0, 0, 0, 0]).await.unwrap();
            let f = frame(i);
            let cut = f.len() / 3;
            raw.write_all(&f[..cut]).await.unwrap();
            raw.flush().await.unwrap();
            tokio::task::yield_now().await;
            raw.write_all(&f[cut..]).await.unwrap();
        }
        raw
    });
    for i in 0..N {
        let msg = from_a.recv().await.unwrap();
        assert_eq!(msg.control, ControlMessage::Send { to: pid() });
        assert_eq!(
            msg.payload_term(&Default::default()).unwrap(),
            message(i),
            "message {i}"
        );
    }
    drop(writer.await.unwrap());
    // The peer closed: an error, not a hang.
    assert!(from_a.recv().await.is_err());
}

#[tokio::test]
async fn a_frame_over_the_limit_is_refused() {
    let a = LocalNode::new("a@h".parse().unwrap(), Cookie::new("c"), 1);
    let b = LocalNode::new("b@h".parse().unwrap(), Cookie::new("c"), 2);
    let (sa, sb) = tokio::io::duplex(1 << 20);
    let opts = HandshakeOptions::default();
    let (ra, rb) = tokio::join!(connect(sa, &a, &b.name, &opts), accept(sb, &b, &opts));
    let ((mut raw, _), (sb, a_info)) = (ra.unwrap(), rb.unwrap());
    let mut conn_opts = connection::ConnectionOptions::default();
    conn_opts.limits.max_size = 1000;
    let (_to_a, mut from_a) = connection::start(sb, a_info, conn_opts);
    raw.write_all(&frame(2)).await.unwrap();
    raw.write_all(&frame(3)).await.unwrap();
    assert!(from_a.recv().await.is_ok());
    assert!(matches!(
        from_a.recv().await,
        Err(connection::ConnectionError::FrameTooLarge { .. })
    ));
}
