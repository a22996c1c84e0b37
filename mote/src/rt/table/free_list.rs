//! The table's free slots: a lock-free LIFO stack of slot indices (a Treiber stack), whose
//! links live in the slots themselves.
//!
//! The head is one 64-bit word: a tag in the high half, `index + 1` in the low half (0: the
//! stack is empty). Every successful change bumps the tag, so a pop that read the head,
//! lost the processor while others popped that entry and pushed it back with another
//! successor (the ABA problem), fails its compare-and-swap instead of installing a stale
//! successor. Checked by a loom model below.

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

    /// Takes the entry pushed last. `link(i)` is entry `i`'s link word, which holds its
    /// successor (`index + 1`, 0 for none) while it is in the stack.
    pub(crate) fn pop<'a>(&self, link: impl Fn(u32) -> &'a AtomicU32) -> Option<u32> {
        let mut head = self.head.load(Ordering::Acquire);
        loop {
            let index = (head as u32).checked_sub(1)?;
            let next = link(index).load(Ordering::Relaxed);
            let new = (((head >> 32) + 1) << 32) | u64::from(next);
            match self
                .head
                .compare_exchange_weak(head, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some(index),
                Err(actual) => head = actual,
            }
        }
    }

    /// Pushes entry `index`, whose link word is `link`.
    pub(crate) fn push(&self, index: u32, link: &AtomicU32) {
        let mut head = self.head.load(Ordering::Acquire);
        loop {
            link.store(head as u32, Ordering::Relaxed);
            let new = (((head >> 32) + 1) << 32) | u64::from(index + 1);
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

    /// Three entries and their links, and who holds each entry now.
    struct Model {
        list: FreeList,
        links: [AtomicU32; 3],
        taken: [AtomicBool; 3],
    }

    impl Model {
        fn take(&self) -> Option<u32> {
            let i = self.list.pop(|i| &self.links[i as usize])?;
            assert!(
                !self.taken[i as usize].swap(true, Ordering::Relaxed),
                "entry {i} handed out twice"
            );
            Some(i)
        }

        fn give(&self, i: u32) {
            self.taken[i as usize].store(false, Ordering::Relaxed);
            self.list.push(i, &self.links[i as usize]);
        }
    }

    /// One thread takes two entries and gives the first back while another takes one (the
    /// ABA pattern: the second thread may read the head, then find the same head again
    /// with another successor): no entry is ever held twice, and all three are in the
    /// stack at the end.
    #[test]
    fn loom_free_list_hands_each_entry_out_once() {
        loom::model(|| {
            let m = Arc::new(Model {
                list: FreeList::new(),
                links: std::array::from_fn(|_| AtomicU32::new(0)),
                taken: std::array::from_fn(|_| AtomicBool::new(false)),
            });
            for i in [2, 1, 0] {
                m.give(i);
            }
            let two = {
                let m = Arc::clone(&m);
                thread::spawn(move || {
                    let a = m.take().expect("three entries");
                    let b = m.take().expect("three entries");
                    m.give(a);
                    m.give(b);
                })
            };
            let one = {
                let m = Arc::clone(&m);
                thread::spawn(move || {
                    if let Some(c) = m.take() {
                        m.give(c);
                    }
                })
            };
            let threads = [two, one];
            threads.into_iter().for_each(|t| t.join().unwrap());
            let mut all: Vec<u32> = std::iter::from_fn(|| m.take()).collect();
            all.sort_unstable();
            assert_eq!(all, [0, 1, 2]);
        });
    }
}
