package motepeer;

/** The contract's shared definitions: xorshift64*, the random input, the prime factor count. */
final class Numbers {
    private Numbers() {}

    /** xorshift64* with a 64-bit state; Java's long arithmetic is already mod 2^64. */
    static final class Rng {
        private long state;

        Rng(long seed) {
            state = seed;
        }

        long next() {
            state ^= state >>> 12;
            state ^= state << 25;
            state ^= state >>> 27;
            return state * 0x2545F4914F6CDD1DL;
        }

        /** A value in lo..=hi. */
        long uniform(long lo, long hi) {
            return lo + (next() >>> 33) % (hi - lo + 1);
        }
    }

    /** The input of parsum and copy: n values uniform in 1..=1000, seed 42. */
    static long[] randomInts(int n) {
        Rng r = new Rng(42);
        long[] xs = new long[n];
        for (int i = 0; i < n; i++) {
            xs[i] = r.uniform(1, 1000);
        }
        return xs;
    }

    /** The sum of xs[lo..hi). */
    static long sum(long[] xs, int lo, int hi) {
        long s = 0;
        for (int i = lo; i < hi; i++) {
            s += xs[i];
        }
        return s;
    }

    /** The prime factor count of n, with multiplicity. */
    static long countFactors(long n) {
        long c = 0;
        long d = 2;
        while (n > 1) {
            if (d * d > n) {
                c++;
                break;
            }
            if (n % d == 0) {
                n /= d;
                c++;
            } else {
                d++;
            }
        }
        return c;
    }
}
