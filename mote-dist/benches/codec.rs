//! Term codec figures behind the choice of codec (docs/distribution.md, "Why our own
//! codec"): encode and decode of a small message `{tag, 42, <<"hello">>}`, a 64 KiB
//! binary and a 100,000-element list, with mote-dist (dynamic `WireTerm` and typed serde),
//! `eetf` and `erltf`. Allocations per operation come from divan's allocation profiler.
//!
//! Run: `cargo bench -p mote-dist --bench codec`

use divan::{black_box, AllocProfiler, Bencher};
use mote_dist::etf::{Atom, WireTerm};
use serde::{Deserialize, Serialize};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

/// The typed form of `{tag, 42, <<"hello">>}`.
#[derive(Serialize, Deserialize)]
enum Small<'a> {
    Tag(i32, #[serde(borrow, with = "serde_bytes")] &'a [u8]),
}

const BINARY_LEN: usize = 64 * 1024;
const LIST_LEN: i64 = 100_000;

fn small_wire() -> WireTerm {
    WireTerm::Tuple(vec![
        WireTerm::Atom(Atom::new("tag").unwrap()),
        WireTerm::Int(42),
        WireTerm::Binary("hello".into()),
    ])
}

fn small_eetf() -> eetf::Term {
    eetf::Term::from(eetf::Tuple::from(vec![
        eetf::Term::from(eetf::Atom::from("tag")),
        eetf::Term::from(eetf::FixInteger::from(42)),
        eetf::Term::from(eetf::Binary::from(b"hello".to_vec())),
    ]))
}

fn small_erltf() -> erltf::OwnedTerm {
    erltf::OwnedTerm::Tuple(vec![
        erltf::OwnedTerm::Atom(erltf::Atom::new("tag")),
        erltf::OwnedTerm::Integer(42),
        erltf::OwnedTerm::Binary(b"hello".to_vec()),
    ])
}

fn list_values() -> Vec<i64> {
    (0..LIST_LEN).collect()
}

fn encoded_small() -> Vec<u8> {
    small_wire().encode().unwrap()
}

fn encoded_binary() -> Vec<u8> {
    WireTerm::Binary(vec![7u8; BINARY_LEN].into())
        .encode()
        .unwrap()
}

fn encoded_list() -> Vec<u8> {
    mote_dist::serde::to_vec(&list_values()).unwrap()
}

mod encode_small {
    use super::*;

    #[divan::bench]
    fn mote_serde() -> Vec<u8> {
        mote_dist::serde::to_vec(black_box(&Small::Tag(42, b"hello"))).unwrap()
    }

    #[divan::bench]
    fn mote_wire_term(b: Bencher) {
        let t = small_wire();
        b.bench_local(|| black_box(&t).encode().unwrap());
    }

    #[divan::bench]
    fn eetf(b: Bencher) {
        let t = small_eetf();
        b.bench_local(|| {
            let mut out = Vec::new();
            black_box(&t).encode(&mut out).unwrap();
            out
        });
    }

    #[divan::bench]
    fn erltf(b: Bencher) {
        let t = small_erltf();
        b.bench_local(|| erltf::encode(black_box(&t)).unwrap());
    }
}

mod decode_small {
    use super::*;

    #[divan::bench]
    fn mote_serde(b: Bencher) {
        let bytes = encoded_small();
        b.bench_local(|| {
            let Small::Tag(n, s) =
                mote_dist::serde::from_slice::<Small>(black_box(&bytes)).unwrap();
            n as usize + s.len()
        });
    }

    #[divan::bench]
    fn mote_wire_term(b: Bencher) {
        let bytes = encoded_small();
        b.bench_local(|| WireTerm::decode(black_box(&bytes)).unwrap());
    }

    #[divan::bench]
    fn eetf(b: Bencher) {
        let bytes = encoded_small();
        b.bench_local(|| eetf::Term::decode(black_box(&bytes[..])).unwrap());
    }

    #[divan::bench]
    fn erltf(b: Bencher) {
        let bytes = encoded_small();
        b.bench_local(|| erltf::decode(black_box(&bytes)).unwrap());
    }

    #[divan::bench]
    fn erltf_borrowed(b: Bencher) {
        let bytes = encoded_small();
        b.bench_local(|| {
            let t = erltf::decode_borrowed(black_box(&bytes)).unwrap();
            black_box(&t);
        });
    }
}

mod encode_binary_64k {
    use super::*;

    #[divan::bench]
    fn mote_serde(b: Bencher) {
        let v = serde_bytes::ByteBuf::from(vec![7u8; BINARY_LEN]);
        b.bench_local(|| mote_dist::serde::to_vec(black_box(&v)).unwrap());
    }

    #[divan::bench]
    fn mote_wire_term(b: Bencher) {
        let t = WireTerm::Binary(vec![7u8; BINARY_LEN].into());
        b.bench_local(|| black_box(&t).encode().unwrap());
    }

