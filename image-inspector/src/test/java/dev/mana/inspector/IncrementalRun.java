package dev.mana.inspector;

import dev.mana.testing.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The runtime's incrmem test program (core-native/tests/process/incrmem.c) under {@code mana_launch --incremental},
 * checkpointed without a coordinator as core-native/tests/process/incr_test.sh does it (MANA_NO_COORD, MANA_DEBUG:
 * signal 40 takes a checkpoint). The program changes its memory at step g, prints "ready g" and waits for the file
 * go_g; the caller checkpoints it in between.
 */
final class IncrementalRun implements AutoCloseable {
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(60);
    private final Process process;
    private final Path data;
    private final Path rankDir;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path err;

    private IncrementalRun(Process process, Path data, Path rankDir, Path err) {
        this.process = process;
        this.data = data;
        this.rankDir = rankDir;
        this.err = err;
        Thread t = new Thread(this::pump, "incrmem stdout");
        t.setDaemon(true);
        t.start();
    }

    /** Starts incrmem for {@code gens} steps with its images in {@code work}/ck; {@code fullEvery}: every n-th image is full. */
    static IncrementalRun start(Path root, Path work, int gens, int fullEvery) throws IOException {
        Path data = Files.createDirectories(work.resolve("data"));
        Path err = work.resolve("incrmem.err");
        ProcessBuilder pb = new ProcessBuilder(root.resolve("bin/mana_launch").toString(), "--incremental", "--ckptdir",
                work.resolve("ck").toString(), root.resolve("core-native/build/tests/process/incrmem").toString(),
                data.toString(), Integer.toString(gens));
        for (String v : new String[] {"MANA_COORD_HOST", "MANA_COORD_PORT", "MANA_COORD_SECRET", "MANA_CKPT_DIR",
            "MANA_COMPRESS", "MANA_FORKED", "MANA_QUIET"}) {
            pb.environment().remove(v);
        }
        pb.environment().put("MANA_NO_COORD", "1");
        pb.environment().put("MANA_DEBUG", "1");
        pb.environment().put("MANA_INCREMENTAL", "1");
        pb.environment().put("MANA_INCREMENTAL_FULL_EVERY", Integer.toString(fullEvery));
        pb.redirectError(err.toFile());
        return new IncrementalRun(pb.start(), data, work.resolve("ck/ckpt_rank_0"), err);
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l; (l = r.readLine()) != null; ) {
                lines.add(l);
            }
        } catch (IOException ignored) {
            // the process went away; awaitLine reports what it lacked
        }
    }

    /** Waits (bounded) for the program to print {@code line}. */
    void awaitLine(String line) throws Exception {
        long deadline = System.nanoTime() + WAIT_NS;
        for (String l; (l = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) != null; ) {
            if (l.equals(line) || l.startsWith("FAIL")) {
                if (l.equals(line)) {
                    return;
                }
                throw new AssertionError("incrmem: " + l + "\n" + stderr());
            }
        }
        throw new AssertionError("incrmem did not print '" + line + "' within 60 s\n" + stderr());
    }

    /** The image of generation g in the rank folder. */
    Path image(int g) {
        return rankDir.resolve("ckpt_incrmem_gen" + g + ".mana");
    }

    /** Signals a checkpoint and waits (bounded) until image g is committed (renamed into place). */
    Path checkpoint(int g) throws Exception {
        new ProcessBuilder("kill", "-40", Long.toString(process.pid())).inheritIO().start().waitFor();
        Await.until(Duration.ofNanos(WAIT_NS), "the image of generation " + g + " (" + image(g) + ")", () -> {
            if (Files.exists(image(g))) {
                return true;
            }
            if (!process.isAlive()) {
                throw new AssertionError("incrmem ended without an image of generation " + g + "\n" + stderr());
            }
            return false;
        }, this::stderr);
        return image(g);
    }

    /** Lets the program go on to its next step. */
    void release(int g) throws IOException {
        Files.createFile(data.resolve("go_" + g));
    }

    String stderr() {
        try {
            return Files.exists(err) ? Files.readString(err) : "";
        } catch (IOException e) {
            return "(stderr unreadable: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }
}
