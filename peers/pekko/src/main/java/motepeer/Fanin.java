package motepeer;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** fanin: S sender actors each send N/S ones to one receiver, which counts to N. */
final class Fanin {
    private Fanin() {}

    /** What the receiver tells main. */
    record Tally(long count, long sum) {}

    private static Behavior<Long> receiver(long n, ActorRef<Tally> main) {
        return Behaviors.setup(ctx -> {
            if (n == 0) {
                main.tell(new Tally(0, 0));
                return Behaviors.stopped();
            }
            long[] state = {0, 0}; // count, sum
            return Behaviors.receiveMessage(x -> {
                state[1] += x;
                if (++state[0] < n) {
                    return Behaviors.same();
                }
                main.tell(new Tally(state[0], state[1]));
                return Behaviors.stopped();
            });
        });
    }

    static Outcome run(Runner runner, String variant, Params p) {
        int s = p.getInt("s");
        long n = p.get("n");
        long per = n / s;
        return runner.run(done -> Behaviors.<Tally>setup(ctx -> {
            long start = System.nanoTime();
            ActorRef<Long> receiver = ctx.spawn(receiver(n, ctx.getSelf()), "receiver");
            Behavior<Void> sender = Behaviors.setup(c -> {
                for (long i = 0; i < per; i++) {
                    receiver.tell(1L);
                }
                return Behaviors.stopped();
            });
            for (int i = 0; i < s; i++) {
                ctx.spawnAnonymous(sender);
            }
            return Behaviors.receiveMessage(t -> {
                long wall = System.nanoTime() - start;
                boolean right = t.count() == n && t.sum() == n;
                done.complete(Outcome.of(wall, right ? null
                        : "fanin: received " + t.count() + " messages summing to " + t.sum() + ", want " + n));
                return Behaviors.stopped();
            });
        }));
    }
}
