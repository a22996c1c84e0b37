//! Exact equality and term order: `==` is Erlang's `=:=`, `<` Erlang's term order.
//!
//! One comparison serves both, in two modes. Term order compares numbers by value (`1`
//! and `1.0` tie, broken with the integer first so that only identical terms compare
//! equal). Map key order, which sorts a map's keys, puts every integer before every float
//! (`2` before `1.0`), as Erlang's maps do; maps compare their keys in that order.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

use num_bigint::{BigInt, Sign};
use num_traits::FromPrimitive;

use super::{BitBinary, List, Term};

/// How numbers of different types compare.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// By value; an integer before an equal float.
    Term,
    /// Every integer before every float (map keys).
    Key,
}

/// Map key order (see the module docs).
pub(super) fn key_order(a: &Term, b: &Term) -> Ordering {
    compare(a, b, Mode::Key)
}

/// The kind of a term, in term order: number < atom < reference < fun < port < pid < tuple
/// < map < list (`[]` first) < bitstring.
fn rank(t: &Term) -> u8 {
    match t {
        Term::Int(_) | Term::BigInt(_) | Term::Float(_) => 0,
        Term::Atom(_) => 1,
        Term::Reference(_) => 2,
        Term::Fun(_) => 3,
        Term::Port(_) => 4,
        Term::Pid(_) => 5,
        Term::Tuple(_) => 6,
        Term::Map(_) => 7,
        Term::List(_) => 8,
        Term::Binary(_) | Term::BitBinary(_) => 9,
    }
}

