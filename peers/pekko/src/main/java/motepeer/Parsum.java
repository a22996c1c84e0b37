package motepeer;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * parsum: sum R ints (uniform 1..=1000, seed 42) in chunks of 100, REPS times. A chunk is an
 * index range into the one shared array; nothing is copied.
 */
final class Parsum {
    private Parsum() {}

    private static final int CHUNK = 100;

    enum Go { GO }

    static Outcome run(Runner runner, String variant, Params p) {
        long[] xs = Numbers.randomInts(p.getInt("r"));
        int reps = p.getInt("reps");
        long want = Numbers.sum(xs, 0, xs.length);
        List<int[]> chunks = new ArrayList<>();
        for (int lo = 0; lo < xs.length; lo += CHUNK) {
            chunks.add(new int[] {lo, Math.min(xs.length, lo + CHUNK)});
        }
        long[] sums = new long[reps];
        Outcome out = switch (variant) {
            case "serial" -> {
                long start = System.nanoTime();
                for (int rep = 0; rep < reps; rep++) {
                    sums[rep] = Numbers.sum(xs, 0, xs.length);
                }
                yield Outcome.of(System.nanoTime() - start, null);
            }
            case "spawn" -> runner.run(done -> reps(reps, chunks.size(), sums, done, (ctx, rep) -> {
                ActorRef<Long> self = ctx.getSelf();
                for (int[] c : chunks) {
                    ctx.spawnAnonymous(Behaviors.<Void>setup(k -> {
                        self.tell(Numbers.sum(xs, c[0], c[1]));
                        return Behaviors.stopped();
                    }));
                }
            }));
            default -> runner.run(done -> Behaviors.<Long>setup(ctx -> {
                // The pool is setup, not the subject: spawned before reps() starts the clock.
                ActorRef<Long> self = ctx.getSelf();
                List<ActorRef<Go>> pool = new ArrayList<>();
                for (int[] c : chunks) {
                    pool.add(ctx.spawnAnonymous(Behaviors.receiveMessage(go -> {
                        self.tell(Numbers.sum(xs, c[0], c[1]));
                        return Behaviors.same();
                    })));
                }
                return reps(reps, chunks.size(), sums, done, (c, rep) -> pool.forEach(w -> w.tell(Go.GO)));
            }));
        };
        for (int rep = 0; rep < reps; rep++) {
            if (sums[rep] != want) {
                return Outcome.of(out.wallNanos(),
                        "parsum " + variant + ": rep " + rep + " sum " + sums[rep] + ", want " + want);
            }
        }
        return out;
    }

    /** Starts one rep's partial sums: spawn the summers, or tell the pool to go. */
    interface StartRep {
        void start(org.apache.pekko.actor.typed.javadsl.ActorContext<Long> ctx, int rep);
    }

    /**
     * Main for spawn and pool: starts the clock, then per rep starts the partial sums and
     * adds up {@code parts} answers into {@code sums[rep]}; completes after the last rep.
     */
    private static Behavior<Long> reps(int reps, int parts, long[] sums,
            java.util.concurrent.CompletableFuture<Outcome> done, StartRep startRep) {
        return Behaviors.setup(ctx -> {
            long start = System.nanoTime();
            if (reps == 0 || parts == 0) {
                done.complete(Outcome.of(System.nanoTime() - start, null));
                return Behaviors.stopped();
            }
            startRep.start(ctx, 0);
            int[] state = {0, 0}; // rep, answers in this rep
            return Behaviors.receiveMessage(part -> {
                sums[state[0]] += part;
                if (++state[1] < parts) {
                    return Behaviors.same();
                }
                state[1] = 0;
                if (++state[0] < reps) {
                    startRep.start(ctx, state[0]);
                    return Behaviors.same();
                }
                done.complete(Outcome.of(System.nanoTime() - start, null));
                return Behaviors.stopped();
            });
        });
    }
}
