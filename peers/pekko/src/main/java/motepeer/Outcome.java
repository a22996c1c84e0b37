package motepeer;

import java.util.List;

/**
 * What a run hands back to the main thread, which checks it and prints the RESULT line.
 *
 * @param wallNanos the workload's time, from just before its first spawn to the answer
 * @param extras extra figures printed after {@code wall_ms}, already {@code key=value}
 * @param error null when the answer is right, else what is wrong
 */
record Outcome(long wallNanos, List<String> extras, String error) {
    /** An outcome without extras. */
    static Outcome of(long wallNanos, String error) {
        return new Outcome(wallNanos, List.of(), error);
    }
}
