//! Property tests of the term codec: every `WireTerm` survives encode + decode, and the
//! independent `eetf` codec accepts what we encode.

mod common;

use bytes::Bytes;
use common::canonical;
use mote_dist::etf::{Atom, DecodeLimits, ErlPid, ErlPort, ErlRef, WireTerm};
use num_bigint::BigInt;
use proptest::prelude::*;
use std::collections::HashSet;

fn atom() -> impl Strategy<Value = Atom> {
    prop_oneof![
        "[a-z][a-z0-9_@.]{0,20}",
        "\\PC{0,8}",
        Just("x".repeat(255)),
        Just("é".repeat(255)),
    ]
    .prop_map(|s| Atom::new(&s).unwrap())
}

fn leaf() -> impl Strategy<Value = WireTerm> {
    prop_oneof![
        atom().prop_map(WireTerm::Atom),
        any::<i64>().prop_map(WireTerm::Int),
        prop_oneof![
            Just(0i64),
            Just(255),
            Just(256),
            Just(-1),
            Just(i32::MAX as i64 + 1)
        ]
        .prop_map(WireTerm::Int),
        (any::<bool>(), proptest::collection::vec(any::<u8>(), 9..40)).prop_filter_map(
            "beyond i64",
            |(neg, mut digits)| {
                *digits.last_mut().unwrap() |= 1;
                let b = BigInt::from_bytes_le(
                    if neg {
                        num_bigint::Sign::Minus
                    } else {
                        num_bigint::Sign::Plus
                    },
                    &digits,
                );
                Some(WireTerm::BigInt(b))
            }
        ),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(WireTerm::Float),
        proptest::collection::vec(any::<u8>(), 0..64).prop_map(|b| WireTerm::Binary(b.into())),
        (proptest::collection::vec(any::<u8>(), 1..16), 1u8..8).prop_map(|(mut b, bits)| {
            let last = b.last_mut().unwrap();
            *last &= 0xffu8 << (8 - bits);
            WireTerm::BitBinary {
                data: b.into(),
                last_bits: bits,
            }
        }),
        proptest::collection::vec(any::<u8>(), 1..64).prop_map(|b| WireTerm::ByteList(b.into())),
        (atom(), any::<u32>(), any::<u32>(), any::<u32>()).prop_map(
            |(node, id, serial, creation)| {
                WireTerm::Pid(ErlPid {
                    node,
                    id,
                    serial,
                    creation,
                })
            }
        ),
        (atom(), any::<u64>(), any::<u32>())
            .prop_map(|(node, id, creation)| WireTerm::Port(ErlPort { node, id, creation })),
        (
            atom(),
            any::<u32>(),
            proptest::collection::vec(any::<u32>(), 1..=5)
        )
            .prop_map(|(node, creation, ids)| WireTerm::Ref(
                ErlRef::new(node, creation, &ids).unwrap()
            )),
    ]
}

/// Terms as decoding produces them (improper tails are never lists).
fn term() -> impl Strategy<Value = WireTerm> {
    leaf().prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(WireTerm::List),
            proptest::collection::vec(inner.clone(), 0..8).prop_map(WireTerm::Tuple),
            proptest::collection::vec((inner.clone(), inner.clone()), 0..6).prop_map(|pairs| {
                // Erlang maps have distinct keys.
                let mut seen = std::collections::HashSet::new();
                WireTerm::Map(
                    pairs
                        .into_iter()
                        .filter(|(k, _)| seen.insert(k.encode().unwrap()))
                        .collect(),
                )
            }),
            (
                proptest::collection::vec(inner.clone(), 1..4),
                inner.clone()
            )
                .prop_filter_map("tail is not a list", |(e, t)| match t {
                    WireTerm::List(_) | WireTerm::ByteList(_) => None,
                    t => Some(WireTerm::ImproperList(e, Box::new(t))),
                }),
        ]
    })
}

