package motepeer;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import java.util.function.LongUnaryOperator;

/**
 * Pekko's request-response pattern, which pingpong and call both are: a client actor sends
 * {@code Request(i, self)}, the responder answers on the request's {@code replyTo}, and the
 * client sends the next request when the answer is in. The client reports the number of
 * wrong answers to main after R round trips.
 */
final class RoundTrips {
    private RoundTrips() {}

    /** A request and the address its answer goes to. */
    record Request(long i, ActorRef<Long> replyTo) {}

    /** An actor answering every request with {@code answer(i)}. */
    static Behavior<Request> responder(LongUnaryOperator answer) {
        return Behaviors.receiveMessage(req -> {
            req.replyTo().tell(answer.applyAsLong(req.i()));
            return Behaviors.same();
        });
    }

    /** A client making {@code r} sequential requests, expecting {@code expect(i)} back. */
    static Behavior<Long> client(ActorRef<Request> responder, long r, LongUnaryOperator expect,
            ActorRef<Long> report) {
        return Behaviors.setup(ctx -> {
            if (r == 0) {
                report.tell(0L);
                return Behaviors.stopped();
            }
            ActorRef<Long> self = ctx.getSelf();
            responder.tell(new Request(0, self));
            long[] state = {0, 0}; // the request in flight, wrong answers so far
            return Behaviors.receiveMessage(answer -> {
                if (answer != expect.applyAsLong(state[0])) {
                    state[1]++;
                }
                if (++state[0] < r) {
                    responder.tell(new Request(state[0], self));
                    return Behaviors.same();
                }
                report.tell(state[1]);
                return Behaviors.stopped();
            });
        });
    }

    /**
     * Main: spawns the responder (answering with {@code answer}) and the client (checking
     * each answer against {@code expect}, kept apart so a wrong responder is caught), and
     * completes {@code done} when the client reports; {@code what} names the workload.
     */
    static Outcome run(Runner runner, long r, LongUnaryOperator answer, LongUnaryOperator expect,
            String what) {
        return runner.run(done -> Behaviors.<Long>setup(ctx -> {
            long start = System.nanoTime();
            ActorRef<Request> responder = ctx.spawn(responder(answer), "responder");
            ctx.spawn(client(responder, r, expect, ctx.getSelf()), "client");
            return Behaviors.receiveMessage(bad -> {
                long wall = System.nanoTime() - start;
                done.complete(Outcome.of(wall, bad == 0 ? null
                        : what + ": " + bad + " of " + r + " answers are wrong"));
                return Behaviors.stopped();
            });
        }));
    }
}
