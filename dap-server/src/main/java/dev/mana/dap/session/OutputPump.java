package dev.mana.dap.session;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Copies one stream of a process the adapter started (the rank's stdout or stderr, or mpirun's) to the
 * client as {@code output} events, as the text arrives: a prompt without a newline is shown too.
 *
 * <p>The thread is not a daemon, on purpose: after a {@code disconnect} that leaves the rank running,
 * the adapter keeps reading its output until it ends. Were the pipe closed, the rank would die of
 * SIGPIPE at its next write; so the adapter process lives as long as the ranks it started.
 */
final class OutputPump {
    private final Thread thread;
    private final CountDownLatch done = new CountDownLatch(1);

    /**
     * @param sink receives (category, text): {@code stdout} or {@code stderr}, and the decoded text. Its
     *             failures (a client gone) are ignored: reading must go on for the reason above.
     */
    OutputPump(InputStream in, String category, String name, BiConsumer<String, String> sink) {
        thread = new Thread(() -> pump(in, category, sink), name);
        thread.setDaemon(false);
    }

    void start() {
        thread.start();
    }

    private void pump(InputStream in, String category, BiConsumer<String, String> sink) {
        byte[] buf = new byte[8192];
        // bytes of a UTF-8 sequence cut by the buffer's end wait for the next read
        byte[] carry = new byte[0];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                byte[] all = new byte[carry.length + n];
                System.arraycopy(carry, 0, all, 0, carry.length);
                System.arraycopy(buf, 0, all, carry.length, n);
                int cut = completeUtf8Prefix(all);
                carry = java.util.Arrays.copyOfRange(all, cut, all.length);
                if (cut > 0) {
                    emit(sink, category, new String(all, 0, cut, StandardCharsets.UTF_8));
                }
            }
            if (carry.length > 0) {
                emit(sink, category, new String(carry, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // the process ended or the stream was closed: nothing more to copy
        } finally {
            done.countDown();
        }
    }

    private static void emit(BiConsumer<String, String> sink, String category, String text) {
        try {
            sink.accept(category, text);
        } catch (RuntimeException e) {
            // the client is gone; keep draining the pipe
        }
    }

    /** The length of the longest prefix of {@code b} that ends on a whole UTF-8 sequence. */
    static int completeUtf8Prefix(byte[] b) {
        int i = b.length;
        // look back at most 3 bytes for the start of a sequence that is not complete
        for (int back = 1; back <= Math.min(3, b.length); back++) {
            int c = b[b.length - back] & 0xff;
            if ((c & 0xc0) == 0x80) {
                continue; // continuation byte
            }
            int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
            return len > back ? b.length - back : i;
        }
        return i;
    }

    /** Waits until the stream has ended (the process and its children closed it); false on time-out. */
    boolean awaitEnd(Duration timeout) throws InterruptedException {
        return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
