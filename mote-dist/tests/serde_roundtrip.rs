//! serde round trips: typed values survive encode + decode, and their terms have the
//! Erlang shapes the mapping table promises.

use std::collections::BTreeMap;

use mote_dist::etf::{Atom, ErlPid, ErlRef, WireTerm};
use mote_dist::serde::{
    from_bytes, from_slice, from_slice_with, to_vec, to_vec_with, Charlist, Options, Record,
};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Shape {
    Empty,
    Circle(f64),
    Rect(u32, u32),
    Labeled { name: String, sides: Vec<u8> },
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Everything {
    flag: bool,
    i8: i8,
    i16: i16,
    i32: i32,
    i64: i64,
    i128: i128,
    u8: u8,
    u16: u16,
    u32: u32,
    u64: u64,
    u128: u128,
    float: f64,
    ch: char,
    text: String,
    #[serde(with = "serde_bytes")]
    bytes: Vec<u8>,
    maybe: Option<u16>,
    nested_maybe: Option<Point>,
    shapes: Vec<Shape>,
    pair: (u8, String),
    map: BTreeMap<String, i64>,
    charlist: Charlist,
    record: Record<Point>,
    result: Result<(), String>,
    unit: (),
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Empty),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Shape::Circle),
        (any::<u32>(), any::<u32>()).prop_map(|(a, b)| Shape::Rect(a, b)),
        (".*", any::<Vec<u8>>()).prop_map(|(name, sides)| Shape::Labeled { name, sides }),
    ]
}

fn point() -> impl Strategy<Value = Point> {
    (any::<i32>(), any::<i32>()).prop_map(|(x, y)| Point { x, y })
}

prop_compose! {
    fn everything()(
        flag in any::<bool>(),
        ints in (any::<i8>(), any::<i16>(), any::<i32>(), any::<i64>(), any::<i128>()),
        uints in (any::<u8>(), any::<u16>(), any::<u32>(), any::<u64>(), any::<u128>()),
        float in any::<f64>().prop_filter("finite", |f| f.is_finite()),
        ch in any::<char>(),
        text in ".*",
        bytes in any::<Vec<u8>>(),
        maybe in any::<Option<u16>>(),
        nested_maybe in proptest::option::of(point()),
        shapes in proptest::collection::vec(shape(), 0..5),
        pair in (any::<u8>(), ".*"),
        map in proptest::collection::btree_map(".*", any::<i64>(), 0..5),
        charlist in ".*",
        record in point(),
        result in proptest::option::of(".*"),
    ) -> Everything {
        Everything {
            flag,
            i8: ints.0, i16: ints.1, i32: ints.2, i64: ints.3, i128: ints.4,
            u8: uints.0, u16: uints.1, u32: uints.2, u64: uints.3, u128: uints.4,
            float, ch, text, bytes, maybe, nested_maybe, shapes, pair, map,
            charlist: Charlist(charlist),
            record: Record(record),
            result: result.map_or(Ok(()), Err),
            unit: (),
        }
    }
}

proptest! {
    #[test]
    fn typed_values_round_trip(v in everything()) {
        let bytes = to_vec(&v).unwrap();
        prop_assert_eq!(&from_slice::<Everything>(&bytes).unwrap(), &v);
        prop_assert_eq!(&from_bytes::<Everything>(&bytes).unwrap(), &v);
        // The encoding is a valid term for the dynamic decoder too.
        prop_assert!(WireTerm::decode(&bytes).is_ok());
        let elixir = Options::elixir();
        let bytes = to_vec_with(&v, &elixir).unwrap();
        prop_assert_eq!(&from_slice_with::<Everything>(&bytes, &elixir).unwrap(), &v);
    }
}

fn term(bytes: &[u8]) -> WireTerm {
    WireTerm::decode(bytes).unwrap()
}

fn atom(s: &str) -> WireTerm {
    WireTerm::atom(s).unwrap()
}

