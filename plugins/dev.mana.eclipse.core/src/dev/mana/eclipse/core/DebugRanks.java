package dev.mana.eclipse.core;

import java.util.Set;
import java.util.TreeSet;

/**
 * The ranks to debug ({@link ManaCore#ATTR_DEBUG_RANKS}): "0", "0,3", "1 2", rank sets as ranges ("0-3,8",
 * "16-31") or {@value #ALL} (every rank of the job: what Debug As makes); empty means rank 0. At most {@link #MAX}
 * ranks: each holds a gdb of about 60 MiB (64 of them about 4 GiB) and a Debug view entry.
 */
public final class DebugRanks {
    public static final int MAX = 64;
    /** Every rank of the job. */
    public static final String ALL = "all";

    private DebugRanks() {
    }

    /** The ranks of {@code spec} in a job of {@code nranks}; one clear message for anything else. */
    public static Set<Integer> parse(String spec, int nranks) {
        Set<Integer> out = new TreeSet<>();
        if (spec.trim().equalsIgnoreCase(ALL)) {
            if (nranks > MAX) {
                throw new IllegalArgumentException("all " + nranks + " ranks to debug: at most " + MAX
                        + "; list the ranks to debug");
            }
            for (int r = 0; r < nranks; r++) {
                out.add(r);
            }
            return out;
        }
        for (String part : spec.split("[,\\s]+")) {
            if (part.isBlank()) {
                continue;
            }
            String[] ends = part.trim().split("-", -1);
            if (ends.length > 2) {
                throw new IllegalArgumentException("ranks to debug: \"" + part.trim() + "\" is not a rank or a range a-b");
            }
            int from = rank(ends[0], spec, nranks);
            int to = ends.length == 2 ? rank(ends[1], spec, nranks) : from;
            if (to < from) {
                throw new IllegalArgumentException("ranks to debug: the range " + part.trim() + " is empty (" + from
                        + " > " + to + ")");
            }
            for (int r = from; r <= to; r++) {
                out.add(r);
            }
        }
        if (out.isEmpty()) {
            out.add(0);
        }
        if (out.size() > MAX) {
            throw new IllegalArgumentException(out.size() + " ranks to debug: at most " + MAX);
        }
        return out;
    }

    private static int rank(String text, String spec, int nranks) {
        int r;
        try {
            r = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("ranks to debug: \"" + spec + "\" is not a list of ranks and ranges");
        }
        if (r < 0 || r >= nranks) {
            throw new IllegalArgumentException("rank " + r + " to debug is not in the job (0-" + (nranks - 1) + ")");
        }
        return r;
    }
}
