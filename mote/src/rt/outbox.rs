//! A thread's outbox: a process's run of sends to one busy receiver, queued a batch at a
//! time.
//!
//! A send claims its mailbox position with a `fetch_add` on the receiver's `tail`. When
//! processes on two threads send to one receiver at once (`fanin`: 100 senders, one
//! receiver), that cache line moves between the cores at every message: two threads
//! together managed 11M sends/s where one alone managed 35M. So within one poll, a
//! process's later sends to the same busy receiver are gathered here, on the thread, and
//! queued with one claim for up to [`MAX_BATCH`] messages (`Queue::push_many`): the line
//! moves once per batch. `fanin` went from 0.75-0.85 s to about 0.15 s.
//!
//! **When a message waits here.** A send to a receiver that is parked waiting for mail
//! goes straight to its mailbox and wakes it: a round trip, a relay, a reply wait for
//! nothing. A send to a receiver that is not waiting (running, or queued to run) also goes
//! straight in, and makes that receiver this thread's *target* ([`prime`]). The poll's
//! next sends to the target are gathered ([`gather`]) unless it has begun to wait for mail
//! meanwhile (then what is gathered goes, with the new message, at once). What is gathered
//! is queued when:
//! * the batch is full;
//! * the thread's target changes (a busy receiver gets a send from this poll);
//! * the process sends to the target in a way that does not gather (a call, a `try_send`,
//!   a send to a bounded mailbox) or sends any signal (link, unlink, monitor, demonitor,
//!   exit): each queues the outbox first, so one sender's messages and signals reach a
//!   receiver in the order they were sent, as Erlang guarantees;
//! * the poll ends, whichever way ([`end_poll`], through the poll-end hook of
//!   `rt::poll_end` that `current::leave` runs on every path out of a poll, before an
//!   ending process's exit signals go out, so those stay behind its messages).
//!
//! A process sending to itself never gathers: its next receive must see the message.
//!
//! **Deviation from Erlang:** a message may reach its receiver later than the send
//! returned: at the latest when the sender's poll ends (its next `await` that waits). A
//! process that sends to a busy receiver and then computes for long without waiting holds
//! up to [`MAX_BATCH`] - 1 messages until it waits; the BEAM would have preempted it and its
//! messages would be queued already. Erlang promises ordering per pair of processes, never a
//! delivery time, and that ordering is kept.
//!
//! Only messages of at most 64 bytes gather (a batch holds at most [`STORAGE_BYTES`]);
//! larger ones always go at once.

use std::cell::{Cell, UnsafeCell};
use std::mem::{self, MaybeUninit};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use crate::rt::current;
use crate::rt::metrics;
use crate::rt::poll_end;
use crate::rt::table::Slot;

/// The most messages in one batch.
const MAX_BATCH: usize = 64;

/// The bytes a batch's messages may take.
const STORAGE_BYTES: usize = 512;

/// The largest alignment a gathered message may need.
const STORAGE_ALIGN: usize = 16;

#[repr(C, align(16))]
struct Storage([MaybeUninit<u8>; STORAGE_BYTES]);

/// This thread's outbox. Every field is touched only by the thread (thread-local).
struct Outbox {
    /// The receiver of the last send of this poll (null: none yet).
    target: Cell<*const Slot>,
    /// The target's serial at that send: a different incarnation is another process.
    serial: Cell<u32>,
    /// Messages gathered for the target, in `storage`.
    len: Cell<u32>,
    /// Queues the gathered messages (set by the first one: it knows their type).
    flush: Cell<unsafe fn(&Outbox)>,
    /// The gathered messages, in order: `len` values of the target's message type.
    storage: UnsafeCell<Storage>,
}

thread_local! {
    static OUTBOX: Outbox = const {
        Outbox {
            target: Cell::new(ptr::null()),
            serial: Cell::new(0),
            len: Cell::new(0),
            flush: Cell::new(flush_nothing),
            storage: UnsafeCell::new(Storage([MaybeUninit::uninit(); STORAGE_BYTES])),
        }
    };
}

/// How many `M`s a batch holds: 0 if `M`s never gather.
const fn batch_cap<M>() -> usize {
    let size = mem::size_of::<M>();
    if mem::align_of::<M>() > STORAGE_ALIGN || size > 64 {
        0
    } else if size == 0 {
        MAX_BATCH
    } else if STORAGE_BYTES / size < MAX_BATCH {
        STORAGE_BYTES / size
    } else {
        MAX_BATCH
    }
}

