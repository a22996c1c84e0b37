//! mote's [`Term`] (exit reasons are terms) to and from the wire's [`WireTerm`]: node
//! numbers of pids, references and ports become node names through the node table.

use mote::term::{Port, Reference, Term};
use mote::{ExitReason, ProcessId};

use crate::etf::{Atom, ErlPort, ErlRef, WireTerm};
use crate::node_table;

/// The wire form of an exit reason (`{shutdown, T}` stays `{shutdown, T}`, a panic is
/// `{panic, <<"message">>}`).
pub(crate) fn reason_to_wire(reason: &ExitReason) -> WireTerm {
    to_wire(&reason.to_term())
}

/// The exit reason a wire term means (`normal`, `kill`, `noconnection`, ... are the named
/// reasons; anything else is kept as its term).
pub(crate) fn reason_from_wire(term: &WireTerm) -> ExitReason {
    ExitReason::from_term(from_wire(term))
}

fn node_atom(n: u32) -> Atom {
    node_table::node_name(n).unwrap_or_else(|| node_table::local().0)
}

fn node_number(node: &Atom) -> u32 {
    node_table::node_number(node)
}

pub(crate) fn to_wire(t: &Term) -> WireTerm {
    match t {
        Term::Int(i) => WireTerm::Int(*i),
        Term::BigInt(b) => WireTerm::BigInt(b.value().clone()),
        Term::Float(f) => WireTerm::Float(*f),
        Term::Atom(a) => WireTerm::Atom(Atom::new(a).unwrap_or_else(|_| Atom::new("").unwrap())),
        Term::Reference(r) => {
            let (node, creation) = if r.node() == 0 {
                node_table::local()
            } else {
                (node_atom(r.node()), r.creation())
            };
            match ErlRef::new(node, creation, r.words()) {
                Ok(r) => WireTerm::Ref(r),
                Err(_) => WireTerm::Atom(Atom::new("badref").unwrap()),
            }
        }
        Term::Fun(f) => WireTerm::Fun(f.encoded().clone()),
        Term::Port(p) => {
            let (node, creation) = if p.node() == 0 {
                node_table::local()
            } else {
                (node_atom(p.node()), p.creation())
            };
            WireTerm::Port(ErlPort {
                node,
                id: p.id(),
                creation,
            })
        }
        Term::Pid(id) => WireTerm::Pid(node_table::to_wire(*id)),
        Term::Tuple(items) => WireTerm::Tuple(items.iter().map(to_wire).collect()),
        Term::Map(m) => WireTerm::Map(m.iter().map(|(k, v)| (to_wire(k), to_wire(v))).collect()),
        Term::List(l) => {
            let items = l.items().iter().map(to_wire).collect();
            match l.tail() {
                Some(tail) => WireTerm::ImproperList(items, Box::new(to_wire(tail))),
                None => WireTerm::List(items),
            }
        }
        Term::Binary(b) => WireTerm::Binary(b.clone()),
        Term::BitBinary(b) => WireTerm::BitBinary {
            data: b.bytes().clone(),
            last_bits: b.tail_bits(),
        },
    }
}

pub(crate) fn from_wire(t: &WireTerm) -> Term {
    match t {
        WireTerm::Atom(a) => Term::atom(a.as_str()),
        WireTerm::Int(i) => Term::Int(*i),
        WireTerm::BigInt(b) => Term::from(b.clone()),
        WireTerm::Float(f) => Term::Float(*f),
        WireTerm::Binary(b) => Term::Binary(b.clone()),
        WireTerm::BitBinary { data, last_bits } => {
            Term::bits(data.clone(), *last_bits).unwrap_or_else(|_| Term::Binary(data.clone()))
        }
        WireTerm::ByteList(b) => Term::list(b.iter().map(|&x| Term::Int(i64::from(x)))),
        WireTerm::List(items) => Term::list(items.iter().map(from_wire)),
        WireTerm::ImproperList(items, tail) => {
            Term::improper_list(items.iter().map(from_wire), from_wire(tail))
        }
        WireTerm::Tuple(items) => Term::tuple(items.iter().map(from_wire)),
        WireTerm::Map(pairs) => Term::map(pairs.iter().map(|(k, v)| (from_wire(k), from_wire(v)))),
        WireTerm::Pid(p) => Term::Pid(node_table::from_wire(p)),
        WireTerm::Port(p) => {
            let (n, creation) = local_or(&p.node, p.creation);
            Term::Port(Port::new(n, p.id, creation))
        }
        WireTerm::Ref(r) => {
            let (n, creation) = local_or(&r.node, r.creation);
            match Reference::new(n, creation, r.ids()) {
                Ok(r) => Term::Reference(r),
                Err(_) => Term::atom("badref"),
            }
        }
        WireTerm::Fun(f) => Term::Fun(mote::term::Fun::from_encoded(f.clone())),
    }
}

/// Node number and creation of an identifier: this node's current incarnation is `0`/`0`,
/// as mote's own identifiers are.
fn local_or(node: &Atom, creation: u32) -> (u32, u32) {
    let (local, local_creation) = node_table::local();
    if *node == local && creation == local_creation {
        (0, 0)
    } else {
        (node_number(node), creation)
    }
}

/// A remote pid as mote sees it (for the `from` of signals).
pub(crate) fn pid(p: &crate::etf::ErlPid) -> ProcessId {
    node_table::from_wire(p)
}

/// A mote term on the wire: node numbers of pids, references and ports become the node
/// names they stand for (this node's own identifiers get its name and creation).
///
/// ```
/// use mote::Term;
/// use mote_dist::etf::WireTerm;
///
/// let t = Term::tuple([Term::atom("shutdown"), Term::binary(&b"bye"[..])]);
/// let w = WireTerm::from(&t);
/// assert_eq!(Term::from(&w), t);
/// ```
impl From<&Term> for WireTerm {
    fn from(t: &Term) -> WireTerm {
        to_wire(t)
    }
}

/// A wire term as a mote term (see `From<&Term> for WireTerm`); a charlist becomes a list
/// of integers, as Erlang sees it.
///
/// ```
/// use mote::{ExitReason, Term};
/// use mote_dist::etf::WireTerm;
///
/// let reason = ExitReason::from_term(Term::from(&WireTerm::atom("noconnection").unwrap()));
/// assert_eq!(reason, ExitReason::NoConnection);
/// ```
impl From<&WireTerm> for Term {
    fn from(t: &WireTerm) -> Term {
        from_wire(t)
    }
}
