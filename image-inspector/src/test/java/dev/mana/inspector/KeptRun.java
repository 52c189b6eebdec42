package dev.mana.inspector;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A script of the runtime's (the demo, cr_mpi.sh) run to its end with its folder kept: its output, and
 * the folder it names on a line starting with a given prefix ("demo: kept DIR", "cr_mpi: kept DIR").
 */
record KeptRun(String output, Path kept) {
    static KeptRun run(ProcessBuilder pb, String keptPrefix) throws IOException, InterruptedException {
        pb.redirectErrorStream(true);
        Process p = pb.start();
        byte[] out;
        try {
            out = p.getInputStream().readAllBytes();
            if (!p.waitFor(240, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } finally {
            p.getInputStream().close();
        }
        String text = new String(out, StandardCharsets.UTF_8);
        Path kept = null;
        for (String line : text.split("\n")) {
            if (line.startsWith(keptPrefix)) {
                kept = Path.of(line.substring(keptPrefix.length()).trim());
            }
        }
        return new KeptRun(text, kept);
    }
}