    #[divan::bench]
    fn eetf(b: Bencher) {
        let t = eetf::Term::from(eetf::Binary::from(vec![7u8; BINARY_LEN]));
        b.bench_local(|| {
            let mut out = Vec::new();
            black_box(&t).encode(&mut out).unwrap();
            out
        });
    }

    #[divan::bench]
    fn erltf(b: Bencher) {
        let t = erltf::OwnedTerm::Binary(vec![7u8; BINARY_LEN]);
        b.bench_local(|| erltf::encode(black_box(&t)).unwrap());
    }
}

mod decode_binary_64k {
    use super::*;

    #[divan::bench]
    fn mote_serde_borrowed(b: Bencher) {
        let bytes = encoded_binary();
        b.bench_local(|| {
            let v: &[u8] =
                mote_dist::serde::from_slice::<&serde_bytes::Bytes>(black_box(&bytes)).unwrap();
            v.len()
        });
    }

    #[divan::bench]
    fn mote_serde_owned(b: Bencher) {
        let bytes = encoded_binary();
        b.bench_local(|| {
            mote_dist::serde::from_slice::<serde_bytes::ByteBuf>(black_box(&bytes)).unwrap()
        });
    }

    #[divan::bench]
    fn mote_wire_term_shared(b: Bencher) {
        let bytes = bytes::Bytes::from(encoded_binary());
        let limits = mote_dist::etf::DecodeLimits::default();
        b.bench_local(|| WireTerm::decode_bytes_with(black_box(&bytes), &limits).unwrap());
    }

    #[divan::bench]
    fn mote_wire_term(b: Bencher) {
        let bytes = encoded_binary();
        b.bench_local(|| WireTerm::decode(black_box(&bytes)).unwrap());
    }

    #[divan::bench]
    fn eetf(b: Bencher) {
        let bytes = encoded_binary();
        b.bench_local(|| eetf::Term::decode(black_box(&bytes[..])).unwrap());
    }

    #[divan::bench]
    fn erltf(b: Bencher) {
        let bytes = encoded_binary();
        b.bench_local(|| erltf::decode(black_box(&bytes)).unwrap());
    }

    #[divan::bench]
    fn erltf_borrowed(b: Bencher) {
        let bytes = encoded_binary();
        b.bench_local(|| {
            let t = erltf::decode_borrowed(black_box(&bytes)).unwrap();
            black_box(&t);
        });
    }
}

mod encode_list_100k {
    use super::*;

    #[divan::bench]
    fn mote_serde(b: Bencher) {
        let v = list_values();
        b.bench_local(|| mote_dist::serde::to_vec(black_box(&v)).unwrap());
    }

    #[divan::bench]
    fn mote_wire_term(b: Bencher) {
        let t = WireTerm::List(list_values().into_iter().map(WireTerm::Int).collect());
        b.bench_local(|| black_box(&t).encode().unwrap());
    }

    #[divan::bench]
    fn eetf(b: Bencher) {
        let t = eetf::Term::from(eetf::List::from(
            list_values()
                .into_iter()
                .map(|i| eetf::Term::from(eetf::FixInteger::from(i as i32)))
                .collect::<Vec<_>>(),
        ));
        b.bench_local(|| {
            let mut out = Vec::new();
            black_box(&t).encode(&mut out).unwrap();
            out
        });
    }

    #[divan::bench]
    fn erltf(b: Bencher) {
        let t = erltf::OwnedTerm::List(
            list_values()
                .into_iter()
                .map(erltf::OwnedTerm::Integer)
                .collect(),
        );
        b.bench_local(|| erltf::encode(black_box(&t)).unwrap());
    }
}

mod decode_list_100k {
    use super::*;

    #[divan::bench]
    fn mote_serde(b: Bencher) {
        let bytes = encoded_list();
        b.bench_local(|| mote_dist::serde::from_slice::<Vec<i64>>(black_box(&bytes)).unwrap());
    }

    #[divan::bench]
    fn mote_wire_term(b: Bencher) {
        let bytes = encoded_list();
        b.bench_local(|| WireTerm::decode(black_box(&bytes)).unwrap());
    }

    #[divan::bench]
    fn eetf(b: Bencher) {
        let bytes = encoded_list();
        b.bench_local(|| eetf::Term::decode(black_box(&bytes[..])).unwrap());
    }

    #[divan::bench]
    fn erltf(b: Bencher) {
        let bytes = encoded_list();
        b.bench_local(|| erltf::decode(black_box(&bytes)).unwrap());
    }

    #[divan::bench]
    fn erltf_borrowed(b: Bencher) {
        let bytes = encoded_list();
        b.bench_local(|| {
            let t = erltf::decode_borrowed(black_box(&bytes)).unwrap();
            black_box(&t);
        });
    }
}
