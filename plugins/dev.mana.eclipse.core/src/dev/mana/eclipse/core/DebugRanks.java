package dev.mana.eclipse.core;

import java.util.Set;
import java.util.TreeSet;

/**
 * The ranks to debug ({@link ManaCore#ATTR_DEBUG_RANKS}): "0", "0,3" or "1 2"; empty means rank 0. At most
 * {@link #MAX} ranks: each holds a gdb of about 60 MiB, and the Debug view stays readable.
 */
public final class DebugRanks {
    public static final int MAX = 16;

    private DebugRanks() {
    }

    /** The ranks of {@code spec} in a job of {@code nranks}; one clear message for anything else. */
    public static Set<Integer> parse(String spec, int nranks) {
        Set<Integer> out = new TreeSet<>();
        for (String part : spec.split("[,\\s]+")) {
            if (part.isBlank()) {
                continue;
            }
            int r;
            try {
                r = Integer.parseInt(part.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("ranks to debug: \"" + spec + "\" is not a list of numbers");
            }
            if (r < 0 || r >= nranks) {
                throw new IllegalArgumentException("rank " + r + " to debug is not in the job (0-" + (nranks - 1) + ")");
            }
            out.add(r);
        }
        if (out.isEmpty()) {
            out.add(0);
        }
        if (out.size() > MAX) {
            throw new IllegalArgumentException(out.size() + " ranks to debug: at most " + MAX);
        }
        return out;
    }
}
