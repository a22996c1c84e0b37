package motepeer;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * ring: P actors in a ring (actor j forwards to j+1 mod P); main gives actor 0 a token with
 * value T; an actor that gets v > 0 passes v-1 on; the one that gets 0 reports its index.
 */
final class Ring {
    private Ring() {}

    /** What a ring actor receives: first its successor, then tokens. */
    sealed interface Msg permits Link, Token {}

    record Link(ActorRef<Msg> next) implements Msg {}

    record Token(long value) implements Msg {}

    /**
     * Actor j. A ring has no first actor to create, so each learns its successor from a
     * {@code Link} message; main sends every Link before the token, and a local tell is in
     * the mailbox when it returns, so a Link always arrives before the first token.
     */
    private static Behavior<Msg> node(int j, ActorRef<Integer> report) {
        return Behaviors.receiveMessage(first -> {
            ActorRef<Msg> next = ((Link) first).next();
            return Behaviors.receiveMessage(msg -> {
                long v = ((Token) msg).value();
                if (v > 0) {
                    next.tell(new Token(v - 1));
                } else {
                    report.tell(j);
                }
                return Behaviors.same();
            });
        });
    }

    static Outcome run(Runner runner, String variant, Params p) {
        long t = p.get("t");
        int np = p.getInt("p");
        return runner.run(done -> Behaviors.<Integer>setup(ctx -> {
            long start = System.nanoTime();
            List<ActorRef<Msg>> ring = new ArrayList<>(np);
            for (int j = 0; j < np; j++) {
                ring.add(ctx.spawnAnonymous(node(j, ctx.getSelf())));
            }
            for (int j = 0; j < np; j++) {
                ring.get(j).tell(new Link(ring.get((j + 1) % np)));
            }
            ring.get(0).tell(new Token(t));
            return Behaviors.receiveMessage(idx -> {
                long wall = System.nanoTime() - start;
                long want = t % np;
                done.complete(Outcome.of(wall, idx == want ? null
                        : "ring: actor " + idx + " got 0, want " + want));
                return Behaviors.stopped();
            });
        }));
    }
}