/// This thread's outbox.
#[inline(always)]
fn outbox<'a>() -> &'a Outbox {
    // SAFETY: a thread-local without a destructor lives as long as its thread, and the
    // reference never leaves this module's functions, which run on that thread.
    unsafe { &*OUTBOX.with(ptr::from_ref) }
}

/// Whether this thread has a target (see [`prime`]): only then may a send be gathered. One
/// thread-local load, the price every send pays.
#[inline(always)]
pub(crate) fn has_target() -> bool {
    !outbox().target.get().is_null()
}

/// Whether `slot` is this thread's target: the caller then offers its message to
/// [`gather`].
#[inline(always)]
pub(crate) fn is_target(slot: &Slot) -> bool {
    ptr::eq(outbox().target.get(), slot)
}

/// After a send that went straight to `slot`'s incarnation `serial` from a process's poll,
/// with the receiver not waiting for mail (busy, or queued to run): makes it the target, so
/// that the poll's next sends to it are gathered. A receiver that was waiting is left
/// alone: a wake-up is a hand-off (a round trip, a relay), not a stream. Inlined: two
/// thread-local stores, since a round trip between two threads often finds its receiver
/// not parked yet. The first target of a poll asks for [`end_poll`] at the poll's end
/// (`rt::poll_end`).
#[inline(always)]
pub(crate) fn prime<M>(slot: &'static Slot, serial: u32) {
    if batch_cap::<M>() == 0 {
        return;
    }
    let o = outbox();
    if o.len.get() != 0 {
        o.flush_now();
    }
    if o.target.get().is_null() {
        poll_end::defer(end_poll);
    }
    o.target.set(slot);
    o.serial.set(serial);
}

/// Offers a message for the target `slot` (see [`is_target`]), incarnation `serial`, from
/// the poll in progress on this thread: `None` if the outbox took it, else the message
/// back, to send at once (after anything gathered before it was queued).
///
/// The caller is a process's poll (`current::pinned`), and `slot`'s incarnation `serial`
/// takes `M`s (the contract of `Slot::send`; checked again when the batch is queued).
#[inline(never)]
pub(crate) fn gather<M: Send + 'static>(slot: &'static Slot, serial: u32, message: M) -> Option<M> {
    let o = outbox();
    let len = o.len.get() as usize;
    // Another incarnation than the target's (its pid is another process), a receiver now
    // waiting for mail, or the sender itself (its next receive must see the message): what
    // is gathered goes first, then this, at once (which wakes a waiting receiver).
    if o.serial.get() != serial || slot.is_waiting() || ptr::eq(slot, current::polled()) {
        if len != 0 {
            o.flush_now();
        }
        o.target.set(ptr::null());
        return Some(message);
    }
    // SAFETY: `len` is below the cap (a full batch is queued at once), and a cap of `M`s
    // fits the storage, aligned (`batch_cap`, nonzero: `prime` made this the target); the
    // values gathered before are the target's `M`s too.
    unsafe { o.storage.get().cast::<M>().add(len).write(message) };
    if len == 0 {
        o.flush.set(flush_as::<M>);
    }
    o.len.set(len as u32 + 1);
    if len + 1 == batch_cap::<M>() {
        o.flush_now();
        // Counted as the sends they are, once a batch (per message cost `fanin` 10%):
        // without it, a poll sending only to one receiver that never waits never moved
        // its epoch guard, and held back the recycling of every process ended meanwhile.
        // Here, inside the target's send, no other slot is held.
        current::repin_after_sends(len as u32 + 1);
    }
    None
}

/// Queues what this thread's outbox holds, if anything: called before a send or a signal
/// that must stay behind the messages gathered (see the module docs).
#[inline(always)]
pub(crate) fn flush() {
    let o = outbox();
    if o.len.get() != 0 {
        o.flush_now();
    }
}

/// The end of a poll that had a target (run by `current::leave` through `rt::poll_end`):
/// queues what is gathered, and forgets the target, so that the next poll's first send
/// goes straight to its receiver. Running it earlier is allowed: it only ends a batch.
pub(crate) fn end_poll() {
    let o = outbox();
    if o.len.get() != 0 {
        o.flush_now();
    }
    o.target.set(ptr::null());
}

impl Outbox {
    #[cold]
    #[inline(never)]
    fn flush_now(&self) {
        // SAFETY: `flush` was set by the first gathered message, for their type.
        unsafe { (self.flush.get())(self) }
    }
}

/// The `flush` of an empty outbox (never called: `len` is 0).
unsafe fn flush_nothing(_: &Outbox) {}

