//! Which children a failure takes down and restarts.

use std::ops::Range;

/// How a supervisor reacts to a child's failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Strategy {
    /// Restart only the child that ended.
    #[default]
    OneForOne,
    /// Stop all other children (in reverse start order), then restart all (in start order).
    OneForAll,
    /// Stop the children started after the one that ended (in reverse order), then restart
    /// it and them (in start order).
    RestForOne,
}

impl Strategy {
    /// The positions (in start order) restarted after the child at `failed` of `len` ended;
    /// all but `failed` are stopped first, last one first.
    pub(crate) fn restart_set(self, failed: usize, len: usize) -> Range<usize> {
        debug_assert!(failed < len);
        match self {
            Strategy::OneForOne => failed..failed + 1,
            Strategy::OneForAll => 0..len,
            Strategy::RestForOne => failed..len,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Strategy;
    use proptest::prelude::{prop_assert, prop_assert_eq, proptest};

    proptest! {
        #[test]
        fn the_set_holds_the_failed_child_and_follows_the_strategy(len in 1usize..20, pick in 0usize..20) {
            let failed = pick % len;
            let one = Strategy::OneForOne.restart_set(failed, len);
            let all = Strategy::OneForAll.restart_set(failed, len);
            let rest = Strategy::RestForOne.restart_set(failed, len);
            for set in [&one, &all, &rest] {
                prop_assert!(set.contains(&failed));
                prop_assert!(set.end <= len);
            }
            prop_assert_eq!(one.len(), 1);
            prop_assert_eq!(all.len(), len);
            // rest_for_one: exactly the failed child and every later sibling.
            prop_assert_eq!(rest.clone().collect::<Vec<_>>(), (failed..len).collect::<Vec<_>>());
        }
    }
}
