package dev.mana.eclipse.ui.tests;

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
import java.util.stream.Stream;

/**
 * gdb-integration's test program ({@code splitapp.c} with {@code libsplitstep.so}) built with gcc -g in
 * {@code dir}, run natively once (its result line), then launched under the real bin/mana_launch with a
 * private coordinator, checkpointed once the coordinator lists it RUNNING, and killed: {@code dir/ck} to
 * restart from. {@link #restartPaused} restarts it with {@code MANA_RESTART_PAUSE=2} outside the IDE.
 */
final class CheckpointedSplitApp implements AutoCloseable {
    final Path root;
    final Path dir;
    final Path app;
    final Path ckpt;
    final Path rc;
    /** The native run's {@code result ...} line. */
    final String nativeResult;
    private final List<Process> started = new ArrayList<>();

    CheckpointedSplitApp(Path root, Path dir, int steps) throws Exception {
        this.root = root;
        this.dir = dir;
        this.app = dir.resolve("splitapp");
        this.ckpt = dir.resolve("ck");
        this.rc = dir.resolve("mana.rc");
        Path src = root.resolve("gdb-integration/src/test/resources/programs");
        Files.copy(src.resolve("splitapp.c"), dir.resolve("splitapp.c"));
        Files.copy(src.resolve("splitstep.c"), dir.resolve("splitstep.c"));
        run(List.of("gcc", "-g", "-O0", "-fPIC", "-shared", "-o", "libsplitstep.so", "splitstep.c"));
        run(List.of("gcc", "-g", "-O0", "-o", "splitapp", "splitapp.c", "-L.", "-lsplitstep", "-pthread",
                "-Wl,-rpath,$ORIGIN"));
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
        awaitRegistered();
        run(List.of(bin("mana_status"), "--checkpoint"));
        launched.destroyForcibly();
        launched.waitFor();
        run(List.of(bin("mana_status"), "--quit"));
    }

    String bin(String name) {
        return root.resolve("bin").resolve(name).toString();
    }

    /**
     * "started" comes from the program's main while the runtime's thread may still be registering; a
     * checkpoint asked for before that is refused. One mana_status a look, bounded at 60 s.
     */
    private void awaitRegistered() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String out;
        do {
            Process p = pb(List.of(bin("mana_status"), "--list", "--json")).redirectErrorStream(true).start();
            out = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "mana_status --list timed out");
            if (out.contains("\"state\":\"RUNNING\"")) {
                return;
            }
        } while (System.nanoTime() < deadline);
        throw new AssertionError("the launched rank did not register within 60 s: " + out);
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

    /** A restart outside the IDE, held at restart pause level 2: its process, the rank's pid and image, its output. */
    record Paused(Process process, long pid, Path image, Path output) {}

    Paused restartPaused() throws Exception {
        run(List.of(bin("mana_coordinator"), "-p", "0", "--no-exit-on-last", "--status-file=" + rc));
        Path out = dir.resolve("restart.out");
        ProcessBuilder b = pb(List.of(bin("mana_restart"), "--restartdir", ckpt.toString()))
                .redirectOutput(out.toFile());
        b.environment().put("MANA_RESTART_PAUSE", "2");
        Process p = b.start();
        started.add(p);
        BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream()));
        String l;
        while ((l = err.readLine()) != null && !l.contains("restart pause level 2")) {
            // the runtime's lines before the pause
        }
        if (l == null) {
            throw new IOException("the restarted rank ended before its restart pause");
        }
        long pid = Long.parseLong(l.replaceAll(".* pid (\\d+) waits.*", "$1"));
        Thread drain = new Thread(() -> {
            try {
                err.transferTo(java.io.Writer.nullWriter());
            } catch (IOException e) {
                // closed
            }
        }, "restarted rank stderr");
        drain.setDaemon(true);
        drain.start();
        try (Stream<Path> s = Files.list(ckpt.resolve("ckpt_rank_0"))) {
            return new Paused(p, pid, s.filter(x -> x.toString().endsWith(".mana")).findFirst().orElseThrow(), out);
        }
    }

    @Override
    public void close() throws Exception {
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        Process q = pb(List.of(bin("mana_status"), "--quit")).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        q.waitFor(10, TimeUnit.SECONDS);
    }

    /** Deletes a folder tree; a file gone meanwhile (a quitting coordinator's status file) is no failure. */
    static void deleteTree(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
