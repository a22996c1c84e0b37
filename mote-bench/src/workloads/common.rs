//! Definitions shared by every implementation of the workloads (contract, "Shared
//! definitions"): the xorshift64* generator, the prime-factor count and the `copy` workload's
//! three computations. The Go and Elixir peers implement the same algorithms, so inputs and
//! answers are identical across languages.

use rustc_hash::{FxHashMap, FxHashSet};
use std::ops::Range;

/// The seed of every random input unless a workload says otherwise.
pub const DEFAULT_SEED: u64 = 42;

/// The seed of the `copy` workload's shuffle (fresh per repetition).
pub const SHUFFLE_SEED: u64 = 7;

/// xorshift64* with a 64-bit state, exactly as the contract spells it.
#[derive(Debug, Clone)]
pub struct XorShift64Star {
    state: u64,
}

impl XorShift64Star {
    /// A generator seeded with `seed`; a zero seed would stay zero forever, so it panics.
    pub fn new(seed: u64) -> Self {
        assert!(seed != 0, "xorshift64* needs a nonzero seed");
        XorShift64Star { state: seed }
    }

    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        let mut s = self.state;
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        self.state = s;
        s.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `lo..=hi`: `lo + ((next() >> 33) mod (hi - lo + 1))`.
    pub fn uniform(&mut self, lo: u64, hi: u64) -> u64 {
        debug_assert!(lo <= hi);
        lo + (self.next_u64() >> 33) % (hi - lo + 1)
    }
}

/// `n` integers uniform in `lo..=hi` from a generator seeded with `seed`.
pub fn random_ints(n: usize, lo: u64, hi: u64, seed: u64) -> Vec<i64> {
    let mut rng = XorShift64Star::new(seed);
    // The values are at most `hi`, which the workloads keep far below i64::MAX.
    (0..n).map(|_| rng.uniform(lo, hi) as i64).collect()
}

/// The number of prime factors of `n`, with multiplicity, by the contract's trial division
/// (deliberately the naive algorithm: every language must do the same work).
///
/// ```
/// use mote_bench::workloads::common::prime_factor_count;
/// assert_eq!(prime_factor_count(360), 6); // 2 * 2 * 2 * 3 * 3 * 5
/// assert_eq!(prime_factor_count((1 << 31) + 1), 2); // 3 * 715,827,883, in 64 bits
/// ```
///
/// The divisions are the contract's, in two shapes that change no division:
///
/// - The common step, a `d` that does not divide `n`, has its own loop, where `n` does not
///   change: written as one loop with an `if`, LLVM made the step branch-free (a conditional
///   move of the quotient into `n`), so every division waited for the one before it, and the
///   same divisions took 12.7 ms for 1..=50,000 against 5.0 ms in this shape.
/// - Below 2^31 (every `workers` item) the loop runs on `u32`. On `u64`, LLVM guards each
///   division with a test that picks a 32-bit `div` when both operands fit, and that guard
///   split the step over three taken jumps (to the 32-bit `div`, back to the increment, back
///   to the top); on `u32` the step is one straight block whose only taken jump is the
///   back-edge. `workers serial` went from 9.2 to 6.7 ms (6.8 ms with an unrelated function
///   placed before this one, another layout); the `u64` loop ran in two modes from one run
///   of the same binary to the next (6.2-6.7 or 8.2-9.3 ms, in five layouts of a standalone
///   copy), this one at 6.1-6.6 ms in all of them. Its 2,619,049 divisions alone, issued
///   back to back, take 5.15 ms here: the rest is mostly the mispredicted branch at each
///   factor found and each exit. A `NonZeroU32` divisor (no zero test) ran no faster. Go's
///   compiler does not guard its divisions, but its `uint32` loop beat its `int64` one
///   (6.9 against 7.4 ms), so the Go peer runs the same `uint32` loop (docs/workloads.md).
pub fn prime_factor_count(n: u64) -> u64 {
    // `n < 2^31` keeps `d` at most 46,341 (the first `d` with `d * d > n`), so `d * d` fits
    // in 32 bits as well; the cast keeps every bit of such an `n`.
    if n < 1 << 31 {
        u64::from(trial_division_u32(n as u32))
    } else {
        trial_division_u64(n)
    }
}

