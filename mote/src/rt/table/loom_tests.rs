//! Model checks of the mailbox: the queue and the park/wake protocol of `Slot`.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p mote --lib --release loom`.
//! A lost wake-up shows up as a receiver that spins forever, which loom reports.
//!
//! Without `--cfg loom` the same bodies run as plain threaded tests, many times over: in
//! `cargo test`, and under miri (`.ci/run`), which checks each run of the unsafe queue and
//! slot code for undefined behaviour and data races.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::rt::sync::models::{model, thread, Unpark as Flag};

use crate::rt::table::slot::{drain, Kind};
use crate::rt::table::Slot;
use crate::rt::task::{Runnable, Schedule, TaskBody, TaskCell};

/// The slots' task: each poll unparks the receiver's thread (the test's stand-in for
/// running the process).
struct Unparker(Arc<Flag>);

impl TaskBody for Unparker {
    fn poll(self: Pin<&mut Self>, _: &TaskCell, _: &mut Context<'_>) -> Poll<()> {
        self.0 .0.unpark();
        Poll::Pending
    }
}

/// A task that completes at its first poll (a process that has ended), so that its slot
/// can be occupied again.
#[cfg(loom)]
struct Finished;

#[cfg(loom)]
impl TaskBody for Finished {
    fn poll(self: Pin<&mut Self>, _: &TaskCell, _: &mut Context<'_>) -> Poll<()> {
        Poll::Ready(())
    }
}

/// Runs a woken task at once, on the waking thread.
struct RunAtOnce;

impl Schedule for RunAtOnce {
    fn schedule(runnable: Runnable, _: bool) {
        runnable.run();
    }
}

/// Occupies the fresh `slot` with an [`Unparker`] of the current thread, runs it once (so
/// that it is idle, as a parked process is).
///
/// # Safety
/// `slot` is fresh, outlives its task (the `Arc` the tests keep until the end), and its
/// messages are of `kind`'s type.
unsafe fn occupy(slot: &Slot, kind: &'static Kind) {
    let flag = Arc::new(Flag(thread::current()));
    // SAFETY: the caller's promise.
    let runnable = unsafe { slot.occupy::<_, RunAtOnce>(Unparker(flag), kind, 0) };
    // The first poll's unpark is spurious; the receive loop checks its mailbox again.
    runnable.run();
}

/// The kinds of the slots below (the task size is not used).
const U32_KIND: Kind = Kind {
    drain: drain::<u32>,
    task_bytes: 0,
};
#[cfg(loom)]
const COUNTED_KIND: Kind = Kind {
    drain: drain::<Counted>,
    task_bytes: 0,
};

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

fn occupied_slot() -> Arc<Slot> {
    let slot = Arc::new(Slot::new());
    slot.queue.init();
    // SAFETY: the slot is fresh, kept until the end, and its messages are `u32`s.
    unsafe { occupy(&slot, &U32_KIND) };
    slot
}

