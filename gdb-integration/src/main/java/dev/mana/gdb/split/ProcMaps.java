package dev.mana.gdb.split;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code /proc/PID/maps}, parsed. */
public final class ProcMaps {
    private ProcMaps() {
    }

    /** One line: {@code start-end perms offset dev inode [path]}. */
    public record Mapping(long start, long end, String perms, long offset, String dev, long inode, String path) {
        public boolean contains(long a) {
            return Long.compareUnsigned(a, start) >= 0 && Long.compareUnsigned(a, end) < 0;
        }

        /** A mapping of a file (a path starting with '/', not deleted). */
        public boolean isFile() {
            return path.startsWith("/") && !path.endsWith(" (deleted)");
        }
    }

    public static List<Mapping> read(long pid) throws IOException {
        return parse(Files.readString(Path.of("/proc/" + pid + "/maps")));
    }

    public static List<Mapping> parse(String text) throws IOException {
        List<Mapping> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            // the path may contain spaces: split the first five fields only
            String[] f = line.trim().split("\\s+", 6);
            if (f.length < 5) {
                throw new IOException("malformed maps line: " + line);
            }
            int dash = f[0].indexOf('-');
            if (dash < 0) {
                throw new IOException("malformed maps line: " + line);
            }
            try {
                out.add(new Mapping(Long.parseUnsignedLong(f[0].substring(0, dash), 16),
                        Long.parseUnsignedLong(f[0].substring(dash + 1), 16), f[1],
                        Long.parseUnsignedLong(f[2], 16), f[3], Long.parseLong(f[4]), f.length > 5 ? f[5] : ""));
            } catch (NumberFormatException e) {
                throw new IOException("malformed maps line: " + line, e);
            }
        }
        return out;
    }
}
