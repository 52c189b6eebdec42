package dev.mana.gdb.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Reads a process's stream line by line on its own thread; tests wait for a line (with a time-out). */
public final class LineWatcher {
    private final List<String> lines = new ArrayList<>();
    private boolean eof;

    public LineWatcher(InputStream in, String name) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    synchronized (this) {
                        lines.add(l);
                        notifyAll();
                    }
                }
            } catch (IOException e) {
                // stream closed
            } finally {
                synchronized (this) {
                    eof = true;
                    notifyAll();
                }
            }
        }, "watch-" + name);
        t.setDaemon(true);
        t.start();
    }

    /** The first line that matches; fails after {@code timeout} or at the end of the stream. */
    public synchronized String await(Predicate<String> match, Duration timeout, String what) throws IOException,
            InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int seen = 0;
        while (true) {
            for (; seen < lines.size(); seen++) {
                if (match.test(lines.get(seen))) {
                    return lines.get(seen);
                }
            }
            long left = deadline - System.nanoTime();
            if (eof) {
                throw new IOException("stream ended without " + what + "; lines: " + lines);
            }
            if (left <= 0) {
                throw new IOException("no " + what + " within " + timeout.toMillis() + " ms; lines: " + lines);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** Waits for the end of the stream. */
    public synchronized List<String> awaitEnd(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!eof) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IOException("stream did not end within " + timeout.toMillis() + " ms; lines: " + lines);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return List.copyOf(lines);
    }

    public synchronized List<String> lines() {
        return List.copyOf(lines);
    }
}
