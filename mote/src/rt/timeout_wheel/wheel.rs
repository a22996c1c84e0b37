//! A hashed timing wheel: the data structure behind [`timeout`](super::timeout), without
//! locks, clocks or wakers, so it can be tested against a model.
//!
//! Entries live in a slab and are linked into one of [`BUCKETS`] doubly-linked lists by
//! their tick (one tick is a millisecond) modulo the bucket count; an entry further away
//! than one turn of the wheel simply waits in its bucket for its turn. Inserting and
//! removing are O(1), and a bitmap of non-empty buckets finds the next tick worth waking up
//! for. That is all a timeout needs: most are removed long before they are due, so the
//! wheel is mostly insert-then-remove, and those two must be cheap.
//!
//! A bucket's list head is read only while the bucket's bit in the bitmap is set, so the
//! heads start uninitialised: a new wheel's 16 KiB of heads cost no resident memory until
//! buckets are used (filling them with a "none" value made every page of them resident at
//! once, in each thread's shard that armed one timeout; measured with `perf` page-fault
//! records of the `call` benchmark, see docs/design.md).

use std::mem::MaybeUninit;

/// Ticks in one turn of the wheel. A power of two.
pub(crate) const BUCKETS: usize = 4096;

const NIL: u32 = u32::MAX;

/// Names an entry. Stays invalid once its entry is gone, even if the slot is reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
    index: u32,
    generation: u32,
}

#[derive(Debug)]
struct Slot<T> {
    generation: u32,
    /// For an occupied slot, the next entry in its bucket; for a free one, the next free slot.
    next: u32,
    prev: u32,
    tick: u64,
    value: Option<T>,
}

/// Entries due at a tick, each holding a `T`.
#[derive(Debug)]
pub(crate) struct Wheel<T> {
    slots: Vec<Slot<T>>,
    free: u32,
    /// Each bucket's first entry; initialised exactly while its bit in `occupied` is set.
    heads: Box<[MaybeUninit<u32>]>,
    /// A bit per bucket: set while its list is non-empty.
    occupied: Box<[u64]>,
    /// Every entry due at or before this tick has been handed out by `advance`.
    processed: u64,
    len: usize,
}

impl<T> Wheel<T> {
    /// An empty wheel whose ticks up to `now` count as processed.
    pub(crate) fn new(now: u64) -> Self {
        Wheel {
            slots: Vec::new(),
            free: NIL,
            heads: Box::new_uninit_slice(BUCKETS),
            occupied: vec![0; BUCKETS / 64].into_boxed_slice(),
            processed: now,
            len: 0,
        }
    }

    /// The number of entries.
    #[cfg(all(test, not(loom)))]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds `value`, due at `tick`. Gives the value back if that tick is already processed
    /// (the entry would be due at once).
    pub(crate) fn insert(&mut self, tick: u64, value: T) -> Result<Key, T> {
        if tick <= self.processed {
            return Err(value);
        }
        let index = if self.free != NIL {
            let index = self.free;
            self.free = self.slots[index as usize].next;
            index
        } else {
            let index = u32::try_from(self.slots.len()).expect("fewer than 2^32 timeouts");
            self.slots.push(Slot {
                generation: 0,
                next: NIL,
                prev: NIL,
                tick: 0,
                value: None,
            });
            index
        };
        let bucket = bucket_of(tick);
        let head = self.head(bucket);
        let slot = &mut self.slots[index as usize];
        slot.tick = tick;
        slot.value = Some(value);
        slot.prev = NIL;
        slot.next = head;
        let generation = slot.generation;
        if head != NIL {
            self.slots[head as usize].prev = index;
        }
        self.heads[bucket] = MaybeUninit::new(index);
        self.occupied[bucket / 64] |= 1 << (bucket % 64);
        self.len += 1;
        Ok(Key { index, generation })
    }

