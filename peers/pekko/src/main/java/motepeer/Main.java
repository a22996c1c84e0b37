package motepeer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The Apache Pekko peer of the mote-bench workloads (docs/workloads.md is the contract).
 *
 * <pre>mote-peer-pekko WORKLOAD VARIANT|- [k=v ...]
 * mote-peer-pekko --version</pre>
 *
 * Exactly one RESULT line goes to stdout. Besides the contract's params it takes its own,
 * printed after them: the dispatcher's {@code throughput}, {@code affinity} and
 * {@code threads} (see {@link Dispatch}) and {@code warmup} (1: one run at the quick sizes
 * before the measured one, for the JIT).
 */
public final class Main {
    private Main() {}

    /** One workload of the contract: variants (empty: none), params in table order, body. */
    record Workload(List<String> variants, List<Params.Spec> params,
            Function<Params, String> validate, UnaryOperator<Params> fit, Body body) {
        Workload(List<String> variants, List<Params.Spec> params, Body body) {
            this(variants, params, p -> null, UnaryOperator.identity(), body);
        }
    }

    /** Runs one workload at the given sizes. */
    interface Body {
        Outcome run(Runner runner, String variant, Params p);
    }

    private static Params.Spec spec(String name, long full, long quick) {
        return new Params.Spec(name, full, quick);
    }

    static final Map<String, Workload> WORKLOADS = Map.ofEntries(
            Map.entry("chain", new Workload(List.of("int", "list20"),
                    List.of(spec("m", 10000, 1000), spec("n", 10000, 1000)), Chain::run)),
            Map.entry("million", new Workload(List.of(), List.of(spec("k", 1000000, 20000)), Million::run)),
            Map.entry("spawn", new Workload(List.of(), List.of(spec("k", 1000000, 20000)), Spawn::run)),
            Map.entry("pingpong", new Workload(List.of(), List.of(spec("r", 1000000, 20000)), Pingpong::run)),
            Map.entry("ring", new Workload(List.of(), List.of(spec("t", 10000000, 100000), spec("p", 503, 503)),
                    p -> p.get("p") >= 1 ? null : "ring needs p >= 1", UnaryOperator.identity(), Ring::run)),
            Map.entry("skynet", new Workload(List.of(), List.of(spec("l", 1000000, 10000)),
                    p -> Skynet.isPowerOf10(p.get("l")) ? null : "skynet: l=" + p.get("l") + " is not a power of 10",
                    UnaryOperator.identity(), Skynet::run)),
            Map.entry("fanin", new Workload(List.of(), List.of(spec("s", 100, 10), spec("n", 10000000, 100000)),
                    p -> p.get("s") >= 1 && p.get("n") % p.get("s") == 0 ? null
                            : "fanin: n=" + p.get("n") + " must be a multiple of s=" + p.get("s") + " >= 1",
                    // the warm-up's n: rounded down to a multiple of its s (at least s)
                    p -> p.with("n", Math.max(p.get("s"), p.get("n") - p.get("n") % p.get("s"))),
                    Fanin::run)),
            Map.entry("call", new Workload(List.of(), List.of(spec("r", 1000000, 20000)), Call::run)),
            Map.entry("parsum", new Workload(List.of("serial", "spawn", "pool"),
                    List.of(spec("r", 100000, 100000), spec("reps", 100, 10)), Parsum::run)),
            Map.entry("copy", new Workload(List.of("seq", "par"),
                    List.of(spec("n", 1000000, 100000), spec("r", 5, 2)), Copy::run)),
            Map.entry("workers", new Workload(List.of("serial", "master_slave", "push", "steal"),
                    List.of(spec("w", 2, 2), spec("n", 50000, 5000)),
                    p -> p.get("w") >= 1 ? null : "workers needs w >= 1", UnaryOperator.identity(), Workers::run)));

    private static final long CORES = Runtime.getRuntime().availableProcessors();

    /**
     * The peer's own params and their defaults: the dispatcher settings that measured fastest
     * here (README.md has the figures) and the warm-up.
     */
    static final List<Params.Spec> OWN = List.of(
            spec("throughput", 100, 100), spec("affinity", 0, 0),
            spec("threads", CORES, CORES), spec("warmup", 1, 1));

    /** Nanoseconds as milliseconds with three decimals, always with a decimal point. */
    static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }

    /** One line naming the versions that run, for a report's machine header. */
    static String versions() {
        return "pekko " + org.apache.pekko.Version.current()
                + ", scala " + scala.util.Properties.versionNumberString()
                + ", java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
                + "; " + jvmSettings()
                + "; dispatcher: fork-join, one thread per core, throughput 100 (the defaults of this peer)";
    }

    /** The collector, the heap limit and any extra JVM flags: what decides a JVM's speed. */
    static String jvmSettings() {
        String gc = java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(java.lang.management.GarbageCollectorMXBean::getName)
                .collect(java.util.stream.Collectors.joining(" + "));
        String flags = String.join(" ", java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
        return "JVM: " + gc + ", max heap " + (Runtime.getRuntime().maxMemory() >> 20) + " MB"
                + (flags.isEmpty() ? "" : ", flags " + flags);
    }

    public static void main(String[] args) {
        if (args.length == 1 && args[0].equals("--version")) {
            System.out.println(versions());
            System.exit(0);
        }
        if (args.length < 2) {
            throw Problem.usage("need a workload and a variant");
        }
        String name = args[0];
        String variant = args[1];
        Workload w = WORKLOADS.get(name);
        if (w == null) {
            throw Problem.usage("unknown workload '" + name + "'");
        }
        if (w.variants().isEmpty() ? !variant.equals("-") : !w.variants().contains(variant)) {
            throw Problem.usage(w.variants().isEmpty()
                    ? "workload " + name + " has no variant; pass -, not '" + variant + "'"
                    : "unknown variant '" + variant + "' for " + name + " (one of " + String.join(", ", w.variants()) + ")");
        }
        List<Params.Spec> all = new ArrayList<>(w.params());
        all.addAll(OWN);
        Params given = Params.parse(all, Arrays.asList(args).subList(2, args.length), name);
        for (String flag : List.of("affinity", "warmup")) {
            if (given.get(flag) > 1) {
                throw Problem.usage(flag + " must be 0 or 1");
            }
        }
        if (given.get("throughput") < 1) {
            throw Problem.usage("throughput must be >= 1");
        }
        String invalid = w.validate().apply(given);
        if (invalid != null) {
            throw Problem.usage(invalid);
        }

        // SLF4J reports replaying log calls made while it initialised; that is noise here.
        System.setProperty("slf4j.internal.verbosity", "ERROR");
        try (Runner runner = new Runner(Dispatch.config(given))) {
            if (given.get("warmup") == 1) {
                // One run at the quick sizes lets the JIT compile the hot paths before the
                // clock runs; then collect its garbage so the measured run starts clean.
                Outcome warm = w.body().run(runner, variant, w.fit().apply(given.quick(w.params())));
                if (warm.error() != null) {
                    Problem.fail("(warm-up) " + warm.error());
                }
                System.gc();
            }
            Outcome out = w.body().run(runner, variant, given);
            if (out.error() != null) {
                Problem.fail(out.error());
            }
            StringBuilder line = new StringBuilder("RESULT bench=" + name + " impl=pekko variant=" + variant);
            for (Params.Spec s : all) {
                line.append(' ').append(s.name()).append('=').append(given.get(s.name()));
            }
            line.append(" wall_ms=").append(ms(out.wallNanos()));
            out.extras().forEach(e -> line.append(' ').append(e));
            System.out.println(line);
            System.out.flush();
        }
        System.exit(0);
    }
}
