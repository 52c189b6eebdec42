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

    public static String seconds(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.2f s", nanos / 1e9);
    }
}
