package dev.mana.eclipse.debug.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * gdb-integration's test program, built with gcc -g, launched under the real bin/mana_launch (a private
 * coordinator), checkpointed with mana_status and killed: a checkpoint directory to restart from.
 */
final class CheckpointedProgram implements AutoCloseable {
    final Path dir;
    final Path app;
    final Path ckpt;
    final Path rc;
    final String nativeResult;
    private final List<Process> started = new ArrayList<>();

    static Path root() {
        return Path.of(System.getProperty("mana.root", "../..")).toAbsolutePath().normalize();
    }

    static String bin(String name) {
        return root().resolve("bin").resolve(name).toString();
    }

    private CheckpointedProgram(Path dir, int steps) throws Exception {
        this.dir = dir;
        this.app = dir.resolve("splitapp");
        this.ckpt = dir.resolve("ck");
        this.rc = dir.resolve("mana.rc");
        Path src = root().resolve("gdb-integration/src/test/resources/programs");
        Files.copy(src.resolve("splitapp.c"), dir.resolve("splitapp.c"));
        Files.copy(src.resolve("splitstep.c"), dir.resolve("splitstep.c"));
        run(List.of("gcc", "-g", "-O0", "-fPIC", "-shared", "-o", "libsplitstep.so", "splitstep.c"));
        run(List.of("gcc", "-g", "-O0", "-o", "splitapp", "splitapp.c", "-L.", "-lsplitstep", "-pthread", "-Wl,-rpath,$ORIGIN"));
        nativeResult = run(List.of(app.toString(), Integer.toString(steps), "0")).lines()
                .filter(l -> l.startsWith("result ")).findFirst().orElseThrow();
        run(List.of(bin("mana_coordinator"), "-p", "0", "--no-exit-on-last", "--status-file=" + rc));
        Process launched = pb(List.of(bin("mana_launch"), "--ckptdir", ckpt.toString(), app.toString(),
                Integer.toString(steps), "10000")).start();
        started.add(launched);
        BufferedReader r = new BufferedReader(new InputStreamReader(launched.getInputStream()));
        String l;
        while ((l = r.readLine()) != null && !l.startsWith("started ")) {
            // the program prints its symbols, then "started"
        }
        assertTrue(l != null, "the launched program ended before it started");
        awaitRegistered(dir, rc);
        run(List.of(bin("mana_status"), "--checkpoint"));
        launched.destroyForcibly();
        launched.waitFor();
        run(List.of(bin("mana_status"), "--quit"));
    }

    /**
     * Waits until the coordinator lists the rank as RUNNING: the program prints "started" from its main while
     * the runtime's thread may still be registering, and a checkpoint asked for before that is refused ("0 of
     * 1 ranks registered", seen on a loaded machine). Each look is one mana_status run; bounded at 60 s.
     */
    static void awaitRegistered(Path dir, Path rc) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String out;
        do {
            ProcessBuilder b = new ProcessBuilder(bin("mana_status"), "--list", "--json").directory(dir.toFile());
            b.environment().keySet().removeIf(k -> k.startsWith("MANA_") || k.startsWith("DMTCP_"));
            b.environment().put("MANA_RC", rc.toString());
            Process p = b.redirectErrorStream(true).start();
            out = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "mana_status --list timed out");
            if (out.contains("\"state\":\"RUNNING\"")) {
                return;
            }
        } while (System.nanoTime() < deadline);
        throw new AssertionError("the launched rank did not register within 60 s: " + out);
    }

    static CheckpointedProgram make(int steps) throws Exception {
        return new CheckpointedProgram(Files.createTempDirectory("mana-debug-model"), steps);
    }

    ProcessBuilder pb(List<String> cmd) {
        ProcessBuilder b = new ProcessBuilder(cmd).directory(dir.toFile());
        b.environment().keySet().removeIf(k -> k.startsWith("MANA_") || k.startsWith("DMTCP_"));
        b.environment().put("MANA_RC", rc.toString());
        return b;
    }

    String run(List<String> cmd) throws Exception {
        Process p = pb(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), cmd + " timed out");
        assertEquals(0, p.exitValue(), cmd + ": " + out);
        return out;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        deleteTree(dir);
    }

    static void deleteTree(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        // a coordinator that is quitting removes its status file meanwhile: a file gone is no failure
        Files.walkFileTree(dir, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult visitFile(Path f, java.nio.file.attribute.BasicFileAttributes a) {
                f.toFile().delete();
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFileFailed(Path f, IOException e) {
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult postVisitDirectory(Path d, IOException e) {
                d.toFile().delete();
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
    }
}
