package motepeer;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** skynet: a tree of actors with fan-out 10; the root's sum is L(L-1)/2. */
final class Skynet {
    private Skynet() {}

    /**
     * The node covering leaves [off, off+size): a leaf tells its parent off and stops; an
     * inner node spawns 10 children, sums their answers, tells the parent and stops.
     */
    private static Behavior<Long> node(long off, long size, ActorRef<Long> parent) {
        return Behaviors.setup(ctx -> {
            if (size == 1) {
                parent.tell(off);
                return Behaviors.stopped();
            }
            long sub = size / 10;
            for (int i = 0; i < 10; i++) {
                ctx.spawnAnonymous(node(off + i * sub, sub, ctx.getSelf()));
            }
            long[] state = {0, 0}; // sum, answers
            return Behaviors.receiveMessage(x -> {
                state[0] += x;
                if (++state[1] < 10) {
                    return Behaviors.same();
                }
                parent.tell(state[0]);
                return Behaviors.stopped();
            });
        });
    }

    static boolean isPowerOf10(long l) {
        long x = l;
        while (x >= 10 && x % 10 == 0) {
            x /= 10;
        }
        return x == 1;
    }

    static Outcome run(Runner runner, String variant, Params p) {
        long l = p.get("l");
        return runner.run(done -> Behaviors.<Long>setup(ctx -> {
            long start = System.nanoTime();
            ctx.spawnAnonymous(node(0, l, ctx.getSelf()));
            return Behaviors.receiveMessage(sum -> {
                long wall = System.nanoTime() - start;
                long want = l * (l - 1) / 2;
                done.complete(Outcome.of(wall, sum == want ? null : "skynet: sum " + sum + ", want " + want));
                return Behaviors.stopped();
            });
        }));
    }
}