#[test]
fn loom_two_senders_one_receiver_no_lost_wakeup() {
    model(|| {
        let slot = occupied_slot();
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
        let slot = occupied_slot();
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
        // SAFETY: the slot is fresh, kept until the end, and its messages are `Counted`.
        unsafe { occupy(&slot, &COUNTED_KIND) };
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
        // SAFETY: the slot is fresh, kept until the end, and its messages are `Counted`.
        unsafe { occupy(&slot, &COUNTED_KIND) };
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

/// Two producers push two messages each (one of them tagged) while the consumer pops: with
/// loom's blocks of 1 and 2 slots, the four positions span three blocks, so the producers
/// race to link blocks (the loser's allocation appended further on or freed), move `hint`
/// past full blocks, and the consumer frees blocks a producer may still be walking through.
/// Every message arrives once, each producer's in order, with its tag; loom reports a
/// producer touching a block after the consumer freed it (a race on the block's `live`).
#[test]
fn loom_queue_two_producers_hand_over_blocks() {
    use crate::rt::mailbox::queue::Queue;
    model(|| {
        let queue = Arc::new(Queue::new());
        let producers: Vec<_> = [10u32, 20]
            .into_iter()
            .map(|base| {
                let queue = Arc::clone(&queue);
                thread::spawn(move || {
                    for i in 0..2 {
                        // Producer 20's second message carries a tag (a `Down`'s reference).
                        let tag = if base == 20 && i == 1 { 7 } else { 0 };
                        // SAFETY: every message is a `u32`.
                        unsafe { queue.push::<u32>(tag, base + i) };
                    }
                })
            })
            .collect();
        let mut got = Vec::new();
        while got.len() < 4 {
            // SAFETY: this thread is the only consumer; the messages are `u32`s.
            match unsafe { queue.pop::<u32>() } {
                Some(message) => got.push(message),
                None => thread::yield_now(),
            }
        }
        for p in producers {
            p.join().unwrap();
        }
        // SAFETY: as above.
        assert!(unsafe { queue.is_empty() });
        let from = |base: u32| -> Vec<(u64, u32)> {
            got.iter()
                .copied()
                .filter(|&(_, m)| m / 10 == base / 10)
                .collect()
        };
        assert_eq!(from(10), [(0, 10), (0, 11)]);
        assert_eq!(from(20), [(0, 20), (7, 21)]);
        // SAFETY: every producer is joined; the messages are `u32`s.
        assert_eq!(unsafe { queue.drain::<u32>() }, 0);
    });
}

/// A batch of three (`push_many`, one claim) and a single push race the consumer: with
/// loom's blocks of 1 and 2 slots the batch spans two or three blocks, so it finds each
/// block as a push of its own would, while the consumer frees the blocks behind it. Every
/// message arrives once, the batch's in order; loom reports the batch touching a block
/// after the consumer freed it (a race on the block's `live`).
#[test]
fn loom_queue_a_batch_spans_blocks_beside_a_push() {
    use crate::rt::mailbox::queue::Queue;
    model(|| {
        let queue = Arc::new(Queue::new());
        let batch = {
            let queue = Arc::clone(&queue);
            thread::spawn(move || {
                let values = [10u32, 11, 12];
                // SAFETY: every message is a `u32`; the array's values are `Copy`.
                unsafe { queue.push_many::<u32>(values.as_ptr(), 3) };
            })
        };
        let single = {
            let queue = Arc::clone(&queue);
            // SAFETY: every message is a `u32`.
            thread::spawn(move || unsafe { queue.push::<u32>(0, 20) })
        };
        let mut got = Vec::new();
        while got.len() < 4 {
            // SAFETY: this thread is the only consumer; the messages are `u32`s.
            match unsafe { queue.pop::<u32>() } {
                Some((_, m)) => got.push(m),
                None => thread::yield_now(),
            }
        }
        batch.join().unwrap();
        single.join().unwrap();
        let batch: Vec<u32> = got.iter().copied().filter(|&m| m < 20).collect();
        assert_eq!(batch, [10, 11, 12]);
        assert!(got.contains(&20));
        // SAFETY: every producer is joined; the messages are `u32`s.
        unsafe {
            assert!(queue.is_empty());
            assert_eq!(queue.drain::<u32>(), 0);
        }
    });
}

/// A receiver that drained a burst gives up its large head block (`shrink_idle`: skip its
/// unused position, link a short block, move `hint` there, free the large one) while a
/// producer pushes two more: with loom's blocks, the burst of two ends in a 2-slot block
/// with one position unused. The producer's claim races the skip's CAS of the tail, its
/// walk from the old `hint` races the consumer's link and free. Every message arrives once
/// and in order; loom reports a producer touching the freed block (a race on its `live`).
#[test]
fn loom_queue_shrink_while_a_producer_pushes() {
    use crate::rt::mailbox::queue::Queue;
    model(|| {
        let queue = Arc::new(Queue::new());
        // SAFETY: single-threaded so far; every message is a `u32`.
        unsafe {
            queue.push::<u32>(0, 1);
            queue.push::<u32>(0, 2);
            assert_eq!(queue.pop::<u32>(), Some((0, 1)));
            assert_eq!(queue.pop::<u32>(), Some((0, 2)));
        }
        let producer = {
            let queue = Arc::clone(&queue);
            thread::spawn(move || {
                for m in [3, 4] {
                    // SAFETY: every message is a `u32`.
                    unsafe { queue.push::<u32>(0, m) };
                }
            })
        };
        // SAFETY: this thread is the only consumer; the messages are `u32`s.
        unsafe { queue.shrink_idle::<u32>() };
        let mut got = Vec::new();
        while got.len() < 2 {
            // SAFETY: as above.
            match unsafe { queue.pop::<u32>() } {
                Some((_, m)) => got.push(m),
                None => {
                    // SAFETY: as above.
                    unsafe { queue.shrink_idle::<u32>() };
                    thread::yield_now();
                }
            }
        }
        assert_eq!(got, [3, 4]);
        producer.join().unwrap();
        // SAFETY: the producer is joined.
        unsafe {
            assert!(queue.is_empty());
            assert_eq!(queue.drain::<u32>(), 0);
        }
    });
}

/// The owner's `drop_queued` after a push has claimed its position (the queue's length
/// counts it) but maybe not yet written its value: `drop_queued` waits for the value and
/// drops it (fails when it returns at the first empty pop).
#[cfg(loom)]
#[test]
fn loom_queue_drop_queued_waits_for_a_claimed_push() {
    use crate::rt::mailbox::queue::Queue;
    use crate::rt::sync::Ordering;
    model(|| {
        let drops = Arc::new(loom::sync::atomic::AtomicUsize::new(0));
        let queue = Arc::new(Queue::new());
        let producer = {
            let (queue, drops) = (Arc::clone(&queue), Arc::clone(&drops));
            thread::spawn(move || {
                // SAFETY: every message is a `Counted`.
                unsafe { queue.push::<Counted>(0, Counted(drops)) };
            })
        };
        // SAFETY: this thread is the only consumer.
        while unsafe { queue.len() } == 0 {
            thread::yield_now();
        }
        // SAFETY: this thread is the only consumer; the messages are `Counted`.
        let dropped = unsafe { queue.drop_queued::<Counted>() };
        assert_eq!(dropped, 1, "a claimed push waited for and dropped");
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        producer.join().unwrap();
        // SAFETY: the producer is joined.
        assert_eq!(unsafe { queue.drain::<Counted>() }, 0);
    });
}

/// A run ending reads each slot's process and its run group while that process ends and
/// a spawn of another run reuses the slot: the id it finds in the ending group is never the
/// new process's (ending that one with `shutdown` would end a process of a live run).
#[cfg(loom)]
#[test]
fn loom_a_group_read_beside_a_recycled_slot_names_no_newer_process() {
    model(|| {
        let slot = Arc::new(Slot::new());
        slot.queue.init();
        // SAFETY: the slot is fresh, kept until the end, and its messages are `u32`s.
        unsafe { slot.occupy::<_, RunAtOnce>(Finished, &U32_KIND, 1) }.run();
        let spawner = {
            let slot = Arc::clone(&slot);
            thread::spawn(move || {
                // The process of group 1 ends (its task completed above), and the slot
                // goes to a process of group 2.
                slot.begin_exit();
                slot.release_own_reference();
                // SAFETY: recycled above, its task completed; nobody else occupies it; its
                // messages are `u32`s.
                unsafe { slot.occupy::<_, RunAtOnce>(Finished, &U32_KIND, 2) }.run();
            })
        };
        if let Some(id) = slot.live_id_in_group(1) {
            assert_eq!(
                id.serial(),
                0,
                "the new process of group 2 read as one of group 1"
            );
        }
        spawner.join().unwrap();
        release(&slot);
    });
}
