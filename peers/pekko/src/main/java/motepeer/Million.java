package motepeer;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * million: spawn K actors, each waiting for a message; then main sends each one, each
 * replies {@code DONE} to main and stops; main receives K replies. Extra: {@code spawn_ms}.
 */
final class Million {
    private Million() {}

    enum Go { GO }

    enum Done { DONE }

    static Outcome run(Runner runner, String variant, Params p) {
        int k = p.getInt("k");
        return runner.run(done -> Behaviors.<Done>setup(ctx -> {
            long start = System.nanoTime();
            // One behavior value serves every waiter: behaviors are immutable descriptions.
            Behavior<Go> waiter = waiter(ctx.getSelf());
            List<ActorRef<Go>> waiters = new ArrayList<>(k);
            for (int i = 0; i < k; i++) {
                waiters.add(ctx.spawnAnonymous(waiter));
            }
            long spawned = System.nanoTime();
            for (ActorRef<Go> w : waiters) {
                w.tell(Go.GO);
            }
            Counter replies = new Counter(k, () -> {
                long wall = System.nanoTime() - start;
                String spawnMs = "spawn_ms=" + Main.ms(spawned - start);
                done.complete(new Outcome(wall, List.of(spawnMs), null));
            });
            return replies.behavior();
        }));
    }

    private static Behavior<Go> waiter(ActorRef<Done> main) {
        return Behaviors.receiveMessage(go -> {
            main.tell(Done.DONE);
            return Behaviors.stopped();
        });
    }
}