/// The contract's trial division on one integer type (see [`prime_factor_count`]).
macro_rules! trial_division {
    ($name:ident, $int:ty) => {
        fn $name(mut n: $int) -> $int {
            let mut c = 0;
            let mut d = 2;
            while n > 1 {
                if d * d > n {
                    return c + 1;
                }
                while n % d != 0 {
                    d += 1;
                    if d * d > n {
                        return c + 1;
                    }
                }
                n /= d;
                c += 1;
            }
            c
        }
    };
}

trial_division!(trial_division_u32, u32);
trial_division!(trial_division_u64, u64);

/// The serial sum of `prime_factor_count(i)` for `i` in `1..=n`: the `workers` answer.
pub fn factor_count_sum(n: u64) -> u64 {
    (1..=n).map(prime_factor_count).sum()
}

/// The distinct values in order of first appearance (Elixir's `Enum.uniq`).
///
/// Both hash tables here use rustc-hash's Fx hasher, as a Rust programmer counting integers
/// would: std's default SipHash guards against hash flooding by untrusted keys, which these
/// are not, and costs several times as much per integer key (Go's and the BEAM's maps use
/// fast unkeyed hashes for integers, so SipHash made the Rust programs the slow ones).
pub fn uniq(data: &[i64]) -> Vec<i64> {
    let mut seen = FxHashSet::default();
    data.iter().copied().filter(|v| seen.insert(*v)).collect()
}

/// Value -> number of occurrences (Elixir's `Enum.frequencies`).
pub fn frequencies(data: &[i64]) -> FxHashMap<i64, u64> {
    let mut freqs = FxHashMap::default();
    for v in data {
        *freqs.entry(*v).or_insert(0) += 1;
    }
    freqs
}

/// A shuffled copy: Fisher-Yates from the last index down, `j = uniform(0..=i)` from a fresh
/// xorshift64* seeded with 7 (the contract's shuffle, identical in every language).
pub fn shuffle(data: &[i64]) -> Vec<i64> {
    let mut out = data.to_vec();
    let mut rng = XorShift64Star::new(SHUFFLE_SEED);
    for i in (1..out.len()).rev() {
        let j = rng.uniform(0, i as u64) as usize;
        out.swap(i, j);
    }
    out
}

/// The items `lo..=hi` of `workers` (one item when `lo == hi`).
pub type Items = (u64, u64);

/// The sum of the prime-factor counts of `lo..=hi`.
pub fn count_items((lo, hi): Items) -> u64 {
    (lo..=hi).map(prime_factor_count).sum()
}

/// 1..=n cut into runs of `batch` items, in order (`workers`' `batch` option).
pub fn batches(n: u64, batch: u64) -> impl Iterator<Item = Items> {
    let batch = batch.max(1);
    (1..=n)
        .step_by(batch as usize)
        .map(move |lo| (lo, (lo + batch - 1).min(n)))
}

