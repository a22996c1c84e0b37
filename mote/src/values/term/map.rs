//! [`Map`]: Erlang's maps, kept in one order so that equal maps are equal terms.

use std::cmp::Ordering;
use std::sync::Arc;

use super::order::key_order;
use super::Term;

/// A map from terms to terms (the payload of [`Term::Map`]).
///
/// Its pairs are kept sorted by key in Erlang's map key order (term order, except that every
/// integer comes before every float), with no two keys exactly equal (`=:=`). So equality,
/// hashing and printing do not depend on the order the pairs were given in. Made with
/// [`Term::map`]; a key given twice keeps its last value, as `maps:from_list/1` does.
///
/// ```
/// use mote::Term;
/// let m = Term::map([(Term::atom("k"), Term::atom("v")), (Term::atom("a"), Term::from(1))]);
/// let n = Term::map([(Term::atom("a"), Term::from(1)), (Term::atom("k"), Term::atom("v"))]);
/// assert_eq!(m, n);
/// assert_eq!(m.to_string(), "#{a => 1,k => v}");
/// let Term::Map(map) = &m else { unreachable!() };
/// assert_eq!(map.get(&Term::atom("k")), Some(&Term::atom("v")));
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Map(Arc<[(Term, Term)]>);

impl Map {
    /// The map of these pairs; a repeated key keeps its last value.
    pub(crate) fn from_pairs(pairs: impl IntoIterator<Item = (Term, Term)>) -> Map {
        let mut pairs: Vec<(Term, Term)> = pairs.into_iter().collect();
        // Stable: of equal keys, the last given ends up last, and is kept.
        pairs.sort_by(|a, b| key_order(&a.0, &b.0));
        let mut kept: Vec<(Term, Term)> = Vec::with_capacity(pairs.len());
        for pair in pairs {
            match kept.last_mut() {
                Some(last) if key_order(&last.0, &pair.0) == Ordering::Equal => *last = pair,
                _ => kept.push(pair),
            }
        }
        Map(kept.into())
    }

    /// The value of `key` (matched exactly: `1` is not `1.0`).
    pub fn get(&self, key: &Term) -> Option<&Term> {
        let at = self.0.binary_search_by(|(k, _)| key_order(k, key)).ok()?;
        Some(&self.0[at].1)
    }

    /// The pairs, in key order.
    ///
    /// ```
    /// use mote::Term;
    /// let Term::Map(m) = Term::map([(Term::from(2), Term::nil()), (Term::from(1), Term::nil())]) else { unreachable!() };
    /// let keys: Vec<&Term> = m.iter().map(|(k, _)| k).collect();
    /// assert_eq!(keys, [&Term::from(1), &Term::from(2)]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Term, &Term)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// The number of pairs.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it has no pairs.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn pairs(&self) -> &[(Term, Term)] {
        &self.0
    }
}
