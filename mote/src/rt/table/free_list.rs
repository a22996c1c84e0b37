//! The table's shared free slots: a lock-free stack of chains of slot indices (a Treiber
//! stack whose entries are chains), with every link living in the slots themselves.
//!
//! Threads do not push or pop single slots here: each keeps its own cache of free slots
//! (`free_cache`) and trades with this stack a chain (up to 64 slots) at a time, so a thread
//! that ends many processes and one that spawns many (the common split: a spawner and the
//! workers running its children) meet on this word once per chain, not once per process.
//!
//! A chain is linked through its slots' `next_free` words; the stack links chains through
//! the `next_chain` word of each chain's top slot. The head is one 64-bit word: a tag in the
//! high half, `index + 1` of the top chain's first slot in the low half (0: empty). Every
//! successful change bumps the tag, so a pop that read the head, lost the processor while
//! others popped that chain and pushed it back on another successor (the ABA problem),
//! fails its compare-and-swap instead of installing a stale successor. Checked by a loom
//! model below.

use crate::rt::sync::{AtomicU32, AtomicU64, Ordering};

pub(crate) struct FreeList {
    head: AtomicU64,
}

impl FreeList {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        FreeList {
            head: AtomicU64::new(0),
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        FreeList {
            head: AtomicU64::new(0),
        }
    }

    /// Takes the chain pushed last: the index of its first slot (the rest follow through
    /// their `next_free` links, as the pusher set them). `next_chain(i)` is slot `i`'s
    /// chain link word.
    pub(crate) fn pop<'a>(&self, next_chain: impl Fn(u32) -> &'a AtomicU32) -> Option<u32> {
        let mut head = self.head.load(Ordering::Acquire);
        loop {
            let index = (head as u32).checked_sub(1)?;
            let next = next_chain(index).load(Ordering::Relaxed);
            let new = (((head >> 32) + 1) << 32) | u64::from(next);
            // Acquire pairs with the push's Release: the chain's inner links are visible.
            match self
                .head
                .compare_exchange_weak(head, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some(index),
                Err(actual) => head = actual,
            }
        }
    }

    /// Pushes the chain whose first slot is `first` (its inner links already set by the
    /// pushing thread, the last one 0); `next_chain` is that slot's chain link word.
    pub(crate) fn push(&self, first: u32, next_chain: &AtomicU32) {
        let mut head = self.head.load(Ordering::Acquire);
        loop {
            next_chain.store(head as u32, Ordering::Relaxed);
            let new = (((head >> 32) + 1) << 32) | u64::from(first + 1);
            match self
                .head
                .compare_exchange_weak(head, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return,
                Err(actual) => head = actual,
            }
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicBool;
    use loom::sync::Arc;
    use loom::thread;

    /// Four slots with both link words, and who holds each slot now.
    struct Model {
        list: FreeList,
        next_free: [AtomicU32; 4],
        next_chain: [AtomicU32; 4],
        taken: [AtomicBool; 4],
    }

    impl Model {
        /// Pops one chain, marking its slots held; returns them in chain order.
        fn take(&self) -> Vec<u32> {
            let mut out = Vec::new();
            let Some(first) = self.list.pop(|i| &self.next_chain[i as usize]) else {
                return out;
            };
            let mut next = first + 1;
            while let Some(i) = next.checked_sub(1) {
                assert!(
                    !self.taken[i as usize].swap(true, Ordering::Relaxed),
                    "slot {i} handed out twice"
                );
                out.push(i);
                next = self.next_free[i as usize].load(Ordering::Relaxed);
            }
            out
        }

        /// Gives back `chain` (held slots) as one push.
        fn give(&self, chain: &[u32]) {
            for (k, &i) in chain.iter().enumerate() {
                let next = chain.get(k + 1).map_or(0, |n| n + 1);
                self.next_free[i as usize].store(next, Ordering::Relaxed);
                self.taken[i as usize].store(false, Ordering::Relaxed);
            }
            self.list
                .push(chain[0], &self.next_chain[chain[0] as usize]);
        }
    }

    /// Chains of two slots: one thread pops two chains and gives the first back while
    /// another pops one and gives it back (the ABA pattern: the second thread may read the
    /// head, then find the same head again on another successor). No slot is ever held
    /// twice, no link is lost: all four slots are in the stack at the end.
    #[test]
    fn loom_free_list_hands_each_slot_out_once() {
        loom::model(|| {
            let m = Arc::new(Model {
                list: FreeList::new(),
                next_free: std::array::from_fn(|_| AtomicU32::new(0)),
                next_chain: std::array::from_fn(|_| AtomicU32::new(0)),
                taken: std::array::from_fn(|_| AtomicBool::new(true)),
            });
            m.give(&[2, 3]);
            m.give(&[0, 1]);
            let two = {
                let m = Arc::clone(&m);
                thread::spawn(move || {
                    let a = m.take();
                    let b = m.take();
                    m.give(&a);
                    if !b.is_empty() {
                        m.give(&b);
                    }
                })
            };
            let one = {
                let m = Arc::clone(&m);
                thread::spawn(move || {
                    let c = m.take();
                    if !c.is_empty() {
                        m.give(&c);
                    }
                })
            };
            [two, one].into_iter().for_each(|t| t.join().unwrap());
            let mut all: Vec<u32> = std::iter::from_fn(|| Some(m.take()))
                .take_while(|c| !c.is_empty())
                .flatten()
                .collect();
            all.sort_unstable();
            assert_eq!(all, [0, 1, 2, 3]);
        });
    }
}
