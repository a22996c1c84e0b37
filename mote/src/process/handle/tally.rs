//! [`Tally`]: the process handle's slot pointer, with the messages it has taken since it
//! last waited packed into the pointer's unused high bits.
//!
//! The receive budget (how many messages a process may take before it yields the thread)
//! and the count of messages received (for introspection) are per-receive state of the
//! process alone. The slot is one 64-byte cache line, which the process's senders write for
//! every message (the queue's tail), so a field there written per receive takes the line
//! from them each time (`fanin`, `workers master_slave` and `spawn` ran 1.07-1.26x slower
//! with the count there); a thread-local record of the poll (commit 315b0ef) costs a
//! thread-local read and write per receive (`pingpong` 1.04-1.10x). The handle is the
//! process's own, reached through `&mut self` by every receive, and lives in the process's
//! task, which no sender touches. But the handle is part of every process's future, whose
//! size decides the task's malloc chunk: `million`'s idle process is a 72-byte task, an
//! 80-byte chunk, and one more word would make it an 88-byte task in a 96-byte chunk (16 MB
//! more for a million processes). So the count shares the slot pointer's word.
//!
//! One counter serves both: the messages taken off the queue since the last wait. It is
//! the budget (a receive yields once it reaches [`BUDGET`]), and at each wait (a park on an
//! empty mailbox, or a yield) it is added to the slot's `received` counter and starts again
//! from 0.

use std::ptr;

use crate::rt::table::Slot;

/// How many messages a process may take off its queue between two waits (a park on an
/// empty mailbox or a yield) before a receive yields the thread to others once.
pub(super) const BUDGET: u16 = 512;

/// Where the count sits in the word: above the 48 bits of a user-space address (x86-64 and
/// AArch64 give larger ones only to an `mmap` that asks for them; the table asserts it of
/// its pages when it maps them, see `Table::new_page`).
#[cfg(target_pointer_width = "64")]
const SHIFT: u32 = 48;
#[cfg(target_pointer_width = "64")]
const ONE: usize = 1 << SHIFT;
#[cfg(target_pointer_width = "64")]
const ADDRESS: usize = ONE - 1;

/// Whether a slot's address leaves room for the count in [`Tally`]'s word.
#[cfg(target_pointer_width = "64")]
fn fits(address: usize) -> bool {
    address & !ADDRESS == 0
}

/// Whether a slot's address leaves room for the count (always: it has a field of its own).
#[cfg(not(target_pointer_width = "64"))]
fn fits(_address: usize) -> bool {
    true
}

/// The process's slot and the messages taken since the process last waited, in one word
/// (see the module's docs).
#[cfg(target_pointer_width = "64")]
pub(super) struct Tally {
    /// The slot's address in the low 48 bits, the count in the high 16. Provenance is the
    /// slot's: the count is added with `map_addr` and masked off before any dereference.
    word: *const Slot,
}

/// The process's slot and the messages taken since the process last waited (on targets
/// whose pointers have no spare bits, in a field of its own).
#[cfg(not(target_pointer_width = "64"))]
pub(super) struct Tally {
    word: *const Slot,
    count: u16,
}

// SAFETY: a `Tally` is a `&'static Slot` and a number: `Slot` is `Sync`, so sending or
// sharing a reference to it is sound.
unsafe impl Send for Tally {}
// SAFETY: as above.
unsafe impl Sync for Tally {}

impl Tally {
    /// The slot's tally, at 0.
    pub(super) fn new(slot: &'static Slot) -> Self {
        let word = ptr::from_ref(slot);
        // The table maps only pages whose addresses fit (see `Table::new_page`).
        debug_assert!(
            fits(word.addr()),
            "slot address {word:p} has no room for a count"
        );
        #[cfg(target_pointer_width = "64")]
        return Tally { word };
        #[cfg(not(target_pointer_width = "64"))]
        return Tally { word, count: 0 };
    }