    /// Whether `key`'s entry is still there (neither removed nor handed out as due).
    pub(crate) fn get_mut(&mut self, key: Key) -> Option<&mut T> {
        let slot = self.slots.get_mut(key.index as usize)?;
        if slot.generation != key.generation {
            return None;
        }
        slot.value.as_mut()
    }

    /// Removes `key`'s entry and returns its value, if it is still there.
    pub(crate) fn remove(&mut self, key: Key) -> Option<T> {
        let slot = self.slots.get(key.index as usize)?;
        if slot.generation != key.generation || slot.value.is_none() {
            return None;
        }
        Some(self.unlink(key.index))
    }

    /// Hands out, through `due`, every entry due at or before `now`.
    pub(crate) fn advance(&mut self, now: u64, mut due: impl FnMut(T)) {
        if now <= self.processed {
            return;
        }
        // Visit each bucket that a tick in (processed, now] maps to, once.
        let span = (now - self.processed).min(BUCKETS as u64);
        for step in 1..=span {
            let bucket = bucket_of(self.processed + step);
            let mut index = self.head(bucket);
            while index != NIL {
                let slot = &self.slots[index as usize];
                let next = slot.next;
                if slot.tick <= now {
                    due(self.unlink(index));
                }
                index = next;
            }
        }
        self.processed = now;
    }

    /// A tick at or before the earliest entry's (the first non-empty bucket after the
    /// processed tick), or `None` if the wheel is empty. Waking then is never too late;
    /// it may find only entries due a turn later.
    pub(crate) fn next_tick(&self) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        let start = bucket_of(self.processed + 1);
        let words = self.occupied.len();
        // Scan the bitmap from `start` round to `start` again.
        for i in 0..=words {
            let word = (start / 64 + i) % words;
            let mut bits = self.occupied[word];
            if i == 0 {
                bits &= !0 << (start % 64);
            } else if i == words {
                bits &= !(!0 << (start % 64));
            }
            if bits != 0 {
                let bucket = word * 64 + bits.trailing_zeros() as usize;
                let distance = (bucket + BUCKETS - start) % BUCKETS;
                return Some(self.processed + 1 + distance as u64);
            }
        }
        unreachable!("a non-empty wheel has an occupied bucket")
    }

    fn unlink(&mut self, index: u32) -> T {
        let slot = &mut self.slots[index as usize];
        let (prev, next, bucket) = (slot.prev, slot.next, bucket_of(slot.tick));
        let value = slot.value.take().expect("unlinking an occupied slot");
        slot.generation = slot.generation.wrapping_add(1);
        slot.next = self.free;
        self.free = index;
        if prev == NIL {
            self.heads[bucket] = MaybeUninit::new(next);
            if next == NIL {
                self.occupied[bucket / 64] &= !(1 << (bucket % 64));
            }
        } else {
            self.slots[prev as usize].next = next;
        }
        if next != NIL {
            self.slots[next as usize].prev = prev;
        }
        self.len -= 1;
        value
    }
}

impl<T> Wheel<T> {
    /// The first entry of `bucket`'s list, `NIL` if it is empty.
    #[inline]
    fn head(&self, bucket: usize) -> u32 {
        if self.occupied[bucket / 64] & (1 << (bucket % 64)) == 0 {
            return NIL;
        }
        // SAFETY: a bucket's bit is set only by `insert`, just after it wrote the bucket's
        // head, and `unlink` clears it when it writes `NIL` there (the list is empty); so a
        // set bit means an initialised head.
        unsafe { self.heads[bucket].assume_init() }
    }
}

