package motepeer;

/** pingpong: A sends i to B, B replies i to A, R round trips, then A reports to main. */
final class Pingpong {
    private Pingpong() {}

    static Outcome run(Runner runner, String variant, Params p) {
        return RoundTrips.run(runner, p.get("r"), i -> i, i -> i, "pingpong");
    }
}
