//! Mutation fuzzing of the decoders: valid encodings with bytes flipped, inserted, removed
//! or cut off must decode or fail with an error; never panic, never allocate beyond a small
//! multiple of the input.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use mote_dist::etf::{Atom, DecodeLimits, Decoder, ErlPid, WireTerm};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

/// Counts the bytes this thread holds allocated, and the peak, so a test can bound what a
/// decode allocates (tests run on several threads at once).
struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; the bookkeeping touches only thread-locals
// with const initializers (no allocation, no destructor).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = LIVE.try_with(|l| {
            let now = l.get() + layout.size();
            l.set(now);
            let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
        });
        // SAFETY: same layout contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let _ = LIVE.try_with(|l| l.set(l.get().saturating_sub(layout.size())));
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Runs `f` and returns the peak bytes it allocated on this thread above what was live.
fn peak_during(f: impl FnOnce()) -> usize {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    f();
    PEAK.with(Cell::get) - base
}

#[derive(Serialize, Deserialize, Debug)]
enum Msg {
    Call {
        from: ErlPid,
        request: Vec<(String, i64)>,
    },
    Cast(Vec<Option<f64>>),
    Stop,
}

fn seeds() -> Vec<Vec<u8>> {
    let node = Atom::new("node@host").unwrap();
    let pid = ErlPid {
        node: node.clone(),
        id: 1,
        serial: 2,
        creation: 3,
    };
    let big = WireTerm::Tuple(vec![
        WireTerm::atom("tag").unwrap(),
        WireTerm::List((0..40).map(WireTerm::Int).collect()),
        WireTerm::Map(vec![(
            WireTerm::Int(1),
            WireTerm::Binary(vec![1; 30].into()),
        )]),
        WireTerm::Pid(pid.clone()),
        WireTerm::BigInt(num_bigint::BigInt::from(u128::MAX) * 7),
        WireTerm::Float(2.5),
        WireTerm::ImproperList(
            vec![WireTerm::Int(1)],
            Box::new(WireTerm::atom("t").unwrap()),
        ),
        WireTerm::ByteList(b"hello".to_vec().into()),
        WireTerm::BitBinary {
            data: vec![0xf0].into(),
            last_bits: 4,
        },
    ]);
    vec![
        big.encode().unwrap(),
        mote_dist::serde::to_vec(&Msg::Call {
            from: pid,
            request: vec![("a".into(), 1 << 40)],
        })
        .unwrap(),
        mote_dist::serde::to_vec(&Msg::Cast(vec![Some(1.0), None])).unwrap(),
        mote_dist::serde::to_vec(&Msg::Stop).unwrap(),
    ]
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Set(usize, u8),
    Insert(usize, u8),
    Remove(usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u8..).prop_map(|(i, x)| Mutation::Flip(i, x)),
        (
            any::<usize>(),
            prop_oneof![Just(0u8), Just(255), Just(0x7f), any::<u8>()]
        )
            .prop_map(|(i, x)| Mutation::Set(i, x)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, x)| Mutation::Insert(i, x)),
        any::<usize>().prop_map(Mutation::Remove),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let n = bytes.len();
    match *m {
        Mutation::Flip(i, x) => bytes[i % n] ^= x,
        Mutation::Set(i, x) => bytes[i % n] = x,
        Mutation::Insert(i, x) => bytes.insert(i % (n + 1), x),
        Mutation::Remove(i) => {
            bytes.remove(i % n);
        }
        Mutation::Truncate(i) => bytes.truncate(i % n),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_terms_decode_or_error(
        seed in 0usize..4,
        mutations in proptest::collection::vec(mutation(), 1..4),
    ) {
        let mut bytes = seeds().swap_remove(seed);
        for m in &mutations {
            if bytes.is_empty() {
                break;
            }
            apply(&mut bytes, m);
        }
        let limits = DecodeLimits::default();
        let peak = peak_during(|| {
            let _ = WireTerm::decode_with(&bytes, &limits);
            let _ = mote_dist::serde::from_slice::<Msg>(&bytes);
            let _ = mote_dist::serde::from_slice::<WireTerm>(&bytes);
            if let Ok(mut d) = Decoder::new(&bytes) {
                let _ = d.skip();
            }
        });
        // Every pending element is backed by at least one input byte, so a decode holds at
        // most a small multiple of the input (a WireTerm is 56 bytes), never what a
        // length field claims.
        // A compressed term (tag 80) also pays the inflater's fixed state (its window and
        // read buffer, about 75 KiB), whatever the size field claims.
        let inflater = if bytes.get(1) == Some(&80) { 128 * 1024 } else { 0 };
        prop_assert!(
            peak <= 128 * bytes.len() + 4096 + inflater,
            "peak {} for {} bytes", peak, bytes.len()
        );
    }
}

#[test]
fn a_four_gigabyte_claim_allocates_nothing_big() {
    for claim in [
        vec![131, 108, 255, 255, 255, 255, 106],
        vec![131, 105, 255, 255, 255, 255, 106],
        vec![131, 116, 255, 255, 255, 255, 106],
        vec![131, 109, 255, 255, 255, 255, 0],
        vec![131, 111, 255, 255, 255, 255, 0, 1],
        vec![131, 80, 255, 255, 255, 255, 120, 156],
    ] {
        let peak = peak_during(|| {
            assert!(WireTerm::decode(&claim).is_err());
            assert!(mote_dist::serde::from_bytes::<Vec<u8>>(&claim).is_err());
        });
        assert!(peak < 4096, "{claim:?} allocated {peak} bytes");
    }
}
