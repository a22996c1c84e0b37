package motepeer;

/**
 * call: one server actor; a client actor makes R synchronous calls (request i, reply i+1),
 * then reports to main. A call is Pekko's request-response: the request carries the
 * client's own address and the client sends nothing else until the answer is in. (Pekko's
 * {@code ask} adds a temporary actor and a timeout per call; a client that is itself an
 * actor and waits for one answer at a time needs neither.)
 */
final class Call {
    private Call() {}

    static Outcome run(Runner runner, String variant, Params p) {
        return RoundTrips.run(runner, p.get("r"), i -> i + 1, i -> i + 1, "call");
    }
}
