//! Erlang terms: [`Term`], the dynamic value exit reasons are made of (and, later, what
//! crosses the wire to Erlang nodes).
//!
//! A term is a number, an [`Atom`], a [`Reference`], a [`Fun`], a [`Port`], a pid
//! ([`ProcessId`]), a tuple, a [`Map`], a [`List`] or a binary, as in Erlang. Terms are
//! immutable and cheap to clone (compound terms share their parts). They compare with
//! Erlang's exact equality (`=:=`), order with Erlang's term order, and print in Erlang
//! syntax:
//!
//! ```
//! use mote::Term;
//!
//! let reason = Term::tuple([
//!     Term::atom("shutdown"),
//!     Term::tuple([Term::atom("failed_to_start_child"), Term::atom("db"), Term::atom("econnrefused")]),
//! ]);
//! assert_eq!(reason.to_string(), "{shutdown,{failed_to_start_child,db,econnrefused}}");
//! assert_eq!(Term::from(("ok", 1)).to_string(), r#"{<<"ok">>,1}"#);
//! assert!(Term::from(1) < Term::atom("a")); // number < atom < ... < list < bitstring
//! assert_ne!(Term::from(1), Term::from(1.0)); // =:=, not ==
//! ```

mod atom;
mod bits;
mod display;
mod ids;
mod integer;
mod list;
mod map;
mod order;

use std::sync::Arc;

pub use bytes::Bytes;
pub use num_bigint::BigInt;

pub use atom::{Atom, AtomTooLong, MAX_ATOM_CHARS};
pub use bits::{BadBits, BitBinary};
pub use ids::{BadReference, Fun, Port, Reference};
pub use integer::BigInteger;
pub use list::List;
pub use map::Map;

use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::{Pid, ProcessId};

/// An Erlang term.
///
/// Each value has one form, so that `==` is Erlang's `=:=`: an integer that fits in an
/// `i64` is always [`Term::Int`], a map's pairs are kept in key order, a list's tail is never
/// a list, and a whole number of bytes is a [`Term::Binary`]. The payload types that carry
/// such a rule can only be made through the constructors here.
///
/// * Equality (`PartialEq`, `Eq`, `Hash`) is exact: `1` and `1.0` differ, as under `=:=`.
///   Deviation: `0.0` and `-0.0` differ too, as in OTP 27 and later (OTP 25 and 26 call
///   them exactly equal).
/// * Order (`Ord`) is Erlang's term order: number < atom < reference < fun < port < pid <
///   tuple < map < `[]` < list < bitstring; numbers by value, tuples by size then
///   elements, maps by size, then keys, then values, lists and bitstrings element by
///   element. Where Erlang's order calls two different terms equal (`1` and `1.0`, `0.0`
///   and `-0.0`), the integer, and the negative zero, come first, so that the order agrees
///   with equality.
/// * `Display` is Erlang syntax, as the shell prints a term (`~tp`, on one line):
///   `{shutdown,db}`, `'EXIT'`, `<<"hi">>`, `"hi"` for a list of printable characters,
///   `[a|b]`, `#{k => v}`, `1.0e6`.
/// * Floats: Erlang has no NaN and no infinities. A `Term` may hold them (they are Rust
///   floats); they order as [`f64::total_cmp`] does and print as Rust prints them.
///
/// ```
/// use mote::Term;
/// let t = Term::tuple([Term::atom("error"), Term::from(404), Term::binary("not found")]);
/// match &t {
///     Term::Tuple(items) => match &items[..] {
///         [Term::Atom(tag), Term::Int(code), _] if tag == "error" => assert_eq!(*code, 404),
///         _ => unreachable!(),
///     },
///     _ => unreachable!(),
/// }
/// assert_eq!(t.to_string(), r#"{error,404,<<"not found">>}"#);
/// ```
#[derive(Clone)]
pub enum Term {
    /// An integer that fits in an `i64`.
    Int(i64),
    /// An integer that does not fit in an `i64` (never one that does).
    BigInt(BigInteger),
    /// A float.
    Float(f64),
    /// An atom.
    Atom(Atom),
    /// A reference.
    Reference(Reference),
    /// A fun or external function, opaque.
    Fun(Fun),
    /// A port.
    Port(Port),
    /// A process identifier.
    Pid(ProcessId),
    /// A tuple: `{a,b}`.
    Tuple(Arc<[Term]>),
    /// A map: `#{k => v}`.
    Map(Map),
    /// A list, proper or improper; `[]` is the empty proper list.
    List(List),
    /// A binary: a whole number of bytes.
    Binary(Bytes),
    /// A bitstring that is not a whole number of bytes.
    BitBinary(BitBinary),
}

