package motepeer;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.stream.Collectors;

/** Named non-negative integer parameters in the order they are printed. */
final class Params {
    /** A parameter's name, its full-size default and its {@code --quick} size. */
    record Spec(String name, long full, long quick) {}

    private final LinkedHashMap<String, Long> values = new LinkedHashMap<>();

    /** The defaults of {@code specs}, overridden by the {@code k=v} words. */
    static Params parse(List<Spec> specs, List<String> words, String workload) {
        Params p = new Params();
        specs.forEach(s -> p.values.put(s.name(), s.full()));
        for (String w : words) {
            int eq = w.indexOf('=');
            if (eq <= 0) {
                throw Problem.usage("param '" + w + "' is not k=v");
            }
            String k = w.substring(0, eq);
            if (!p.values.containsKey(k)) {
                throw Problem.usage("unknown param '" + k + "' for " + workload);
            }
            long v;
            try {
                v = Long.parseLong(w.substring(eq + 1).replace("_", ""));
            } catch (NumberFormatException e) {
                v = -1;
            }
            if (v < 0) {
                throw Problem.usage("param " + w + " is not a non-negative integer");
            }
            p.values.put(k, v);
        }
        return p;
    }

    long get(String name) {
        Long v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("parameter '" + name + "' is not set");
        }
        return v;
    }

    /** A size or count; values past the int range are a usage error, not an overflow. */
    int getInt(String name) {
        long v = get(name);
        if (v > Integer.MAX_VALUE) {
            throw Problem.usage("param " + name + "=" + v + " is too large");
        }
        return (int) v;
    }

    /** A copy holding only {@code specs}' parameters, each at min(its value, its quick size). */
    Params quick(List<Spec> specs) {
        Params q = new Params();
        specs.forEach(s -> q.values.put(s.name(), Math.min(get(s.name()), s.quick())));
        return q;
    }

    Params with(String name, long value) {
        Params q = new Params();
        q.values.putAll(values);
        q.values.put(name, value);
        return q;
    }

    /** {@code k=v} words, space-separated, for the given names in the given order. */
    String kv(List<String> names) {
        return names.stream().map(n -> n + "=" + get(n)).collect(Collectors.joining(" "));
    }
}
