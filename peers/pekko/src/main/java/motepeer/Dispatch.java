package motepeer;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

/**
 * The dispatcher settings a run uses, from the peer's own parameters, as Pekko configuration
 * over the defaults in {@code application.conf}.
 *
 * <ul>
 *   <li>{@code throughput}: how many messages an actor handles before its thread moves on to
 *       another actor (Pekko's default is 5; higher trades fairness for throughput).
 *   <li>{@code affinity}: 1 runs actors on Pekko's affinity pool (one queue per thread, an
 *       actor kept on one thread; marked "may change" by Pekko) instead of the default
 *       fork-join pool.
 *   <li>{@code threads}: the pool's thread count (the peer's default: one per core); 0 keeps
 *       Pekko's sizing (fork-join: one per core but at least 8; affinity: 0.8 per core, at
 *       least 4).
 * </ul>
 */
final class Dispatch {
    private Dispatch() {}

    static Config config(Params own) {
        long throughput = own.get("throughput");
        long threads = own.get("threads");
        String executor = own.get("affinity") == 1 ? "affinity-pool-executor" : "fork-join-executor";
        StringBuilder s = new StringBuilder();
        s.append("pekko.actor.default-dispatcher.throughput = ").append(throughput).append('\n');
        s.append("pekko.actor.default-dispatcher.executor = ").append(executor).append('\n');
        if (own.get("affinity") == 1) {
            // Each affinity thread's task queue is bounded (512 by default) and an overflow
            // drops the actor's run: one actor waking thousands (a chain being built, a
            // million waiters told to go) would lose messages and hang. Room for a million.
            s.append("pekko.actor.default-dispatcher.affinity-pool-executor.task-queue-size = 1048576\n");
        }
        if (threads > 0) {
            String pool = "pekko.actor.default-dispatcher." + executor;
            s.append(pool).append(".parallelism-min = ").append(threads).append('\n');
            s.append(pool).append(".parallelism-max = ").append(threads).append('\n');
        }
        return ConfigFactory.parseString(s.toString()).withFallback(ConfigFactory.load());
    }
}