fn compare(a: &Term, b: &Term, mode: Mode) -> Ordering {
    match (a, b) {
        (Term::Int(x), Term::Int(y)) => x.cmp(y),
        (Term::Float(x), Term::Float(y)) => x.total_cmp(y),
        (Term::BigInt(x), Term::BigInt(y)) => x.value().cmp(y.value()),
        (Term::Int(_) | Term::BigInt(_), Term::Float(_)) if mode == Mode::Key => Ordering::Less,
        (Term::Float(_), Term::Int(_) | Term::BigInt(_)) if mode == Mode::Key => Ordering::Greater,
        (Term::Int(x), Term::Float(y)) => int_vs_float(&BigInt::from(*x), *y),
        (Term::BigInt(x), Term::Float(y)) => int_vs_float(x.value(), *y),
        (Term::Float(x), Term::Int(y)) => int_vs_float(&BigInt::from(*y), *x).reverse(),
        (Term::Float(x), Term::BigInt(y)) => int_vs_float(y.value(), *x).reverse(),
        // A big integer lies beyond every i64: its sign says on which side.
        (Term::Int(_), Term::BigInt(y)) => sign_side(y.value()).reverse(),
        (Term::BigInt(x), Term::Int(_)) => sign_side(x.value()),
        (Term::Atom(x), Term::Atom(y)) => x.as_str().cmp(y.as_str()),
        (Term::Reference(x), Term::Reference(y)) => (x.node(), x.creation())
            .cmp(&(y.node(), y.creation()))
            .then_with(|| x.words().len().cmp(&y.words().len()))
            .then_with(|| x.words().iter().rev().cmp(y.words().iter().rev())),
        (Term::Fun(x), Term::Fun(y)) => x.cmp(y),
        (Term::Port(x), Term::Port(y)) => x.cmp(y),
        (Term::Pid(x), Term::Pid(y)) => x.cmp(y),
        (Term::Tuple(x), Term::Tuple(y)) => {
            x.len().cmp(&y.len()).then_with(|| elements(x, y, mode))
        }
        (Term::Map(x), Term::Map(y)) => {
            let (x, y) = (x.pairs(), y.pairs());
            x.len()
                .cmp(&y.len())
                .then_with(|| {
                    x.iter()
                        .zip(y)
                        .map(|((kx, _), (ky, _))| compare(kx, ky, Mode::Key))
                        .find(|o| o.is_ne())
                        .unwrap_or(Ordering::Equal)
                })
                .then_with(|| {
                    x.iter()
                        .zip(y)
                        .map(|((_, vx), (_, vy))| compare(vx, vy, mode))
                        .find(|o| o.is_ne())
                        .unwrap_or(Ordering::Equal)
                })
        }
        (Term::List(x), Term::List(y)) => lists(x, y, mode),
        (Term::Binary(x), Term::Binary(y)) => x.cmp(y),
        (Term::Binary(x), Term::BitBinary(y)) => bit_strings(x, 8, y.bytes(), y.tail_bits()),
        (Term::BitBinary(x), Term::Binary(y)) => bit_strings(x.bytes(), x.tail_bits(), y, 8),
        (Term::BitBinary(x), Term::BitBinary(y)) => bits(x, y),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn elements(x: &[Term], y: &[Term], mode: Mode) -> Ordering {
    x.iter()
        .zip(y)
        .map(|(a, b)| compare(a, b, mode))
        .find(|o| o.is_ne())
        .unwrap_or_else(|| x.len().cmp(&y.len()))
}

/// Lists compare cell by cell: elements first; where one runs out, what follows it (its
/// tail, or `[]`) against the rest of the other.
fn lists(x: &List, y: &List, mode: Mode) -> Ordering {
    let (xs, ys) = (x.items(), y.items());
    let common = xs.len().min(ys.len());
    let head = elements(&xs[..common], &ys[..common], mode);
    if head.is_ne() {
        return head;
    }
    match (xs.len() > common, ys.len() > common) {
        // Both ran out: the tails (`[]` for a proper list) decide.
        (false, false) => match (x.tail(), y.tail()) {
            (None, None) => Ordering::Equal,
            (Some(tx), Some(ty)) => compare(tx, ty, mode),
            // `[]` against a tail that is not a list (tails never are).
            (None, Some(ty)) => rank(&Term::nil()).cmp(&rank(ty)),
            (Some(tx), None) => rank(tx).cmp(&rank(&Term::nil())),
        },
        // `x` ran out: its tail (or `[]`) against a non-empty rest of `y`, a list.
        (false, true) => match x.tail() {
            None => Ordering::Less,
            Some(tx) => rank(tx).cmp(&rank(&Term::nil())),
        },
        (true, false) => match y.tail() {
            None => Ordering::Greater,
            Some(ty) => rank(&Term::nil()).cmp(&rank(ty)),
        },
        (true, true) => unreachable!("the shorter list ran out"),
    }
}

/// Compares an integer with a float by value; an equal pair puts the integer first.
fn int_vs_float(int: &BigInt, float: f64) -> Ordering {
    if float.is_nan() {
        // Where `total_cmp` puts NaN: a positive one after every number.
        return if float.is_sign_negative() {
            Ordering::Greater
        } else {
            Ordering::Less
        };
    }
    if float.is_infinite() {
        return if float > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    let whole = float.trunc();
    let truncated = BigInt::from_f64(whole).expect("a finite float's integer part");
    int.cmp(&truncated).then(if float > whole {
        Ordering::Less
    } else if float < whole {
        Ordering::Greater
    } else {
        // Equal values: the integer first (term order calls them equal).
        Ordering::Less
    })
}

fn sign_side(big: &BigInt) -> Ordering {
    if big.sign() == Sign::Minus {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

/// Two bitstrings, bit by bit; a prefix comes first.
fn bits(x: &BitBinary, y: &BitBinary) -> Ordering {
    bit_strings(x.bytes(), x.tail_bits(), y.bytes(), y.tail_bits())
}

/// Compares bitstrings given as bytes whose last byte holds `tail` bits (8: all of it).
fn bit_strings(x: &[u8], x_tail: u8, y: &[u8], y_tail: u8) -> Ordering {
    let x_bits = bit_len(x, x_tail);
    let y_bits = bit_len(y, y_tail);
    let common = x_bits.min(y_bits);
    let whole = common / 8;
    let head = x[..whole].cmp(&y[..whole]);
    if head.is_ne() {
        return head;
    }
    let rest = (common % 8) as u32;
    if rest > 0 {
        let mask = 0xffu8 << (8 - rest);
        let o = (x[whole] & mask).cmp(&(y[whole] & mask));
        if o.is_ne() {
            return o;
        }
    }
    x_bits.cmp(&y_bits)
}

fn bit_len(bytes: &[u8], tail: u8) -> usize {
    match bytes.len() {
        0 => 0,
        n => (n - 1) * 8 + usize::from(tail),
    }
}

impl PartialEq for Term {
    fn eq(&self, other: &Term) -> bool {
        match (self, other) {
            (Term::Int(x), Term::Int(y)) => x == y,
            (Term::Atom(x), Term::Atom(y)) => x == y,
            (Term::Pid(x), Term::Pid(y)) => x == y,
            (Term::Binary(x), Term::Binary(y)) => x == y,
            (Term::Tuple(x), Term::Tuple(y)) => x == y,
            _ => compare(self, other, Mode::Term) == Ordering::Equal,
        }
    }
}

impl Eq for Term {}

impl PartialOrd for Term {
    fn partial_cmp(&self, other: &Term) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Term {
    fn cmp(&self, other: &Term) -> Ordering {
        compare(self, other, Mode::Term)
    }
}

impl Hash for Term {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Term::Int(x) => x.hash(state),
            Term::BigInt(x) => x.hash(state),
            Term::Float(x) => x.to_bits().hash(state),
            Term::Atom(x) => x.hash(state),
            Term::Reference(x) => x.hash(state),
            Term::Fun(x) => x.hash(state),
            Term::Port(x) => x.hash(state),
            Term::Pid(x) => x.hash(state),
            Term::Tuple(x) => x.hash(state),
            Term::Map(x) => {
                x.len().hash(state);
                for (k, v) in x.iter() {
                    k.hash(state);
                    v.hash(state);
                }
            }
            Term::List(x) => {
                x.items().hash(state);
                x.tail().hash(state);
            }
            Term::Binary(x) => x.hash(state),
            Term::BitBinary(x) => x.hash(state),
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn a(name: &str) -> Term {
        Term::atom(name)
    }

    fn i(n: i64) -> Term {
        Term::Int(n)
    }

    fn bits(bytes: &[u8], tail: u8) -> Term {
        Term::bits(bytes.to_vec(), tail).unwrap()
    }

    /// Comparisons checked in an OTP 25 `erl`: `X < Y` gave `true` for each pair marked
    /// `Less`, `false` for each marked `Greater` (and `Y < X` was `true` there).
    #[test]
    fn term_order_agrees_with_erl() {
        let map = |pairs: &[(Term, Term)]| Term::map(pairs.iter().cloned());
        let (less, greater) = (Ordering::Less, Ordering::Greater);
        let cases = [
            // [a|b] < [a,c]
            (
                Term::improper_list([a("a")], a("b")),
                Term::list([a("a"), a("c")]),
                less,
            ),
            // <<1:1>> < <<1>>
            (bits(&[0x80], 1), Term::binary(vec![1]), greater),
            // <<1:1>> < <<128>>, <<128>> < <<1:1>>, <<1:1>> < <<129>>
            (bits(&[0x80], 1), Term::binary(vec![128]), less),
            (Term::binary(vec![128]), bits(&[0x80], 1), greater),
            (bits(&[0x80], 1), Term::binary(vec![129]), less),
            // {1,2} < {0,0,0}
            (
                Term::tuple([i(1), i(2)]),
                Term::tuple([i(0), i(0), i(0)]),
                less,
            ),
            // #{a=>1} < {1,2,3}
            (
                map(&[(a("a"), i(1))]),
                Term::tuple([i(1), i(2), i(3)]),
                greater,
            ),
            // #{b=>1} < #{a=>1,b=>2}
            (
                map(&[(a("b"), i(1))]),
                map(&[(a("a"), i(1)), (a("b"), i(2))]),
                less,
            ),
            // #{a => 2} < #{b => 1}
            (map(&[(a("a"), i(2))]), map(&[(a("b"), i(1))]), less),
            // #{1 => a} < #{1.0 => a}, #{2 => a} < #{1.0 => a}: integer keys first
            (
                map(&[(i(1), a("a"))]),
                map(&[(Term::Float(1.0), a("a"))]),
                less,
            ),
            (
                map(&[(i(2), a("a"))]),
                map(&[(Term::Float(1.0), a("a"))]),
                less,
            ),
            // [1,2] < [1.0,3]
            (
                Term::list([i(1), i(2)]),
                Term::list([Term::Float(1.0), i(3)]),
                less,
            ),
        ];
        for (x, y, expected) in cases {
            assert_eq!(x.cmp(&y), expected, "{x} against {y}");
        }
        // `1 < 1.0` and `1.0 < 1` are both false in Erlang: a tie, broken integer first.
        assert!(i(1) < Term::Float(1.0));
        assert_ne!(i(1), Term::Float(1.0));
    }

    /// `lists:sort([1, 1.0, 0.5, 2, a, {}, [], [a], <<>>, #{}, self(), make_ref()])` in an
    /// OTP 25 `erl`: numbers, atom, reference, pid, tuple, map, `[]`, list, binary.
    #[test]
    fn kinds_sort_as_in_erl() {
        let pid = crate::values::pid::ProcessId::NONE;
        let r = super::super::Reference::new(0, 0, &[1, 2, 3]).unwrap();
        let mut terms = vec![
            Term::binary(Vec::new()),
            Term::list([a("a")]),
            Term::nil(),
            Term::map([]),
            Term::tuple([]),
            Term::Pid(pid),
            Term::Reference(r),
            a("a"),
            i(2),
            Term::Float(1.0),
            Term::Float(0.5),
            i(1),
        ];
        terms.sort();
        let shown: Vec<String> = terms.iter().map(Term::to_string).collect();
        assert_eq!(
            shown,
            [
                "0.5",
                "1",
                "1.0",
                "2",
                "a",
                "#Ref<0.3.2.1>",
                "<0.0.0>",
                "{}",
                "#{}",
                "[]",
                "[a]",
                "<<>>"
            ]
        );
    }

    #[test]
    fn integers_and_floats_compare_exactly_across_types() {
        let big = Term::from(BigInt::from(i64::MAX) + 1);
        let huge_float = Term::Float(2f64.powi(63)); // == i64::MAX + 1
        assert!(i(i64::MAX) < huge_float);
        assert!(big > i(i64::MAX));
        assert!(Term::from(BigInt::from(i64::MIN) - 1) < i(i64::MIN));
        // Equal values tie; the integer comes first.
        assert!(big < huge_float);
        assert_ne!(big, huge_float);
        assert!(Term::Float(2.5) > i(2) && Term::Float(2.5) < i(3));
        assert!(Term::Float(-2.5) < i(-2) && Term::Float(-2.5) > i(-3));
        assert!(Term::Float(f64::INFINITY) > big);
        assert!(Term::Float(f64::NEG_INFINITY) < i(i64::MIN));
        assert!(Term::Float(-0.0) < Term::Float(0.0));
        assert_ne!(Term::Float(-0.0), Term::Float(0.0));
    }

    fn leaf() -> impl Strategy<Value = Term> {
        prop_oneof![
            (-3i64..3).prop_map(Term::Int),
            prop_oneof![Just(i64::MAX as i128 + 1), Just(i64::MIN as i128 - 1)]
                .prop_map(Term::from),
            prop_oneof![
                Just(-1.0),
                Just(-0.0),
                Just(0.0),
                Just(0.5),
                Just(1.0),
                Just(2.0)
            ]
            .prop_map(Term::Float),
            prop_oneof![Just("a"), Just("b"), Just("")].prop_map(Term::atom),
            proptest::collection::vec(0u8..3, 0..3).prop_map(Term::binary),
            (proptest::collection::vec(0u8..=255, 1..3), 1u8..8)
                .prop_map(|(b, t)| Term::bits(b, t).unwrap()),
        ]
    }

    fn term() -> impl Strategy<Value = Term> {
        leaf().prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Term::tuple),
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Term::list),
                (
                    proptest::collection::vec(inner.clone(), 0..3),
                    inner.clone()
                )
                    .prop_map(|(items, tail)| Term::improper_list(items, tail)),
                proptest::collection::vec((inner.clone(), inner), 0..3).prop_map(Term::map),
            ]
        })
    }

    fn hash_of(t: &Term) -> u64 {
        use std::collections::hash_map::DefaultHasher;
        let mut h = DefaultHasher::new();
        t.hash(&mut h);
        h.finish()
    }

    proptest! {
        /// `Ord` is a total order consistent with `Eq` and `Hash`.
        #[test]
        fn order_is_total_and_agrees_with_equality(x in term(), y in term(), z in term()) {
            prop_assert_eq!(x.cmp(&y), y.cmp(&x).reverse());
            prop_assert_eq!(x.cmp(&y) == Ordering::Equal, x == y);
            if x == y {
                prop_assert_eq!(hash_of(&x), hash_of(&y));
            }
            prop_assert_eq!(x.cmp(&x.clone()), Ordering::Equal);
            if x <= y && y <= z {
                prop_assert!(x <= z);
            }
        }

        /// A map's order is its keys', whatever order its pairs came in.
        #[test]
        fn maps_ignore_insertion_order(pairs in proptest::collection::vec((term(), term()), 0..5)) {
            let mut keys: Vec<Term> = Vec::new();
            let mut unique = Vec::new();
            for (k, v) in pairs.into_iter().rev() {
                if !keys.contains(&k) {
                    keys.push(k.clone());
                    unique.push((k, v));
                }
            }
            let forward = Term::map(unique.iter().cloned());
            let backward = Term::map(unique.iter().rev().cloned());
            prop_assert_eq!(hash_of(&forward), hash_of(&backward));
            prop_assert_eq!(forward, backward);
        }
    }
}