/// `0..r` split into `k` consecutive ranges in order, the first `r % k` one longer than the
/// others: the requests of `call`'s `callers` option (every caller makes r/k or r/k + 1
/// calls, together exactly r), the chunks of `copy`'s `chunks` option.
pub fn shares(r: u64, k: u64) -> impl Iterator<Item = Range<u64>> {
    let k = k.max(1);
    let (each, longer) = (r / k, r % k);
    (0..k).map(move |j| {
        let lo = j * each + j.min(longer);
        lo..lo + each + u64::from(j < longer)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_split_the_calls_evenly_and_exactly() {
        assert_eq!(shares(10, 1).collect::<Vec<_>>(), vec![0..10]);
        assert_eq!(shares(10, 3).collect::<Vec<_>>(), vec![0..4, 4..7, 7..10]);
        assert_eq!(shares(3, 3).collect::<Vec<_>>(), vec![0..1, 1..2, 2..3]);
        for (r, k) in [
            (1, 1),
            (7, 2),
            (1_000_000, 10_000),
            (200_000, 10_000),
            (99, 98),
        ] {
            let s: Vec<_> = shares(r, k).collect();
            assert_eq!(s.len() as u64, k, "r={r} k={k}");
            assert_eq!((s[0].start, s.last().unwrap().end), (0, r), "r={r} k={k}");
            assert!(s.windows(2).all(|w| w[0].end == w[1].start));
            let n: Vec<u64> = s.iter().map(|c| c.end - c.start).collect();
            assert!(n.iter().all(|&c| c == r / k || c == r / k + 1));
            assert_eq!(n.iter().filter(|&&c| c == r / k + 1).count() as u64, r % k);
            assert!(n.windows(2).all(|w| w[0] >= w[1]), "longer shares first");
        }
    }

    #[test]
    fn batches_cover_every_item_once() {
        let b: Vec<_> = batches(10, 4).collect();
        assert_eq!(b, vec![(1, 4), (5, 8), (9, 10)]);
        assert_eq!(
            batches(3, 1).collect::<Vec<_>>(),
            vec![(1, 1), (2, 2), (3, 3)]
        );
        let total: u64 = batches(1000, 7).map(count_items).sum();
        assert_eq!(total, factor_count_sum(1000));
    }

    #[test]
    fn xorshift_matches_hand_computed_first_outputs() {
        // State after one step from 42, computed by hand from the contract's formula:
        // 42 ^ (42>>12) = 42; 42 ^ (42<<25) = 1409286186; that ^ (that>>27) = 1409286186 ^ 10
        // = 1409286176.
        let mut g = XorShift64Star::new(42);
        assert_eq!(
            g.next_u64(),
            1_409_286_176u64.wrapping_mul(0x2545_F491_4F6C_DD1D)
        );
        let mut a = XorShift64Star::new(42);
        let mut b = XorShift64Star::new(42);
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn uniform_stays_in_range_and_covers_it() {
        let v = random_ints(100_000, 1, 1000, DEFAULT_SEED);
        assert!(v.iter().all(|x| (1..=1000).contains(x)));
        let distinct: std::collections::HashSet<_> = v.iter().collect();
        assert_eq!(distinct.len(), 1000);
    }

    #[test]
    fn prime_factor_counts() {
        let expect = [
            (1, 0),
            (2, 1),
            (3, 1),
            (4, 2),
            (8, 3),
            (12, 3),
            (97, 1),
            (360, 6),
        ];
        for (n, c) in expect {
            assert_eq!(prime_factor_count(n), c, "count({n})");
        }
        // 1..=10: 0+1+1+2+1+2+1+3+2+2 = 15
        assert_eq!(factor_count_sum(10), 15);
        // Against the contract's loop as written (one loop, the `if` inside).
        let contract = |mut n: u64| {
            let (mut c, mut d) = (0, 2u64);
            while n > 1 {
                if d * d > n {
                    c += 1;
                    break;
                }
                if n % d == 0 {
                    n /= d;
                    c += 1;
                } else {
                    d += 1;
                }
            }
            c
        };
        for n in 0..20_000 {
            assert_eq!(prime_factor_count(n), contract(n), "count({n})");
        }
        // Either side of the switch from the u32 loop to the u64 one.
        for n in (1u64 << 31) - 300..(1u64 << 31) + 300 {
            assert_eq!(prime_factor_count(n), contract(n), "count({n})");
        }
        // Around 2^32, where a u32 loop's `d * d` would wrap (its `d` reaches 65,536 for the
        // primes there): these stay on the u64 loop.
        for n in u64::from(u32::MAX) - 100..u64::from(u32::MAX) + 100 {
            assert_eq!(prime_factor_count(n), contract(n), "count({n})");
        }
        assert_eq!(prime_factor_count((1 << 31) - 1), 1);
        assert_eq!(prime_factor_count(1 << 31), 31);
        // Primes and prime squares beyond u32, where only the u64 loop can run.
        assert_eq!(prime_factor_count(4_294_967_311), 1);
        assert_eq!(prime_factor_count(65_537 * 65_537), 2);
    }

    #[test]
    fn uniq_keeps_first_appearance_order() {
        assert_eq!(uniq(&[3, 1, 3, 2, 1]), vec![3, 1, 2]);
    }

    #[test]
    fn frequencies_count_every_value() {
        let f = frequencies(&[3, 1, 3, 2, 3]);
        assert_eq!((f[&3], f[&1], f[&2], f.len()), (3, 1, 1, 3));
    }

    #[test]
    fn shuffle_is_a_deterministic_permutation() {
        let data: Vec<i64> = (0..100).collect();
        let a = shuffle(&data);
        assert_eq!(a, shuffle(&data));
        assert_ne!(a, data);
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, data);
    }
}
