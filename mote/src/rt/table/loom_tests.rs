//! Model checks of the mailbox: the queue and the park/wake protocol of `Slot`.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p mote --lib --release loom`.
//! A lost wake-up shows up as a receiver that spins forever, which loom reports.
//!
//! Without `--cfg loom` the same bodies run as plain threaded tests, many times over: in
//! `cargo test`, and under miri (`.ci/run`), which checks each run of the unsafe queue and
//! slot code for undefined behaviour and data races.

use std::sync::Arc;
use std::task::{Wake, Waker};

#[cfg(loom)]
use loom::{model, thread};
#[cfg(not(loom))]
use std::thread;

/// Without loom: the body, run over and over on real threads (fewer times under miri,
/// which is slow but checks every access).
#[cfg(not(loom))]
fn model(body: impl Fn()) {
    for _ in 0..if cfg!(miri) { 20 } else { 2_000 } {
        body();
    }
}

use crate::rt::table::slot::drain;
use crate::rt::table::Slot;

/// The receiver's "task": waking it unparks its thread. A lost wake-up leaves the receiver
/// parked forever, which loom reports as a deadlock.
struct Flag(thread::Thread);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Receives `n` messages the way a process does: pop, else park and wait for the wake.
fn receive(slot: &Slot, n: usize) -> Vec<u32> {
    let mut got = Vec::new();
    while got.len() < n {
        // SAFETY: this thread is the only consumer, and every message is a `u32`.
        if let Some((_, m)) = unsafe { slot.pop::<u32>() } {
            got.push(m);
            continue;
        }
        // SAFETY: owner-only; the task waker is in use.
        if unsafe { slot.park(false) } {
            thread::park();
        } else {
            // A push is half done; the real receiver spins a little, then yields.
            thread::yield_now();
        }
    }
    got
}

/// Ends the slot's incarnation as recycling does: frees the queue's last node (the dummy
/// the final pop left) and the waker.
fn release(slot: &Slot) {
    // SAFETY: every sender has been joined and the receiver is done.
    unsafe { slot.vacate() };
}

fn occupied_slot() -> (Arc<Slot>, Arc<Flag>) {
    let slot = Arc::new(Slot::new());
    slot.queue.init();
    let flag = Arc::new(Flag(thread::current()));
    // SAFETY: the slot is fresh, and its messages are `u32`s.
    unsafe { slot.occupy(Waker::from(Arc::clone(&flag)), drain::<u32>) };
    (slot, flag)
}

#[test]
fn loom_two_senders_one_receiver_no_lost_wakeup() {
    model(|| {
        let (slot, _flag) = occupied_slot();
        let senders: Vec<_> = [(1u32, true), (2u32, false)]
            .into_iter()
            .map(|(value, pinned)| {
                let slot = Arc::clone(&slot);
                // One sender on each path: inside a process (pinned) and outside (references).
                thread::spawn(move || {
                    // SAFETY: serial 0 is the live incarnation, whose type is `u32`.
                    unsafe { slot.send::<u32>(0, 0, value, pinned) }.expect("alive");
                })
            })
            .collect();
        let mut got = receive(&slot, 2);
        for s in senders {
            s.join().unwrap();
        }
        got.sort_unstable();
        assert_eq!(got, [1, 2]);
        release(&slot);
    });
}

#[test]
fn loom_one_sender_keeps_order() {
    model(|| {
        let (slot, _flag) = occupied_slot();
        let sender = {
            let slot = Arc::clone(&slot);
            thread::spawn(move || {
                for value in [1u32, 2] {
                    // SAFETY: serial 0 is the live incarnation, whose type is `u32`.
                    unsafe { slot.send::<u32>(0, 0, value, true) }.expect("alive");
                }
            })
        };
        assert_eq!(receive(&slot, 2), [1, 2]);
        sender.join().unwrap();
        release(&slot);
    });
}

/// A message that counts its drops.
#[cfg(loom)]
struct Counted(Arc<loom::sync::atomic::AtomicUsize>);

#[cfg(loom)]
impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, crate::rt::sync::Ordering::Relaxed);
    }
}

/// A sender outside any process (holding a reference for its push) races the process's
/// end: the slot is recycled exactly once, by whoever lets go last, and the message is
/// dropped exactly once (handed back to the sender, or drained with the mailbox). Loom
/// only: recycling outside loom hands the slot to the process table.
#[cfg(loom)]
#[test]
fn loom_send_racing_exit_recycles_once() {
    use crate::rt::sync::Ordering;
    model(|| {
        let drops = Arc::new(loom::sync::atomic::AtomicUsize::new(0));
        let slot = Arc::new(Slot::new());
        slot.queue.init();
        let flag = Arc::new(Flag(thread::current()));
        // SAFETY: the slot is fresh, and its messages are `Counted`.
        unsafe { slot.occupy(Waker::from(flag), drain::<Counted>) };
        let sender = {
            let (slot, drops) = (Arc::clone(&slot), Arc::clone(&drops));
            thread::spawn(move || {
                // SAFETY: serial 0 is the incarnation, whose type is `Counted`.
                let refused = unsafe { slot.send::<Counted>(0, 0, Counted(drops), false) };
                drop(refused);
            })
        };
        slot.begin_exit();
        slot.release_own_reference();
        sender.join().unwrap();
        assert_eq!(drops.load(Ordering::Relaxed), 1, "the message dropped once");
        assert_eq!(slot.serial(), 1, "recycled once");
        assert!(!slot.is_alive(0));
    });
}

/// A sender's push racing the process's exit (`begin_exit`, then the owner's last drain):
/// the message is refused, or found by that drain, or the sender learns right after its push
/// that the process had begun to exit (`Sent`). No message is left unseen by
/// both sides, which is what lets a call racing its server's death end at once.
#[cfg(loom)]
#[test]
fn loom_a_push_racing_the_exit_is_drained_or_seen() {
    use crate::rt::sync::Ordering;
    model(|| {
        let drops = Arc::new(loom::sync::atomic::AtomicUsize::new(0));
        let slot = Arc::new(Slot::new());
        slot.queue.init();
        let flag = Arc::new(Flag(thread::current()));
        // SAFETY: the slot is fresh, and its messages are `Counted`.
        unsafe { slot.occupy(Waker::from(flag), drain::<Counted>) };
        let sender = {
            let (slot, drops) = (Arc::clone(&slot), Arc::clone(&drops));
            thread::spawn(move || {
                // SAFETY: serial 0 is the incarnation, whose type is `Counted`.
                match unsafe { slot.send::<Counted>(0, 0, Counted(drops), false) } {
                    Err(refused) => {
                        drop(refused);
                        true
                    }
                    Ok(sent) => !sent.before_exit,
                }
            })
        };
        slot.begin_exit();
        // SAFETY: this thread is the queue's only consumer; the messages are `Counted`.
        unsafe { slot.drop_queued() };
        let drained = drops.load(Ordering::SeqCst) == 1;
        let sender_knows = sender.join().unwrap();
        assert!(
            drained || sender_knows,
            "a message neither drained nor known to its sender as too late"
        );
        // SAFETY: the sender is joined; nothing else touches the slot.
        unsafe { slot.vacate() };
        assert_eq!(drops.load(Ordering::SeqCst), 1, "the message dropped once");
    });
}
