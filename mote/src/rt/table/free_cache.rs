//! A thread's cache of free slots, in front of the table's shared free list.
//!
//! A slot freed on this thread goes to the cache and is handed out again first by a spawn
//! on this thread (its lines are still in this core's cache). The cache trades with the
//! shared list a chain at a time: freed slots go there as one chain once [`CHAIN`] have
//! gathered, and a spawn that finds the cache empty takes one chain. Without it, a spawner
//! and the worker that runs (and ends) its children would each touch the shared head once
//! per process, from two cores: measured, that made a million spawns a third slower than
//! handing out fresh slots.
//!
//! Both lists link their slots through the slots' own `next_free` words (`index + 1`, 0
//! ending the list); a slot in a cache is reachable from nowhere else, so relaxed accesses do.

use super::Table;
use crate::rt::sync::Ordering;

/// How many freed slots a thread gathers before giving them to the shared list as a chain.
const CHAIN: u32 = 64;

/// One thread's free slots (see the module docs). The fields hold `index + 1`, 0 for none.
#[derive(Clone, Copy, Default)]
pub(crate) struct FreeCache {
    /// Slots freed here, newest first, and how many.
    freed: u32,
    freed_len: u32,
    /// The rest of a chain taken from the shared list.
    taken: u32,
}

impl FreeCache {
    /// A free slot's index: one freed here, else one of a chain taken from the shared list
    /// before, else the first of a chain taken now.
    pub(crate) fn pop(&mut self, table: &Table) -> Option<u32> {
        let list = if self.freed != 0 {
            self.freed_len -= 1;
            &mut self.freed
        } else {
            if self.taken == 0 {
                self.taken = table.free.pop(|i| table.listed(i).next_chain())? + 1;
            }
            &mut self.taken
        };
        let index = *list - 1;
        *list = table.listed(index).next_free.load(Ordering::Relaxed);
        Some(index)
    }

    /// Takes back a slot whose process has ended and whose references are all gone.
    pub(crate) fn push(&mut self, table: &Table, index: u32) {
        table
            .listed(index)
            .next_free
            .store(self.freed, Ordering::Relaxed);
        self.freed = index + 1;
        self.freed_len += 1;
        if self.freed_len >= CHAIN {
            Self::give(table, &mut self.freed);
            self.freed_len = 0;
        }
    }

    /// Gives every cached slot to the shared list (the thread is ending).
    pub(crate) fn flush(&mut self, table: &Table) {
        Self::give(table, &mut self.freed);
        Self::give(table, &mut self.taken);
        *self = FreeCache::default();
    }

    /// Pushes the list `first` heads (if any) as one chain, leaving it empty.
    fn give(table: &Table, first: &mut u32) {
        if let Some(index) = first.checked_sub(1) {
            table.free.push(index, table.listed(index).next_chain());
        }
        *first = 0;
    }
}