impl Term {
    /// The atom `name`.
    ///
    /// # Panics
    /// If `name` has more than 255 characters; [`Atom::new`] reports that as an error.
    ///
    /// ```
    /// assert_eq!(mote::Term::atom("ok").to_string(), "ok");
    /// ```
    pub fn atom(name: &str) -> Term {
        match Atom::new(name) {
            Ok(atom) => Term::Atom(atom),
            Err(e) => panic!("Term::atom: {e}"),
        }
    }

    /// A tuple of `items`.
    ///
    /// ```
    /// use mote::Term;
    /// assert_eq!(Term::tuple([Term::atom("a"), Term::from(1)]).to_string(), "{a,1}");
    /// assert_eq!(Term::tuple([]).to_string(), "{}");
    /// ```
    pub fn tuple(items: impl IntoIterator<Item = Term>) -> Term {
        Term::Tuple(items.into_iter().collect())
    }

    /// A proper list of `items`.
    ///
    /// ```
    /// use mote::Term;
    /// assert_eq!(Term::list([Term::atom("a"), Term::from(1)]).to_string(), "[a,1]");
    /// ```
    pub fn list(items: impl IntoIterator<Item = Term>) -> Term {
        Term::List(List::proper(items.into_iter().collect()))
    }

    /// The list of `items` ending in `tail` instead of `[]` (`[a,b|t]`). A list as `tail`
    /// joins the list; no `items` gives `tail` itself.
    ///
    /// ```
    /// use mote::Term;
    /// let t = Term::improper_list([Term::from(1), Term::from(2)], Term::from(3));
    /// assert_eq!(t.to_string(), "[1,2|3]");
    /// assert_eq!(Term::improper_list([], Term::atom("x")), Term::atom("x"));
    /// ```
    pub fn improper_list(items: impl IntoIterator<Item = Term>, tail: Term) -> Term {
        List::improper(items.into_iter().collect(), tail)
    }

    /// The empty list, `[]` (Erlang's nil).
    ///
    /// ```
    /// assert_eq!(mote::Term::nil().to_string(), "[]");
    /// ```
    pub fn nil() -> Term {
        Term::List(List::nil())
    }

    /// A map of `pairs`; a key given twice keeps its last value.
    ///
    /// ```
    /// use mote::Term;
    /// let m = Term::map([(Term::atom("k"), Term::from(1)), (Term::atom("k"), Term::from(2))]);
    /// assert_eq!(m.to_string(), "#{k => 2}");
    /// ```
    pub fn map(pairs: impl IntoIterator<Item = (Term, Term)>) -> Term {
        Term::Map(Map::from_pairs(pairs))
    }

    /// A binary of `bytes`.
    ///
    /// ```
    /// use mote::Term;
    /// assert_eq!(Term::binary("hi").to_string(), r#"<<"hi">>"#);
    /// assert_eq!(Term::binary(vec![1, 2]).to_string(), "<<1,2>>");
    /// ```
    pub fn binary(bytes: impl Into<Bytes>) -> Term {
        Term::Binary(bytes.into())
    }

    /// The bitstring of `bytes` whose last byte holds `tail_bits` (1..=8) bits, in its high
    /// end: a [`Term::Binary`] for 8, a [`Term::BitBinary`] for fewer.
    ///
    /// ```
    /// use mote::Term;
    /// assert_eq!(Term::bits(vec![0b1000_0000], 1).unwrap().to_string(), "<<1:1>>");
    /// ```
    pub fn bits(bytes: impl Into<Bytes>, tail_bits: u8) -> Result<Term, BadBits> {
        BitBinary::term(bytes.into(), tail_bits)
    }

    /// The atom, if this is one.
    ///
    /// ```
    /// assert_eq!(mote::Term::atom("ok").as_atom().map(|a| a.as_str()), Some("ok"));
    /// ```
    pub fn as_atom(&self) -> Option<&Atom> {
        match self {
            Term::Atom(atom) => Some(atom),
            _ => None,
        }
    }

    /// Whether this is the atom `name`.
    ///
    /// ```
    /// assert!(mote::Term::atom("ok").is_atom("ok"));
    /// ```
    pub fn is_atom(&self, name: &str) -> bool {
        self.as_atom().is_some_and(|a| a == name)
    }

