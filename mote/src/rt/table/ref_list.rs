//! [`RefList`]: a process's monitors, kept in the order they were made.

use std::collections::VecDeque;

use crate::values::monitor_ref::MonitorRef;

/// Entries keyed by [`MonitorRef`], in increasing order of reference, which is the order
/// they were made: references come from one increasing counter, so a `Down` for each of a
/// watcher's monitors goes out in the order it made them.
///
/// A server holds one entry per call in flight (the caller's watch), and each reply removes
/// one. A `Vec` scanned on removal made every call cost as much as the number of callers
/// waiting. Here removal finds its entry by binary search and closes the gap from the
/// nearer end of a ring buffer, so entries that leave roughly in the order they came (or
/// the reverse) leave in O(log n); one in the middle moves half the entries, a `memmove`.
pub(crate) struct RefList<T>(VecDeque<(MonitorRef, T)>);

impl<T> Default for RefList<T> {
    fn default() -> Self {
        RefList(VecDeque::new())
    }
}

impl<T> RefList<T> {
    /// Adds an entry. References usually arrive in increasing order, so this is a push at
    /// the back; one made earlier but added after a later one (another thread got its
    /// reference first) is placed in order.
    pub(crate) fn insert(&mut self, r: MonitorRef, value: T) {
        match self.0.back() {
            Some((last, _)) if *last > r => {
                let at = self.0.partition_point(|(x, _)| *x < r);
                self.0.insert(at, (r, value));
            }
            _ => self.0.push_back((r, value)),
        }
    }

    /// Removes the entry of `r`, if there is one.
    pub(crate) fn remove(&mut self, r: MonitorRef) -> Option<T> {
        // The newest first: a lone call's watch, removed by its reply.
        if self.0.back().is_some_and(|(x, _)| *x == r) {
            return self.0.pop_back().map(|(_, value)| value);
        }
        let at = self.0.binary_search_by_key(&r, |(x, _)| *x).ok()?;
        self.0.remove(at).map(|(_, value)| value)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The room reserved, in entries (for memory accounting).
    pub(crate) fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// The entries, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &(MonitorRef, T)> {
        self.0.iter()
    }

    /// Takes all the entries, in order.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = (MonitorRef, T)> + '_ {
        self.0.drain(..)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u64),
        Remove(u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        // Few distinct references, so removals often hit and inserts sometimes come late.
        prop_oneof![
            (0u64..64).prop_map(Op::Insert),
            (0u64..64).prop_map(Op::Remove)
        ]
    }

    proptest! {
        /// Against a model: a sorted list with linear search.
        #[test]
        fn matches_a_sorted_model(ops in proptest::collection::vec(op(), 0..200)) {
            let mut list = RefList::default();
            let mut model: Vec<(u64, usize)> = Vec::new();
            for (i, op) in ops.into_iter().enumerate() {
                match op {
                    // One entry per reference, as the runtime makes them.
                    Op::Insert(r) if !model.iter().any(|&(x, _)| x == r) => {
                        list.insert(MonitorRef(r), i);
                        let at = model.partition_point(|&(x, _)| x < r);
                        model.insert(at, (r, i));
                    }
                    Op::Insert(_) => {}
                    Op::Remove(r) => {
                        let expected = model
                            .iter()
                            .position(|&(x, _)| x == r)
                            .map(|at| model.remove(at).1);
                        prop_assert_eq!(list.remove(MonitorRef(r)), expected);
                    }
                }
                prop_assert_eq!(list.len(), model.len());
                let got: Vec<(u64, usize)> = list.iter().map(|(r, v)| (r.0, *v)).collect();
                prop_assert_eq!(&got, &model);
            }
            let drained: Vec<(u64, usize)> = list.drain().map(|(r, v)| (r.0, v)).collect();
            prop_assert_eq!(drained, model);
            prop_assert_eq!(list.len(), 0);
        }
    }

    #[test]
    fn a_late_insert_takes_its_place_in_order() {
        let mut list = RefList::default();
        for r in [1, 2, 5, 7] {
            list.insert(MonitorRef(r), ());
        }
        list.insert(MonitorRef(3), ());
        let order: Vec<u64> = list.iter().map(|(r, _)| r.0).collect();
        assert_eq!(order, [1, 2, 3, 5, 7]);
        assert_eq!(list.remove(MonitorRef(4)), None);
        assert_eq!(list.remove(MonitorRef(1)), Some(()));
        assert_eq!(list.remove(MonitorRef(1)), None);
    }
}
