package motepeer;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.stream.LongStream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * chain: M relay actors; main sends N messages to the head, each relay forwards every
 * message to the next, the last relay sends to main; main receives N.
 */
final class Chain {
    private Chain() {}

    /** The list 1..20, built once: every list20 message is a reference to it. */
    private static final List<Long> LIST20 = LongStream.rangeClosed(1, 20).boxed().toList();

    static Outcome run(Runner runner, String variant, Params p) {
        int m = p.getInt("m");
        int n = p.getInt("n");
        if (variant.equals("int")) {
            return runner.run(done -> main(m, n, i -> (long) i, new IntSum(n), done));
        }
        return runner.run(done -> main(m, n, i -> LIST20, new ListSums(n), done));
    }

    /** A relay: forwards every message to {@code next}. */
    static <T> Behavior<T> relay(ActorRef<T> next) {
        return Behaviors.receiveMessage(msg -> {
            next.tell(msg);
            return Behaviors.same();
        });
    }

    /** What main checks in the messages that come out of the chain. */
    interface Check<T> {
        void accept(T msg);

        /** null when everything received was right. */
        String error();
    }

    /** int: the N messages sum to N(N-1)/2. */
    static final class IntSum implements Check<Long> {
        private final long n;
        private long sum;

        IntSum(long n) {
            this.n = n;
        }

        @Override
        public void accept(Long msg) {
            sum += msg;
        }

        @Override
        public String error() {
            long want = n * (n - 1) / 2;
            return sum == want ? null : "chain int: sum of " + n + " messages is " + sum + ", want " + want;
        }
    }

    /** list20: every list sums to 210. */
    static final class ListSums implements Check<List<Long>> {
        private final long n;
        private long bad;

        ListSums(long n) {
            this.n = n;
        }

        @Override
        public void accept(List<Long> msg) {
            long s = 0;
            for (long x : msg) {
                s += x;
            }
            if (s != 210) {
                bad++;
            }
        }

        @Override
        public String error() {
            return bad == 0 ? null : "chain list20: " + bad + " of " + n + " lists do not sum to 210";
        }
    }

    private static <T> Behavior<T> main(int m, int n, IntFunction<T> message, Check<T> check,
            CompletableFuture<Outcome> done) {
        return Behaviors.setup(ctx -> {
            long start = System.nanoTime();
            ActorRef<T> head = ctx.getSelf();
            for (int i = 0; i < m; i++) {
                head = ctx.spawnAnonymous(relay(head));
            }
            for (int i = 0; i < n; i++) {
                head.tell(message.apply(i));
            }
            if (n == 0) {
                done.complete(Outcome.of(System.nanoTime() - start, check.error()));
                return Behaviors.stopped();
            }
            int[] received = {0};
            return Behaviors.receiveMessage(msg -> {
                check.accept(msg);
                if (++received[0] < n) {
                    return Behaviors.same();
                }
                long wall = System.nanoTime() - start;
                done.complete(Outcome.of(wall, check.error()));
                return Behaviors.stopped();
            });
        });
    }
}