    /// The elements, if this is a tuple.
    ///
    /// ```
    /// use mote::Term;
    /// assert_eq!(Term::from((1, 2)).as_tuple().map(|t| t.len()), Some(2));
    /// ```
    pub fn as_tuple(&self) -> Option<&[Term]> {
        match self {
            Term::Tuple(items) => Some(items),
            _ => None,
        }
    }

    /// A name as a term: the atom if it can be one, else (longer than 255 characters) a
    /// binary of its text.
    pub(crate) fn atom_or_binary(text: Arc<str>) -> Term {
        if text.len() <= MAX_ATOM_CHARS || text.chars().count() <= MAX_ATOM_CHARS {
            Term::Atom(Atom::new(text).expect("checked length"))
        } else {
            Term::Binary(Bytes::from(text.as_bytes().to_vec()))
        }
    }
}

macro_rules! from_small_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Term {
            fn from(value: $t) -> Term {
                Term::Int(i64::from(value))
            }
        }
    )*};
}
from_small_int!(i8, i16, i32, i64, u8, u16, u32);

impl From<isize> for Term {
    fn from(value: isize) -> Term {
        Term::Int(value as i64)
    }
}

impl From<f64> for Term {
    fn from(value: f64) -> Term {
        Term::Float(value)
    }
}

impl From<f32> for Term {
    fn from(value: f32) -> Term {
        Term::Float(f64::from(value))
    }
}

impl From<bool> for Term {
    /// The atom `true` or `false`.
    fn from(value: bool) -> Term {
        Term::Atom(Atom::known(if value { "true" } else { "false" }))
    }
}

impl From<Atom> for Term {
    fn from(atom: Atom) -> Term {
        Term::Atom(atom)
    }
}

impl From<&str> for Term {
    /// A binary of the text's UTF-8 bytes (as Elixir strings are); use [`Term::atom`] for
    /// an atom.
    fn from(text: &str) -> Term {
        Term::Binary(Bytes::copy_from_slice(text.as_bytes()))
    }
}

impl From<String> for Term {
    /// A binary of the text's UTF-8 bytes (as Elixir strings are).
    fn from(text: String) -> Term {
        Term::Binary(Bytes::from(text))
    }
}

impl From<Bytes> for Term {
    fn from(bytes: Bytes) -> Term {
        Term::Binary(bytes)
    }
}

impl From<&[u8]> for Term {
    fn from(bytes: &[u8]) -> Term {
        Term::Binary(Bytes::copy_from_slice(bytes))
    }
}

impl From<Vec<Term>> for Term {
    /// A proper list.
    fn from(items: Vec<Term>) -> Term {
        Term::List(List::proper(items.into()))
    }
}

impl From<ProcessId> for Term {
    fn from(pid: ProcessId) -> Term {
        Term::Pid(pid)
    }
}

impl<M> From<Pid<M>> for Term {
    fn from(pid: Pid<M>) -> Term {
        Term::Pid(pid.id())
    }
}

impl From<Reference> for Term {
    fn from(r: Reference) -> Term {
        Term::Reference(r)
    }
}

impl From<MonitorRef> for Term {
    fn from(r: MonitorRef) -> Term {
        Term::Reference(r.into())
    }
}

impl From<Port> for Term {
    fn from(port: Port) -> Term {
        Term::Port(port)
    }
}

impl From<Fun> for Term {
    fn from(fun: Fun) -> Term {
        Term::Fun(fun)
    }
}

impl From<List> for Term {
    fn from(list: List) -> Term {
        Term::List(list)
    }
}

impl From<Map> for Term {
    fn from(map: Map) -> Term {
        Term::Map(map)
    }
}

macro_rules! from_tuple {
    ($($name:ident),+) => {
        impl<$($name: Into<Term>),+> From<($($name,)+)> for Term {
            /// The tuple of the converted elements.
            #[allow(non_snake_case)]
            fn from(($($name,)+): ($($name,)+)) -> Term {
                Term::Tuple(Arc::new([$($name.into()),+]))
            }
        }
    };
}
from_tuple!(A);
from_tuple!(A, B);
from_tuple!(A, B, C);
from_tuple!(A, B, C, D);
from_tuple!(A, B, C, D, E);
from_tuple!(A, B, C, D, E, F);
