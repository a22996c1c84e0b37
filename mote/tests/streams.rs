//! Streams into mailboxes (`attach_stream`), and the cancel-safety of `recv` in `select!`.

use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use mote::{testkit, ExitReason, Process};

const LONG: Duration = Duration::from_secs(10);

#[derive(Debug, PartialEq)]
enum Msg {
    Item(u32),
    End,
    Other(u32),
}

/// A stream fed by a channel: the test decides when items come and when it ends.
fn channel() -> (
    tokio::sync::mpsc::UnboundedSender<u32>,
    impl futures_core::Stream<Item = u32> + Send + 'static,
) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    (tx, stream::poll_fn(move |cx| rx.poll_recv(cx)))
}

#[test]
fn items_arrive_in_order_then_the_end() {
    testkit::run_test(LONG, |mut p: Process<Msg>| async move {
        mote::attach_stream(p.pid(), stream::iter(0..100u32), Msg::Item, || Msg::End);
        for i in 0..100 {
            assert_eq!(testkit::assert_receive(&mut p, LONG).await, Msg::Item(i));
        }
        assert_eq!(testkit::assert_receive(&mut p, LONG).await, Msg::End);
    });
}

#[test]
fn a_cancelled_stream_sends_nothing_more_and_is_dropped() {
    testkit::run_test(LONG, |mut p: Process<Msg>| async move {
        let (tx, items) = channel();
        let attached = mote::attach_stream(p.pid(), items, Msg::Item, || Msg::End);
        tx.send(1).unwrap();
        assert_eq!(testkit::assert_receive(&mut p, LONG).await, Msg::Item(1));
        attached.cancel();
        assert_eq!(
            testkit::wait_exit(attached.id(), LONG).await,
            ExitReason::Normal
        );
        // The stream was dropped with the forwarder; the target lives on and got no end.
        assert!(tx.is_closed());
        p.pid().send(Msg::Other(7));
        assert_eq!(testkit::assert_receive(&mut p, LONG).await, Msg::Other(7));
    });
}

#[test]
fn the_forwarder_goes_with_its_target_even_on_a_normal_end() {
    testkit::run_test(LONG, |_p: Process<()>| async move {
        let (tx, items) = channel();
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        let target = mote::spawn(move |mut t: Process<Msg>| async move {
            let attached = mote::attach_stream(t.pid(), items, Msg::Item, || Msg::End);
            let _ = ready_tx.send(attached);
            t.recv().await; // the first item, then a normal end
        });
        let attached = ready_rx.await.unwrap();
        tx.send(1).unwrap();
        assert_eq!(testkit::wait_exit(target, LONG).await, ExitReason::Normal);
        testkit::wait_exit(attached.id(), LONG).await;
        assert!(tx.is_closed());
    });
}

#[test]
fn a_panicking_stream_reaches_the_target_through_the_link() {
    testkit::run_test(LONG, |mut p: Process<mote::Exit>| async move {
        p.trap_exit(true);
        let exploding = stream::iter([1u32]).map(|_| -> u32 { panic!("the stream broke") });
        let attached = mote::attach_stream(
            p.pid(),
            exploding,
            |_| -> mote::Exit { unreachable!("the stream yields nothing") },
            || -> mote::Exit { unreachable!("the stream never ends") },
        );
        let exit = testkit::assert_receive(&mut p, LONG).await;
        assert_eq!(exit.from, attached.id());
        assert_eq!(exit.reason, ExitReason::Panic("the stream broke".into()));
    });
}

/// `recv` dropped while waiting (another `select!` branch won) loses no message: the
/// message that comes later is the next one received.
#[test]
fn recv_dropped_by_select_loses_no_message() {
    testkit::run_test(LONG, |mut p: Process<u32>| async move {
        let me = p.pid();
        let sender = mote::spawn(move |_s: Process<()>| async move {
            for i in 0..10_000u32 {
                me.send(i);
                if i % 7 == 0 {
                    mote::yield_now().await;
                }
            }
        });
        let mut got = Vec::new();
        while got.len() < 10_000 {
            tokio::select! {
                m = p.recv() => got.push(m),
                // Wins whenever the mailbox is empty at the first poll.
                () = mote::yield_now() => {}
            }
        }
        assert_eq!(got, (0..10_000).collect::<Vec<_>>());
        testkit::wait_exit(sender, LONG).await;
    });
}

/// A selective receive dropped after it skipped messages leaves them in the mailbox, in order.
#[test]
fn recv_matching_dropped_by_select_keeps_the_skipped_messages_in_order() {
    testkit::run_test(LONG, |mut p: Process<u32>| async move {
        for i in 1..=3 {
            p.pid().send(i);
        }
        tokio::select! {
            biased;
            _ = p.recv_matching(|m| *m == 99) => panic!("nothing matches"),
            () = std::future::ready(()) => {}
        }
        testkit::assert_mailbox(&mut p, &[1, 2, 3]);
    });
}
