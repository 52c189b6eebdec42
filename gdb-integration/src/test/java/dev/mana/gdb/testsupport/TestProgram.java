package dev.mana.gdb.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Builds the test program (splitapp linked against libsplitstep.so, both -g -O0) with the real gcc. */
public final class TestProgram {
    public final Path dir;
    public final Path app;
    public final Path lib;

    private TestProgram(Path dir) {
        this.dir = dir;
        this.app = dir.resolve("splitapp");
        this.lib = dir.resolve("libsplitstep.so");
    }

    public static TestProgram build(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        for (String src : List.of("splitapp.c", "splitstep.c")) {
            try (InputStream in = TestProgram.class.getResourceAsStream("/programs/" + src)) {
                Files.copy(in, dir.resolve(src), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        TestProgram p = new TestProgram(dir);
        run(dir, "gcc", "-g", "-O0", "-fPIC", "-shared", "-o", "libsplitstep.so", "splitstep.c");
        run(dir, "gcc", "-g", "-O0", "-o", "splitapp", "splitapp.c", "-L.", "-lsplitstep", "-pthread",
                "-Wl,-rpath,$ORIGIN");
        return p;
    }

    /** Runs a command in {@code dir}, fails with its output unless it exits 0 within 60 s. */
    public static String run(Path dir, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + ": timed out");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + ": exit " + p.exitValue() + ": " + out);
        }
        return out;
    }
}
