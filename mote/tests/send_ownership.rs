//! A sent message is dropped exactly once, whichever way the send goes: queued and
//! received, queued and left unread when its receiver ends, refused by a process that has
//! ended, from inside a process's poll and from outside one. The send path moves the message
//! by pointer into its mailbox cell and forgets the sender's copy; a slip there drops it
//! twice (a double free for a message that owns memory) or never.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mote::{Pid, Process};

/// Counts its drops. Big enough to be passed by pointer, with a tag and padding that the
/// send must carry over as they are.
struct Counted {
    drops: Arc<AtomicUsize>,
    tag: u8,
    payload: [u64; 3],
}

impl Counted {
    fn new(drops: &Arc<AtomicUsize>, tag: u8) -> Counted {
        Counted {
            drops: Arc::clone(drops),
            tag,
            payload: [u64::from(tag); 3],
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

async fn wait_dead(pid: Pid<Counted>) {
    while mote::is_alive(pid) {
        mote::sleep(Duration::from_millis(1)).await;
    }
}

#[test]
fn every_sent_message_is_dropped_exactly_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let d = Arc::clone(&drops);
    mote::run(move |_p: Process<()>| async move {
        // Received: dropped by the receiver, once, intact.
        let receiver = mote::spawn(|mut r: Process<Counted>| async move {
            for tag in 0..3u8 {
                let m = r.recv().await;
                assert_eq!((m.tag, m.payload), (tag, [u64::from(tag); 3]));
            }
        });
        for tag in 0..3u8 {
            receiver.send(Counted::new(&d, tag));
        }
        wait_dead(receiver).await;
        assert_eq!(d.load(Ordering::SeqCst), 3, "received messages");

        // Refused by an ended process: dropped by the send itself, once.
        receiver.send(Counted::new(&d, 9));
        assert_eq!(d.load(Ordering::SeqCst), 4, "a send to an ended process");

        // Queued and never read: dropped when the receiver ends, once. Several sends in
        // one poll to a receiver that is not waiting go through the outbox too.
        let sleeper = mote::spawn(|_s: Process<Counted>| async move {
            mote::sleep(Duration::from_millis(20)).await;
        });
        for tag in 0..5u8 {
            sleeper.send(Counted::new(&d, tag));
        }
        wait_dead(sleeper).await;
        // The unread messages go with the process's slot: wait for the drain.
        for _ in 0..2000 {
            if d.load(Ordering::SeqCst) == 9 {
                break;
            }
            mote::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(d.load(Ordering::SeqCst), 9, "messages left unread");
    })
    .unwrap();
    assert_eq!(drops.load(Ordering::SeqCst), 9);

    // From outside any process (no poll, no outbox): received, then refused.
    let d = Arc::clone(&drops);
    let (tx, rx) = std::sync::mpsc::channel();
    let receiver = mote::spawn(move |mut r: Process<Counted>| async move {
        let m = r.recv().await;
        assert_eq!((m.tag, m.payload), (7, [7; 3]));
        drop(m);
        tx.send(()).unwrap();
    });
    receiver.send(Counted::new(&d, 7));
    rx.recv_timeout(Duration::from_secs(10)).unwrap();
    while mote::is_alive(receiver) {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        d.load(Ordering::SeqCst),
        10,
        "received from outside a process"
    );
    receiver.send(Counted::new(&d, 8));
    assert_eq!(d.load(Ordering::SeqCst), 11, "refused outside a process");
}
