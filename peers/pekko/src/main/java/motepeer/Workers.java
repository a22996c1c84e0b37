package motepeer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * workers: the sum of countFactors(i) for i in 1..=N, one message per item (unbatched).
 *
 * <ul>
 *   <li>serial: one loop on the main thread.
 *   <li>master_slave: the master spawns one actor per item; each answers its count.
 *   <li>push: W workers spawned before the clock; the master tells them items round-robin.
 *   <li>steal: W workers spawned before the clock ask the master for the next item when
 *       idle (pull-based work distribution: a worker's answer doubles as its next request).
 * </ul>
 */
final class Workers {
    private Workers() {}

    /** What the master receives: a count, and for steal the worker that is idle again. */
    record Counted(long count, ActorRef<Long> worker) {}

    static long serialSum(long n) {
        long s = 0;
        for (long i = 1; i <= n; i++) {
            s += Numbers.countFactors(i);
        }
        return s;
    }

    /** A worker counting every item it gets and answering the master. */
    private static Behavior<Long> worker(ActorRef<Counted> master) {
        return Behaviors.setup(ctx -> {
            ActorRef<Long> self = ctx.getSelf();
            return Behaviors.receiveMessage(i -> {
                master.tell(new Counted(Numbers.countFactors(i), self));
                return Behaviors.same();
            });
        });
    }

    /** A steal worker: asks for work as it starts (a count of 0 carries no item). */
    private static Behavior<Long> stealer(ActorRef<Counted> master) {
        return Behaviors.setup(ctx -> {
            master.tell(new Counted(0, ctx.getSelf()));
            return worker(master);
        });
    }

    static Outcome run(Runner runner, String variant, Params p) {
        int w = p.getInt("w");
        long n = p.get("n");
        long want = serialSum(n);
        long[] got = {0};
        Outcome out = switch (variant) {
            case "serial" -> {
                long start = System.nanoTime();
                got[0] = serialSum(n);
                yield Outcome.of(System.nanoTime() - start, null);
            }
            case "master_slave" -> runner.run(done -> Behaviors.<Counted>setup(ctx -> {
                long start = System.nanoTime();
                ActorRef<Counted> self = ctx.getSelf();
                for (long i = 1; i <= n; i++) {
                    long item = i;
                    ctx.spawnAnonymous(Behaviors.<Void>setup(k -> {
                        self.tell(new Counted(Numbers.countFactors(item), null));
                        return Behaviors.stopped();
                    }));
                }
                return collect(n, n, got, start, done, null);
            }));
            case "push" -> runner.run(done -> Behaviors.<Counted>setup(ctx -> {
                List<ActorRef<Long>> pool = spawnPool(ctx, w, false);
                long start = System.nanoTime();
                for (long i = 1; i <= n; i++) {
                    pool.get((int) ((i - 1) % w)).tell(i);
                }
                return collect(n, n, got, start, done, null);
            }));
            default -> runner.run(done -> Behaviors.<Counted>setup(ctx -> {
                spawnPool(ctx, w, true);
                long start = System.nanoTime();
                // Each worker's first request (count 0) is an answer too: N + W messages.
                return collect(n + w, n, got, start, done, new long[] {1});
            }));
        };
        if (got[0] != want) {
            return Outcome.of(out.wallNanos(), "workers " + variant + ": sum " + got[0] + ", want " + want);
        }
        return out;
    }

    private static List<ActorRef<Long>> spawnPool(ActorContext<Counted> ctx, int w, boolean steal) {
        List<ActorRef<Long>> pool = new ArrayList<>(w);
        for (int j = 0; j < w; j++) {
            Behavior<Long> b = steal ? stealer(ctx.getSelf()) : worker(ctx.getSelf());
            pool.add(ctx.spawnAnonymous(b));
        }
        return pool;
    }

    /**
     * The master's receive loop: adds up {@code messages} answers into {@code got[0]}. With
     * {@code nextItem} (steal), every answer is also a request: the worker gets the next
     * item while items remain, up to {@code n}.
     */
    private static Behavior<Counted> collect(long messages, long n, long[] got, long start,
            CompletableFuture<Outcome> done, long[] nextItem) {
        if (messages == 0) {
            done.complete(Outcome.of(System.nanoTime() - start, null));
            return Behaviors.stopped();
        }
        long[] in = {0};
        return Behaviors.receiveMessage(c -> {
            got[0] += c.count();
            if (nextItem != null && nextItem[0] <= n) {
                c.worker().tell(nextItem[0]++);
            }
            if (++in[0] < messages) {
                return Behaviors.same();
            }
            done.complete(Outcome.of(System.nanoTime() - start, null));
            return Behaviors.stopped();
        });
    }
}
