package dev.mana.eclipse.debug.tests;

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
 * A {@link CheckpointedProgram} restarted with {@code MANA_RESTART_PAUSE=2} by the real bin/mana_restart:
 * the rank's pid from the runtime's "restart pause level 2" line, its image, and its standard output
 * collected (the program's result line).
 */
final class RestartedRank implements AutoCloseable {
    final Process process;
    final long pid;
    final Path image;
    private final List<String> out = new ArrayList<>();

    private final CheckpointedProgram prog;

    RestartedRank(CheckpointedProgram prog) throws Exception {
        this(prog, java.util.Map.of());
    }

    /** As {@link #RestartedRank(CheckpointedProgram)}, with {@code env} added to mana_restart's environment. */
    RestartedRank(CheckpointedProgram prog, java.util.Map<String, String> env) throws Exception {
        this.prog = prog;
        // a coordinator of its own (the program's quit after its checkpoint)
        prog.run(List.of(CheckpointedProgram.bin("mana_coordinator"), "-p", "0", "--no-exit-on-last",
                "--status-file=" + prog.rc));
        ProcessBuilder b = prog.pb(List.of(CheckpointedProgram.bin("mana_restart"), "--restartdir", prog.ckpt.toString()));
        b.environment().put("MANA_RESTART_PAUSE", "2");
        b.environment().putAll(env);
        process = b.start();
        BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream()));
        String l;
        while ((l = err.readLine()) != null && !l.contains("restart pause level 2")) {
            // the runtime's lines before the pause
        }
        if (l == null) {
            throw new IOException("the restarted rank ended before its restart pause");
        }
        pid = Long.parseLong(l.replaceAll(".* pid (\\d+) waits.*", "$1"));
        drain(err, null);
        drain(new BufferedReader(new InputStreamReader(process.getInputStream())), out);
        try (Stream<Path> s = Files.list(prog.ckpt.resolve("ckpt_rank_0"))) {
            image = s.filter(p -> p.toString().endsWith(".mana")).findFirst().orElseThrow();
        }
    }

    private static void drain(BufferedReader r, List<String> into) {
        Thread t = new Thread(() -> {
            try {
                String x;
                while ((x = r.readLine()) != null) {
                    if (into != null) {
                        synchronized (into) {
                            into.add(x);
                            into.notifyAll();
                        }
                    }
                }
            } catch (IOException e) {
                // closed
            }
        }, "restarted rank output");
        t.setDaemon(true);
        t.start();
    }

    /** Waits for the process to end (bounded) and returns its exit status. */
    int awaitExit(int seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("the restarted rank did not end within " + seconds + " s");
        }
        return process.exitValue();
    }

    /** Whether the program printed {@code line}, once its output has ended. */
    boolean printed(String line) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        synchronized (out) {
            while (!out.contains(line) && System.nanoTime() < deadline) {
                out.wait(100);
            }
            return out.contains(line);
        }
    }

    List<String> output() {
        synchronized (out) {
            return List.copyOf(out);
        }
    }

    @Override
    public void close() throws Exception {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        Process q = prog.pb(List.of(CheckpointedProgram.bin("mana_status"), "--quit")).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        q.waitFor(10, TimeUnit.SECONDS);
    }
}