fn bucket_of(tick: u64) -> usize {
    (tick % BUCKETS as u64) as usize
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[derive(Debug, Clone)]
    enum Op {
        /// Insert an entry due this many ticks after the processed tick.
        Insert(u64),
        /// Remove the n-th key handed out (modulo how many there are).
        Remove(usize),
        /// Advance the clock by this many ticks.
        Advance(u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => prop_oneof![0..50u64, 0..(3 * BUCKETS as u64)].prop_map(Op::Insert),
            2 => any::<usize>().prop_map(Op::Remove),
            2 => prop_oneof![1..5u64, 1..(2 * BUCKETS as u64)].prop_map(Op::Advance),
        ]
    }

    /// Buckets emptied and refilled, at the head, in the middle and at the tail of their
    /// lists, across turns of the wheel: without proptest, so that miri runs it and catches
    /// a head read while uninitialised.
    #[test]
    fn buckets_empty_and_fill_again() {
        let mut wheel = Wheel::new(0);
        let turn = BUCKETS as u64;
        let mut keys = Vec::new();
        for tick in [5, 5 + turn, 5 + 2 * turn, 6, 9] {
            keys.push(wheel.insert(tick, tick).unwrap());
        }
        assert_eq!(wheel.remove(keys[1]), Some(5 + turn));
        assert_eq!(wheel.remove(keys[4]), Some(9));
        assert_eq!(wheel.remove(keys[4]), None);
        let mut fired = Vec::new();
        wheel.advance(10, |t| fired.push(t));
        assert_eq!(fired, [5, 6]);
        keys.push(wheel.insert(9 + turn, 9 + turn).unwrap());
        keys.push(wheel.insert(6 + turn, 6 + turn).unwrap());
        assert_eq!(wheel.next_tick(), Some(5 + turn));
        wheel.advance(10 + turn, |t| fired.push(t));
        assert_eq!(fired, [5, 6, 6 + turn, 9 + turn]);
        assert_eq!(wheel.remove(keys[2]), Some(5 + 2 * turn));
        assert_eq!(wheel.next_tick(), None);
        assert_eq!(wheel.len(), 0);
    }

    proptest! {
        /// The wheel hands out exactly the entries a sorted model says are due, never one
        /// early, and never one that was removed; `next_tick` is never after a live entry.
        #[test]
        fn wheel_matches_a_model(ops in proptest::collection::vec(op(), 1..300)) {
            let mut wheel = Wheel::new(7);
            let mut now = 7u64;
            // id -> (tick, key)
            let mut model: BTreeMap<usize, (u64, Key)> = BTreeMap::new();
            let mut keys: Vec<(usize, Key)> = Vec::new();
            let mut next_id = 0usize;
            for op in ops {
                match op {
                    Op::Insert(after) => {
                        let tick = now + after;
                        match wheel.insert(tick, next_id) {
                            Ok(key) => {
                                prop_assert!(tick > now);
                                model.insert(next_id, (tick, key));
                                keys.push((next_id, key));
                            }
                            Err(id) => {
                                prop_assert_eq!(id, next_id);
                                prop_assert!(tick <= now);
                            }
                        }
                        next_id += 1;
                    }
                    Op::Remove(n) if !keys.is_empty() => {
                        let (id, key) = keys[n % keys.len()];
                        let expected = model.remove(&id).map(|_| id);
                        prop_assert_eq!(wheel.remove(key), expected);
                        prop_assert!(wheel.get_mut(key).is_none());
                    }
                    Op::Remove(_) => {}
                    Op::Advance(by) => {
                        if let Some(next) = wheel.next_tick() {
                            let earliest = model.values().map(|&(t, _)| t).min().unwrap();
                            prop_assert!(next <= earliest && next > now);
                        }
                        now += by;
                        let mut fired = Vec::new();
                        wheel.advance(now, |id| fired.push(id));
                        fired.sort_unstable();
                        let mut expected: Vec<usize> = model
                            .iter()
                            .filter(|(_, &(t, _))| t <= now)
                            .map(|(&id, _)| id)
                            .collect();
                        expected.sort_unstable();
                        for id in &expected {
                            model.remove(id);
                        }
                        prop_assert_eq!(fired, expected);
                    }
                }
                prop_assert_eq!(wheel.len(), model.len());
                prop_assert_eq!(wheel.next_tick().is_none(), model.is_empty());
                for (&id, &(_, key)) in &model {
                    prop_assert_eq!(wheel.get_mut(key).copied(), Some(id));
                }
            }
        }
    }
}