proptest! {
    #[test]
    fn encode_then_decode_is_identity(t in term()) {
        let bytes = t.encode().unwrap();
        prop_assert_eq!(&WireTerm::decode(&bytes).unwrap(), &t);
        let shared = Bytes::from(bytes.clone());
        prop_assert_eq!(&WireTerm::decode_bytes_with(&shared, &DecodeLimits::default()).unwrap(), &t);
    }

    #[test]
    fn eetf_accepts_our_encoding_and_we_accept_its(t in term()) {
        prop_assume!(!eetf_mangles(&t));
        let bytes = t.encode().unwrap();
        let theirs = eetf::Term::decode(&bytes[..]).unwrap();
        let mut again = Vec::new();
        theirs.encode(&mut again).unwrap();
        // eetf may pick other encodings and reorders map pairs: same term.
        let ours_again = WireTerm::decode(&again).unwrap();
        prop_assert_eq!(canonical(&ours_again), canonical(&t));
    }

    #[test]
    fn skipping_a_term_consumes_exactly_it(t in term()) {
        let bytes = t.encode().unwrap();
        let mut d = mote_dist::etf::Decoder::new(&bytes).unwrap();
        d.skip().unwrap();
        prop_assert!(d.is_complete());
        prop_assert_eq!(d.position(), bytes.len());
    }
}

/// Whether the term holds a list that eetf 0.12 re-encodes wrongly: it writes any list
/// of integers below 256 as a string, so `[-1]` comes back as `[255]` (its range check
/// forgets negative numbers). Found by this test.
fn eetf_mangles(t: &WireTerm) -> bool {
    match t {
        WireTerm::List(e) => {
            (e.iter()
                .all(|x| matches!(x, WireTerm::Int(i) if *i < 256 && *i >= i32::MIN as i64))
                && e.iter().any(|x| matches!(x, WireTerm::Int(i) if *i < 0)))
                || e.iter().any(eetf_mangles)
        }
        WireTerm::Tuple(e) => e.iter().any(eetf_mangles),
        WireTerm::ImproperList(e, tail) => e.iter().any(eetf_mangles) || eetf_mangles(tail),
        WireTerm::Map(pairs) => {
            // eetf's map holds keys by its own equality, where 0.0 and -0.0 are one key:
            // of two keys that differ only there, one pair is lost.
            let mut folded = HashSet::new();
            pairs
                .iter()
                .any(|(k, v)| eetf_mangles(k) || eetf_mangles(v))
                || !pairs
                    .iter()
                    .all(|(k, _)| folded.insert(signless_zeros(k).encode().unwrap()))
        }
        _ => false,
    }
}

