package motepeer;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A main actor's last phase in the workloads that only count replies: receive {@code want}
 * messages of any kind, then run {@code whenDone} and stop (stopping main stops whatever
 * children are still alive).
 */
final class Counter {
    private final long want;
    private final Runnable whenDone;

    Counter(long want, Runnable whenDone) {
        this.want = want;
        this.whenDone = whenDone;
    }

    <T> Behavior<T> behavior() {
        if (want == 0) {
            whenDone.run();
            return Behaviors.stopped();
        }
        long[] got = {0};
        return Behaviors.receiveMessage(msg -> {
            if (++got[0] < want) {
                return Behaviors.same();
            }
            whenDone.run();
            return Behaviors.stopped();
        });
    }
}