#[test]
fn shapes_follow_erlang_conventions() {
    assert_eq!(term(&to_vec(&Shape::Empty).unwrap()), atom("empty"));
    assert_eq!(
        term(&to_vec(&Shape::Circle(1.5)).unwrap()),
        WireTerm::Tuple(vec![atom("circle"), WireTerm::Float(1.5)])
    );
    assert_eq!(
        term(&to_vec(&Shape::Rect(1, 2)).unwrap()),
        WireTerm::Tuple(vec![atom("rect"), WireTerm::Int(1), WireTerm::Int(2)])
    );
    assert_eq!(
        term(
            &to_vec(&Shape::Labeled {
                name: "x".into(),
                sides: vec![3]
            })
            .unwrap()
        ),
        WireTerm::Tuple(vec![
            atom("labeled"),
            WireTerm::Map(vec![
                (atom("name"), WireTerm::Binary("x".into())),
                (atom("sides"), WireTerm::List(vec![WireTerm::Int(3)])),
            ])
        ])
    );
    let ok: Result<(), String> = Ok(());
    assert_eq!(term(&to_vec(&ok).unwrap()), atom("ok"));
    let err: Result<(), String> = Err("no".into());
    assert_eq!(
        term(&to_vec(&err).unwrap()),
        WireTerm::Tuple(vec![atom("error"), WireTerm::Binary("no".into())])
    );
    assert_eq!(term(&to_vec(&None::<u8>).unwrap()), atom("undefined"));
    assert_eq!(
        term(&to_vec_with(&None::<u8>, &Options::elixir()).unwrap()),
        atom("nil")
    );
    assert_eq!(term(&to_vec(&Some(5u8)).unwrap()), WireTerm::Int(5));
    assert_eq!(term(&to_vec(&true).unwrap()), atom("true"));
    assert_eq!(term(&to_vec(&()).unwrap()), WireTerm::Tuple(vec![]));
    assert_eq!(
        term(&to_vec(&Record(Point { x: 1, y: 2 })).unwrap()),
        WireTerm::Tuple(vec![atom("point"), WireTerm::Int(1), WireTerm::Int(2)])
    );
    assert_eq!(
        term(&to_vec(&Charlist::from("hé")).unwrap()),
        WireTerm::ByteList(vec![b'h', 0xe9].into())
    );
    assert_eq!(
        term(&to_vec(&Charlist::from("h€")).unwrap()),
        WireTerm::List(vec![WireTerm::Int(104), WireTerm::Int(0x20ac)])
    );
    assert_eq!(
        term(&to_vec(&Vec::<u8>::new()).unwrap()),
        WireTerm::List(vec![])
    );
    assert_eq!(
        term(&to_vec(&u64::MAX).unwrap()),
        WireTerm::BigInt(u64::MAX.into())
    );
    assert_eq!(
        term(&to_vec(&i128::MIN).unwrap()),
        WireTerm::BigInt(i128::MIN.into())
    );
}

#[test]
fn identifiers_and_dynamic_terms_travel_inside_typed_messages() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Call {
        from: ErlPid,
        tag: ErlRef,
        module: Atom,
        args: Vec<WireTerm>,
    }
    let node = Atom::new("erl@host").unwrap();
    let call = Call {
        from: ErlPid {
            node: node.clone(),
            id: 90,
            serial: 1,
            creation: 42,
        },
        tag: ErlRef::new(node.clone(), 42, &[1, 2, 3, 4, 5]).unwrap(),
        module: Atom::new("lists").unwrap(),
        args: vec![WireTerm::Int(1), WireTerm::atom("x").unwrap()],
    };
    let bytes = to_vec(&call).unwrap();
    assert_eq!(from_slice::<Call>(&bytes).unwrap(), call);
    let WireTerm::Map(pairs) = term(&bytes) else {
        panic!("not a map")
    };
    assert!(matches!(&pairs[0].1, WireTerm::Pid(p) if p == &call.from));
    assert_eq!(pairs[2].1, atom("lists"));
}

#[test]
fn decoding_accepts_erlang_variants_of_the_same_value() {
    // A charlist or an atom for a String; an integer for a float; binary keys for a
    // struct; unknown keys skipped; improper tails continuing a list.
    let s: String = from_slice(&[131, 107, 0, 2, b'h', b'i']).unwrap();
    assert_eq!(s, "hi");
    let s: String = from_slice(&[131, 119, 2, b'h', b'i']).unwrap();
    assert_eq!(s, "hi");
    let f: f64 = from_slice(&[131, 97, 3]).unwrap();
    assert_eq!(f, 3.0);
    let elixir_map = WireTerm::Map(vec![
        (WireTerm::Binary("x".into()), WireTerm::Int(1)),
        (atom("__struct__"), atom("Elixir.Point")),
        (atom("y"), WireTerm::Int(2)),
    ]);
    let p: Point = from_slice(&elixir_map.encode().unwrap()).unwrap();
    assert_eq!(p, Point { x: 1, y: 2 });
    let split = WireTerm::ImproperList(
        vec![WireTerm::Int(1)],
        Box::new(WireTerm::ByteList(vec![2, 3].into())),
    );
    let v: Vec<u8> = from_slice(&split.encode().unwrap()).unwrap();
    assert_eq!(v, [1, 2, 3]);
}

#[test]
fn wrong_shapes_are_errors_not_panics() {
    use mote_dist::etf::{DecodeError, EncodeError};
    let bytes = to_vec(&Shape::Rect(1, 2)).unwrap();
    assert!(matches!(
        from_slice::<Point>(&bytes),
        Err(DecodeError::Shape(_))
    ));
    assert!(matches!(
        from_slice::<Record<Point>>(&to_vec(&Point { x: 1, y: 2 }).unwrap()),
        Err(DecodeError::Shape(_))
    ));
    let improper = WireTerm::ImproperList(vec![WireTerm::Int(1)], Box::new(atom("x")));
    assert!(matches!(
        from_slice::<Vec<u8>>(&improper.encode().unwrap()),
        Err(DecodeError::Shape(_))
    ));
    assert!(matches!(
        from_slice::<u8>(&to_vec(&300u32).unwrap()),
        Err(DecodeError::Shape(_))
    ));
    assert!(matches!(
        from_slice::<Shape>(&to_vec(&atom("hexagon")).unwrap()),
        Err(DecodeError::Shape(_))
    ));
    assert_eq!(to_vec(&f64::INFINITY), Err(EncodeError::NonFiniteFloat));
    #[derive(Serialize)]
    struct Bad {
        #[serde(
            rename = "this_name_is_far_too_long_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        )]
        field: u8,
    }
    assert!(matches!(
        to_vec(&Bad { field: 1 }),
        Err(EncodeError::AtomTooLong { .. })
    ));
}
