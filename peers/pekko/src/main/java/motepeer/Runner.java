package motepeer;

import com.typesafe.config.Config;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The actor system the runs share (the warm-up and the measured run) and the way the main
 * thread starts a workload's "main" actor and waits for its outcome.
 */
final class Runner implements AutoCloseable {
    private final ActorSystem<Void> system;
    private int runs;

    Runner(Config config) {
        system = ActorSystem.create(Behaviors.empty(), "mote-peer", config);
    }

    /**
     * Spawns the behavior {@code main} builds as a top-level actor and waits for the outcome
     * it completes. The main actor starts its own clock and stops when done, taking any
     * children still running with it.
     */
    <T> Outcome run(Function<CompletableFuture<Outcome>, Behavior<T>> main) {
        CompletableFuture<Outcome> done = new CompletableFuture<>();
        system.systemActorOf(watching(main.apply(done), done), "run-" + runs++, Props.empty());
        try {
            return done.get();
        } catch (InterruptedException | ExecutionException e) {
            // A bug, not a wrong answer; still exit 1 rather than leave the JVM up on the
            // actor system's non-daemon threads.
            e.printStackTrace();
            Problem.fail("the run failed: " + e.getMessage());
            throw new IllegalStateException("unreachable", e);
        }
    }

    /**
     * Runs {@code main} as the child of an actor that watches it: should the main actor fail
     * (a bug), the main thread hears of it instead of waiting forever. Completing the future
     * after a normal end is a no-op.
     */
    private static <T> Behavior<Void> watching(Behavior<T> main, CompletableFuture<Outcome> done) {
        return Behaviors.setup(ctx -> {
            ctx.watch(ctx.spawn(main, "main"));
            return Behaviors.receiveSignal((c, signal) -> {
                if (signal instanceof Terminated) {
                    done.completeExceptionally(new IllegalStateException("the main actor stopped without an answer"));
                    return Behaviors.stopped();
                }
                return Behaviors.same();
            });
        });
    }

    @Override
    public void close() {
        system.terminate();
    }
}
