//! [`List`]: Erlang's lists, proper (`[a,b]`, `[]`) and improper (`[a|b]`).

use std::sync::Arc;

use super::Term;

/// A list: its elements and, for an improper list, the tail after the last cons cell (the
/// payload of [`Term::List`]). The empty list is Erlang's `[]` (nil).
///
/// Each list has one form, so equal lists are equal terms: a tail is never a list (`[a|[b]]`
/// is `[a,b]`) and never follows zero elements (`[|b]` does not exist: it is just `b`).
/// That is why an improper list is made with [`Term::improper_list`], which returns a
/// [`Term`].
///
/// ```
/// use mote::Term;
/// let l = Term::improper_list([Term::atom("a")], Term::atom("b"));
/// let Term::List(list) = &l else { panic!("a list") };
/// assert_eq!((list.len(), list.is_proper()), (1, false));
/// assert_eq!(l.to_string(), "[a|b]");
/// // A list as the tail joins the list.
/// let joined = Term::improper_list([Term::atom("a")], Term::list([Term::atom("b")]));
/// assert_eq!(joined, Term::list([Term::atom("a"), Term::atom("b")]));
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct List {
    items: Arc<[Term]>,
    /// The tail of an improper list (never a list); `None` for a proper one.
    tail: Option<Box<Term>>,
}

impl List {
    /// The empty list, `[]`.
    pub(crate) fn nil() -> List {
        List {
            items: Arc::new([]),
            tail: None,
        }
    }

    pub(crate) fn proper(items: Arc<[Term]>) -> List {
        List { items, tail: None }
    }

    /// `[items | tail]` in its one form (see the type's docs).
    pub(crate) fn improper(items: Vec<Term>, tail: Term) -> Term {
        match tail {
            Term::List(rest) => {
                let mut items = items;
                items.extend(rest.items.iter().cloned());
                Term::List(List {
                    items: items.into(),
                    tail: rest.tail,
                })
            }
            tail if items.is_empty() => tail,
            tail => Term::List(List {
                items: items.into(),
                tail: Some(Box::new(tail)),
            }),
        }
    }

    /// The elements (before the tail, for an improper list).
    ///
    /// ```
    /// use mote::Term;
    /// let Term::List(l) = Term::list([Term::from(1), Term::from(2)]) else { unreachable!() };
    /// assert_eq!(l.items(), [Term::from(1), Term::from(2)]);
    /// ```
    pub fn items(&self) -> &[Term] {
        &self.items
    }

    /// The tail of an improper list; `None` for a proper one.
    ///
    /// ```
    /// use mote::Term;
    /// let Term::List(l) = Term::improper_list([Term::from(1)], Term::from(2)) else { unreachable!() };
    /// assert_eq!(l.tail(), Some(&Term::from(2)));
    /// ```
    pub fn tail(&self) -> Option<&Term> {
        self.tail.as_deref()
    }

    /// Whether it ends with `[]` (every list but an improper one).
    pub fn is_proper(&self) -> bool {
        self.tail.is_none()
    }

    /// The number of elements (an improper list's tail is not one).
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether this is `[]`.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}
