package motepeer;

import java.util.HashMap;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * copy: R times, uniq (order-preserving dedup), frequencies and a Fisher-Yates shuffle of N
 * ints built before the clock. The JVM shares the input array between actors by reference:
 * nothing is copied (the shuffle copies into its own output).
 */
final class Copy {
    private Copy() {}

    static long[] uniq(long[] xs) {
        return LongStream.of(xs).distinct().toArray(); // sequential: keeps first occurrences in order
    }

    static Map<Long, Integer> frequencies(long[] xs) {
        Map<Long, Integer> f = new HashMap<>();
        for (long x : xs) {
            f.merge(x, 1, Integer::sum);
        }
        return f;
    }

    /** A shuffled copy: for i from n-1 down to 1, swap i with j = uniform(0..=i), seed 7. */
    static long[] shuffle(long[] xs) {
        long[] out = xs.clone();
        Numbers.Rng r = new Numbers.Rng(7);
        for (int i = out.length - 1; i > 0; i--) {
            int j = (int) r.uniform(0, i);
            long t = out[i];
            out[i] = out[j];
            out[j] = t;
        }
        return out;
    }

    /** One rep's results as main checks them. */
    record Facts(int uniq, long freqTotal, int shufLen, long shufSum) {}

    /** What the three actors of a par rep send main. */
    sealed interface Part permits Uniq, Freq, Shuffled {}

    record Uniq(long[] values) implements Part {}

    record Freq(Map<Long, Integer> counts) implements Part {}

    record Shuffled(long[] values) implements Part {}

    static Facts facts(long[] u, Map<Long, Integer> f, long[] s) {
        long total = 0;
        for (int c : f.values()) {
            total += c;
        }
        return new Facts(u.length, total, s.length, Numbers.sum(s, 0, s.length));
    }

    /** An actor that computes {@code part} as it starts, tells main and stops. */
    private static Behavior<Void> task(ActorRef<Part> main, java.util.function.Supplier<Part> part) {
        return Behaviors.setup(ctx -> {
            main.tell(part.get());
            return Behaviors.stopped();
        });
    }

    static Outcome run(Runner runner, String variant, Params p) {
        int n = p.getInt("n");
        int r = p.getInt("r");
        long[] xs = Numbers.randomInts(n);
        long want = Numbers.sum(xs, 0, n);
        Facts[] facts = new Facts[r];
        Outcome out;
        if (variant.equals("seq")) {
            long start = System.nanoTime();
            for (int rep = 0; rep < r; rep++) {
                facts[rep] = facts(uniq(xs), frequencies(xs), shuffle(xs));
            }
            out = Outcome.of(System.nanoTime() - start, null);
        } else {
            out = runner.run(done -> Behaviors.<Part>setup(ctx -> {
                long start = System.nanoTime();
                if (r == 0) {
                    done.complete(Outcome.of(System.nanoTime() - start, null));
                    return Behaviors.stopped();
                }
                Runnable startRep = () -> {
                    ActorRef<Part> self = ctx.getSelf();
                    ctx.spawnAnonymous(task(self, () -> new Uniq(uniq(xs))));
                    ctx.spawnAnonymous(task(self, () -> new Freq(frequencies(xs))));
                    ctx.spawnAnonymous(task(self, () -> new Shuffled(shuffle(xs))));
                };
                startRep.run();
                Part[] parts = new Part[3];
                int[] state = {0, 0}; // rep, parts in
                return Behaviors.receiveMessage(part -> {
                    parts[part instanceof Uniq ? 0 : part instanceof Freq ? 1 : 2] = part;
                    if (++state[1] < 3) {
                        return Behaviors.same();
                    }
                    facts[state[0]] = facts(((Uniq) parts[0]).values(), ((Freq) parts[1]).counts(),
                            ((Shuffled) parts[2]).values());
                    state[1] = 0;
                    if (++state[0] < r) {
                        startRep.run();
                        return Behaviors.same();
                    }
                    done.complete(Outcome.of(System.nanoTime() - start, null));
                    return Behaviors.stopped();
                });
            }));
        }
        for (int rep = 0; rep < r; rep++) {
            Facts f = facts[rep];
            String bad = null;
            if (n >= 100000 && f.uniq() != 1000) {
                bad = "uniq count " + f.uniq() + ", want 1000";
            } else if (f.freqTotal() != n) {
                bad = "frequencies sum to " + f.freqTotal() + ", want " + n;
            } else if (f.shufLen() != n || f.shufSum() != want) {
                bad = "shuffle has length " + f.shufLen() + " sum " + f.shufSum() + ", want " + n + " and " + want;
            }
            if (bad != null) {
                return Outcome.of(out.wallNanos(), "copy " + variant + ": rep " + rep + " " + bad);
            }
        }
        return out;
    }
}
