package dev.mana.eclipse.core;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** Formatting shared by views, consoles and messages. */
public final class ManaFormat {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
        .withZone(ZoneId.systemDefault());

    private ManaFormat() {}

    public static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(java.util.Locale.ROOT, v >= 100 ? "%.0f %s" : "%.1f %s", v, units[u]);
    }

    public static String time(long epochMillis) {
        return epochMillis <= 0 ? "" : TIME.format(Instant.ofEpochMilli(epochMillis));
    }

    /** Position of a checkpoint phase's state in the sequence, 1..4 (0 for any other state). */
    public static int phase(dev.mana.coordinator.RankState state) {
        return switch (state) {
            case SUSPENDED -> 1;
            case DRAINED -> 2;
            case CHECKPOINTED -> 3;
            case COMMITTED -> 4;
            default -> 0;
        };
    }

    /** A checkpoint's outcome in one line for people (console, job view, progress). */
    public static String summary(dev.mana.coordinator.CheckpointResult r) {
        if (!r.ok()) {
            return "Checkpoint failed: " + r.message();
        }
        return "Checkpoint " + r.generation() + " written: " + r.ranks() + (r.ranks() == 1 ? " rank, " : " ranks, ")
            + bytes(r.totalBytes()) + " in " + seconds(r.elapsedNanos()) + " to " + r.dir();
    }

    public static String seconds(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.2f s", nanos / 1e9);
    }
}
