package dev.mana.coordinator.cli;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** Human formatting shared by the commands. */
final class Format {
    private Format() {}

    static String bytes(long n) {
        if (n < 1024) return n + " B";
        double v = n;
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
    }

    static String time(long unixMs) {
        return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss z", Locale.ROOT).withZone(ZoneId.systemDefault())
                .format(Instant.ofEpochMilli(unixMs));
    }
}
