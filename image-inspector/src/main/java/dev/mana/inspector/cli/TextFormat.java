package dev.mana.inspector.cli;

import java.time.Instant;
import java.util.Locale;

/** Sizes, addresses and times as the text views print them. */
final class TextFormat {
    private TextFormat() {
    }

    static String human(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] u = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = n;
        int i = -1;
        while (v >= 1024 && i < u.length - 1) {
            v /= 1024;
            i++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, u[i]);
    }

    static String shortSize(long n) {
        if (n == 0) {
            return "0";
        }
        String[] u = {"", "K", "M", "G", "T", "P", "E"};
        double v = n;
        int i = 0;
        while (v >= 1024 && i < u.length - 1) {
            v /= 1024;
            i++;
        }
        return i == 0 ? Long.toString(n) : String.format(Locale.ROOT, v < 10 ? "%.1f%s" : "%.0f%s", v, u[i]);
    }

    static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }

    static String time(long ns) {
        if (ns <= 0) {
            return "";
        }
        return Instant.ofEpochSecond(Math.floorDiv(ns, 1_000_000_000L), Math.floorMod(ns, 1_000_000_000L)).toString();
    }
}
