package motepeer;

/**
 * How the program ends when something is wrong, the contract's way: a wrong answer prints
 * {@code ERROR <what>} on stderr and exits 1; a usage error exits 2; a workload this peer does
 * not have exits 3 with {@code SKIP <why>} on stdout (the harness's skip convention).
 */
final class Problem {
    private Problem() {}

    static final String USAGE = "usage: mote-peer-pekko WORKLOAD VARIANT|- [k=v ...]";

    /** A wrong answer. Called on the main thread only (actors hand their results back). */
    static void fail(String what) {
        System.err.println("ERROR " + what);
        System.err.flush();
        System.exit(1);
    }

    /** A usage error (unknown workload, variant or parameter, or an invalid value). */
    static RuntimeException usage(String what) {
        System.err.println("mote-peer-pekko: " + what);
        System.err.println(USAGE);
        System.err.flush();
        System.exit(2);
        return new IllegalStateException("unreachable");
    }

    /** A workload or variant this peer does not implement. */
    static RuntimeException skip(String why) {
        System.out.println("SKIP " + why);
        System.out.flush();
        System.exit(3);
        return new IllegalStateException("unreachable");
    }
}