/// `t` with every float -0.0 in it made 0.0.
fn signless_zeros(t: &WireTerm) -> WireTerm {
    let all = |e: &[WireTerm]| e.iter().map(signless_zeros).collect::<Vec<_>>();
    match t {
        WireTerm::Float(f) if *f == 0.0 => WireTerm::Float(0.0),
        WireTerm::List(e) => WireTerm::List(all(e)),
        WireTerm::Tuple(e) => WireTerm::Tuple(all(e)),
        WireTerm::ImproperList(e, tail) => {
            WireTerm::ImproperList(all(e), Box::new(signless_zeros(tail)))
        }
        WireTerm::Map(pairs) => WireTerm::Map(
            pairs
                .iter()
                .map(|(k, v)| (signless_zeros(k), signless_zeros(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[test]
fn compressed_terms_are_inflated_and_bounded() {
    // term_to_binary(lists:seq(1, 300), [compressed]) from erl 25
    let t = WireTerm::List((1..=300).map(WireTerm::Int).collect());
    let plain = t.encode().unwrap();
    let mut z = flate_zlib(&plain[1..]);
    let mut compressed = vec![131, 80];
    compressed.extend_from_slice(&((plain.len() - 1) as u32).to_be_bytes());
    compressed.append(&mut z);
    assert_eq!(WireTerm::decode(&compressed).unwrap(), t);

    let tight = DecodeLimits {
        max_size: 100,
        ..DecodeLimits::default()
    };
    assert!(matches!(
        WireTerm::decode_with(&compressed, &tight),
        Err(mote_dist::etf::DecodeError::TooLarge { .. })
    ));
    // A lying size is an error, not a truncated or padded term.
    let mut lying = compressed.clone();
    lying[5] = lying[5].wrapping_add(1);
    assert!(matches!(
        WireTerm::decode(&lying),
        Err(mote_dist::etf::DecodeError::BadCompression { .. })
    ));
}

fn flate_zlib(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[test]
fn limits_refuse_deep_and_oversized_terms() {
    use mote_dist::etf::DecodeError;
    // {1, {1, {1, ...}}}: each tuple is its parent's last element, and still nested.
    let mut deep = vec![131];
    for _ in 0..300 {
        deep.extend_from_slice(&[104, 2, 97, 1]);
    }
    deep.push(106);
    assert_eq!(
        WireTerm::decode(&deep),
        Err(DecodeError::TooDeep { limit: 256 })
    );
    let roomy = DecodeLimits {
        max_depth: 300,
        ..DecodeLimits::default()
    };
    assert!(WireTerm::decode_with(&deep, &roomy).is_ok());
    let mut lists = vec![131];
    for _ in 0..300 {
        lists.extend_from_slice(&[108, 0, 0, 0, 1]);
    }
    lists.extend(std::iter::repeat_n(106, 301));
    assert_eq!(
        WireTerm::decode(&lists),
        Err(DecodeError::TooDeep { limit: 256 })
    );

    // A list claiming 4 billion elements in a 10-byte input.
    let claim = [131, 108, 255, 255, 255, 255, 97, 1, 106, 106];
    assert!(matches!(
        WireTerm::decode(&claim),
        Err(DecodeError::LengthBeyondInput { .. })
    ));
    // Nested claims add up: each may fit the rest, both together may not.
    let nested = [131, 104, 3, 104, 3, 97, 1, 97, 1];
    assert!(matches!(
        WireTerm::decode(&nested),
        Err(DecodeError::LengthBeyondInput { .. })
    ));

    let long_atom = {
        let mut v = vec![131, 118, 1, 0];
        v.extend(std::iter::repeat_n(b'a', 256));
        v
    };
    assert!(matches!(
        WireTerm::decode(&long_atom),
        Err(DecodeError::AtomTooLong { chars: 256, .. })
    ));
    // 255 two-byte characters are one atom of 510 bytes: allowed.
    let wide = {
        let s = "é".repeat(255);
        let mut v = vec![131, 118, 1, 254];
        v.extend_from_slice(s.as_bytes());
        v
    };
    assert_eq!(
        WireTerm::decode(&wide).unwrap(),
        WireTerm::atom(&"é".repeat(255)).unwrap()
    );

    let tiny = DecodeLimits {
        max_size: 4,
        ..DecodeLimits::default()
    };
    assert!(matches!(
        WireTerm::decode_with(&[131, 109, 0, 0, 0, 0], &tiny),
        Err(DecodeError::TooLarge { .. })
    ));
    assert!(matches!(
        WireTerm::decode(&[131, 97, 1, 0]),
        Err(DecodeError::TrailingBytes { count: 1 })
    ));
    assert!(matches!(
        WireTerm::decode(&[130, 97, 1]),
        Err(DecodeError::BadVersion { found: 130 })
    ));
    assert!(matches!(
        WireTerm::decode(&[131, 200]),
        Err(DecodeError::UnknownTag { tag: 200, .. })
    ));
    assert!(matches!(
        WireTerm::decode(&[131, 121, 0]),
        Err(DecodeError::Unsupported { tag: 121, .. })
    ));
    assert!(matches!(
        WireTerm::decode(&[131, 82, 0]),
        Err(DecodeError::Unsupported { tag: 82, .. })
    ));
}

#[test]
fn legacy_encodings_decode() {
    // Latin-1 atoms (ATOM_EXT, SMALL_ATOM_EXT), FLOAT_EXT, PID_EXT, NEW_PORT_EXT,
    // NEW_REFERENCE_EXT, as old nodes and old term_to_binary output carry them.
    assert_eq!(
        WireTerm::decode(&[131, 100, 0, 2, b'o', b'k']).unwrap(),
        WireTerm::atom("ok").unwrap()
    );
    assert_eq!(
        WireTerm::decode(&[131, 115, 2, 0xe9, b't']).unwrap(),
        WireTerm::atom("ét").unwrap()
    );
    let mut float = vec![131, 99];
    let mut text = format!("{:.20e}", 1.5f64).into_bytes();
    text.resize(31, 0);
    float.extend(text);
    assert_eq!(WireTerm::decode(&float).unwrap(), WireTerm::Float(1.5));
    let node = [100, 0, 3, b'a', b'@', b'b'];
    let mut pid = vec![131, 103];
    pid.extend_from_slice(&node);
    pid.extend_from_slice(&[0, 0, 0, 5, 0, 0, 0, 1, 2]);
    let a_b = Atom::new("a@b").unwrap();
    assert_eq!(
        WireTerm::decode(&pid).unwrap(),
        WireTerm::Pid(ErlPid {
            node: a_b.clone(),
            id: 5,
            serial: 1,
            creation: 2
        })
    );
    let mut port = vec![131, 89];
    port.extend_from_slice(&node);
    port.extend_from_slice(&[0, 0, 0, 9, 0, 0, 0, 3]);
    assert_eq!(
        WireTerm::decode(&port).unwrap(),
        WireTerm::Port(ErlPort {
            node: a_b.clone(),
            id: 9,
            creation: 3
        })
    );
    let mut r = vec![131, 114, 0, 2];
    r.extend_from_slice(&node);
    r.extend_from_slice(&[1, 0, 0, 0, 7, 0, 0, 0, 8]);
    assert_eq!(
        WireTerm::decode(&r).unwrap(),
        WireTerm::Ref(ErlRef::new(a_b, 1, &[7, 8]).unwrap())
    );
    // A fun stays opaque and is written back unchanged.
    let export = [131, 113, 119, 1, b'm', 119, 1, b'f', 97, 2];
    let t = WireTerm::decode(&export).unwrap();
    assert!(matches!(&t, WireTerm::Fun(raw) if raw[..] == export[1..]));
    assert_eq!(t.encode().unwrap(), export);
}

/// Terms nested to the depth limit decode within the 2 MiB stack of a tokio worker
/// thread, through both the dynamic and the serde decoders, even unoptimized (an
/// optimized build needs less than 1 MiB).
#[test]
fn terms_at_the_depth_limit_fit_a_small_stack() {
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    enum Nested {
        Leaf,
        Node(i32, Box<Nested>),
    }
    let limit = DecodeLimits::default().max_depth;
    // {node, 1, {node, 1, ... leaf}}: every tuple is the last element of its parent.
    let mut nested = vec![131];
    let mut lists = vec![131];
    for _ in 0..limit - 1 {
        nested.extend_from_slice(&[104, 3, 119, 4, b'n', b'o', b'd', b'e', 97, 1]);
        lists.extend_from_slice(&[108, 0, 0, 0, 1]);
    }
    nested.extend_from_slice(&[119, 4, b'l', b'e', b'a', b'f']);
    lists.push(106);
    lists.extend(std::iter::repeat_n(106, limit - 1));
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            assert!(WireTerm::decode(&nested).is_ok());
            assert!(WireTerm::decode(&lists).is_ok());
            assert!(mote_dist::serde::from_slice::<Nested>(&nested).is_ok());
            assert!(mote_dist::serde::from_slice::<WireTerm>(&lists).is_ok());
        })
        .unwrap()
        .join()
        .unwrap();
}