/// Queues the gathered `M`s into the target's mailbox, or drops them if the target has
/// ended since (as a send to an ended process drops its message).
///
/// # Safety
/// `o` holds `len` `M`s for its target, whose incarnation `serial` takes `M`s; called in
/// the poll that gathered them (its epoch guard keeps the target from being recycled).
unsafe fn flush_as<M: Send + 'static>(o: &Outbox) {
    let count = o.len.replace(0);
    // SAFETY: slots are never freed.
    let slot = unsafe { &*o.target.get() };
    let values = o.storage.get().cast::<M>();
    for _ in 0..count {
        metrics::count_send();
    }
    // SAFETY: the caller's contract; on success the values were moved into the mailbox.
    if unsafe { slot.send_many::<M>(o.serial.get(), values, count) } {
        return;
    }
    // Gone: drop them, from a copy, since a destructor may send again through this outbox.
    let mut copy = Storage([MaybeUninit::uninit(); STORAGE_BYTES]);
    // SAFETY: `count` `M`s are in the storage; after the copy only `copy` owns them.
    unsafe {
        ptr::copy_nonoverlapping(
            values.cast::<u8>(),
            copy.0.as_mut_ptr().cast::<u8>(),
            count as usize * mem::size_of::<M>(),
        );
    }
    let copied = copy.0.as_mut_ptr().cast::<M>();
    for i in 0..count as usize {
        // A panicking destructor must not take the scheduler thread down with it.
        // SAFETY: each value is dropped once, in place.
        let _ = catch_unwind(AssertUnwindSafe(|| unsafe {
            ptr::drop_in_place(copied.add(i))
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    struct Counted(Arc<AtomicUsize>);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A slot with no live incarnation (all zeros), as one whose process has ended (the
    /// outbox wants a `'static` one), and the pointer to free it with.
    fn ended_slot() -> (&'static Slot, *mut Slot) {
        let raw = Box::into_raw(Box::new(Slot::new()));
        // SAFETY: just allocated; freed only by `free`, after its last use.
        (unsafe { &*raw }, raw)
    }

    /// Frees a slot of [`ended_slot`], which the outbox no longer holds.
    fn free(raw: *mut Slot) {
        // SAFETY: made by `ended_slot`, and no reference to it is used any more.
        assert!(!is_target(unsafe { &*raw }));
        // SAFETY: as above.
        drop(unsafe { Box::from_raw(raw) });
    }

    /// Messages gathered for a process that has ended by the time they are queued are
    /// dropped, each once (miri reports a double drop or a leak), and the outbox is empty
    /// and forgets its target after the poll's end.
    #[test]
    fn a_batch_for_an_ended_process_is_dropped_once() {
        let (slot, raw) = ended_slot();
        let drops = Arc::new(AtomicUsize::new(0));
        prime::<Counted>(slot, 0);
        assert!(is_target(slot));
        for _ in 0..3 {
            assert!(gather(slot, 0, Counted(Arc::clone(&drops))).is_none());
        }
        assert_eq!(
            drops.load(Ordering::Relaxed),
            0,
            "gathered, not dropped yet"
        );
        end_poll();
        assert_eq!(drops.load(Ordering::Relaxed), 3);
        assert_eq!(outbox().len.get(), 0);
        free(raw);
    }

    /// A full batch is queued at once: the outbox never holds more than its cap.
    #[test]
    fn a_full_batch_goes_at_once() {
        let (slot, raw) = ended_slot();
        let drops = Arc::new(AtomicUsize::new(0));
        prime::<Counted>(slot, 0);
        let cap = batch_cap::<Counted>();
        assert_eq!(cap, MAX_BATCH);
        for _ in 0..cap + 1 {
            assert!(gather(slot, 0, Counted(Arc::clone(&drops))).is_none());
        }
        assert_eq!(
            drops.load(Ordering::Relaxed),
            cap,
            "the full batch went (and was dropped)"
        );
        assert_eq!(outbox().len.get(), 1);
        end_poll();
        assert_eq!(drops.load(Ordering::Relaxed), cap + 1);
        free(raw);
    }

    #[test]
    fn what_gathers() {
        assert_eq!(batch_cap::<u64>(), MAX_BATCH);
        assert_eq!(batch_cap::<()>(), MAX_BATCH);
        assert_eq!(batch_cap::<[u8; 24]>(), STORAGE_BYTES / 24);
        assert_eq!(batch_cap::<[u8; 65]>(), 0);
        #[repr(align(32))]
        struct Aligned(#[allow(dead_code)] u8);
        assert_eq!(batch_cap::<Aligned>(), 0);
    }
}
