package motepeer;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * spawn: main spawns K short-lived actors one after another; each sends {@code DONE} to main
 * as it starts and stops; main then receives K replies.
 */
final class Spawn {
    private Spawn() {}

    enum Done { DONE }

    static Outcome run(Runner runner, String variant, Params p) {
        int k = p.getInt("k");
        return runner.run(done -> Behaviors.<Done>setup(ctx -> {
            long start = System.nanoTime();
            ActorRef<Done> self = ctx.getSelf();
            Behavior<Void> child = Behaviors.setup(c -> {
                self.tell(Done.DONE);
                return Behaviors.stopped();
            });
            for (int i = 0; i < k; i++) {
                ctx.spawnAnonymous(child);
            }
            return new Counter(k, () -> done.complete(Outcome.of(System.nanoTime() - start, null)))
                    .behavior();
        }));
    }
}