    /// The process's slot.
    #[inline(always)]
    pub(super) fn slot(&self) -> &'static Slot {
        #[cfg(target_pointer_width = "64")]
        let slot = self.word.map_addr(|a| a & ADDRESS);
        #[cfg(not(target_pointer_width = "64"))]
        let slot = self.word;
        // SAFETY: with the count masked off, the word is the `&'static Slot` of `new`, with
        // its provenance.
        unsafe { &*slot }
    }

    /// Messages taken since the last [`Tally::flush`].
    #[inline(always)]
    pub(super) fn count(&self) -> u16 {
        #[cfg(target_pointer_width = "64")]
        return (self.word.addr() >> SHIFT) as u16;
        #[cfg(not(target_pointer_width = "64"))]
        return self.count;
    }

    /// Whether the process has taken its budget's worth of messages since it last waited.
    #[inline(always)]
    pub(super) fn spent(&self) -> bool {
        self.count() >= BUDGET
    }

    /// Counts one message taken off the queue.
    #[inline(always)]
    pub(super) fn take_one(&mut self) {
        if self.count() == u16::MAX {
            // Only `try_recv` takes messages without a budget check; a loop of 65,535 of
            // them without a wait is counted in the slot now, before the count wraps.
            self.flush();
        }
        #[cfg(target_pointer_width = "64")]
        {
            self.word = self.word.map_addr(|a| a + ONE);
        }
        #[cfg(not(target_pointer_width = "64"))]
        {
            self.count += 1;
        }
    }

    /// At a wait: adds the count to the slot's `received` counter, and starts it (and so
    /// the budget) again from 0. Called by the owner only (the slot's counter has no
    /// other writer).
    #[inline]
    pub(super) fn flush(&mut self) {
        let count = self.count();
        if count != 0 {
            self.slot().add_received(u32::from(count));
            #[cfg(target_pointer_width = "64")]
            {
                self.word = self.word.map_addr(|a| a & ADDRESS);
            }
            #[cfg(not(target_pointer_width = "64"))]
            {
                self.count = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::LazyLock;

    // Slots outside the table, one per test (a tally's slot is `'static`; a leaked box
    // would fail miri's leak check).
    static FIRST: LazyLock<Slot> = LazyLock::new(Slot::new);
    static SECOND: LazyLock<Slot> = LazyLock::new(Slot::new);

    #[test]
    fn the_count_rides_beside_the_slot_and_lands_in_it_at_a_wait() {
        let slot: &'static Slot = &FIRST;
        let mut tally = Tally::new(slot);
        assert!(std::ptr::eq(tally.slot(), slot));
        for taken in 1..=u32::from(BUDGET) {
            assert!(!tally.spent());
            tally.take_one();
            assert_eq!(u32::from(tally.count()), taken);
            // The slot is reached through the word whatever the count.
            assert!(std::ptr::eq(tally.slot(), slot));
        }
        assert!(tally.spent());
        assert_eq!(slot.work_counts().0, 0, "counted at the wait, not before");
        tally.flush();
        assert_eq!((tally.count(), tally.spent()), (0, false));
        assert_eq!(slot.work_counts().0, u64::from(BUDGET));
        assert!(std::ptr::eq(tally.slot(), slot));
        // A flush with nothing taken writes nothing.
        tally.flush();
        assert_eq!(slot.work_counts().0, u64::from(BUDGET));
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn the_handle_stays_two_words() {
        // Every process's future holds its handle: a word more would move `million`'s
        // idle process into the next malloc size class (see the module's docs).
        assert_eq!(std::mem::size_of::<super::super::Process<u64>>(), 16);
    }

    #[test]
    fn a_count_about_to_wrap_lands_in_the_slot_first() {
        let slot: &'static Slot = &SECOND;
        let mut tally = Tally::new(slot);
        // Taken without waits (`try_recv` in a loop): the count would wrap after 65,535.
        let n = 70_000;
        for _ in 0..n {
            tally.take_one();
        }
        assert!(std::ptr::eq(tally.slot(), slot));
        tally.flush();
        assert_eq!(slot.work_counts().0, n);
    }
}
