package dev.mana.mpidiag;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the real MPI compiler wrappers (and other commands) for tests; fails loudly with their output. */
final class Cc {
    private Cc() {
    }

    static String run(Path dir, String... cmd) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(List.of(cmd)).directory(dir.toFile()).redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + String.join(" ", cmd));
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (" + p.exitValue() + "):\n" + out);
        }
        return out;
    }

    static String[] cmd(String first, String... rest) {
        List<String> l = new ArrayList<>();
        l.add(first);
        l.addAll(List.of(rest));
        return l.toArray(String[]::new);
    }
}
