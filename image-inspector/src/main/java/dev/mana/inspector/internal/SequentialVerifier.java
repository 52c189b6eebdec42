package dev.mana.inspector.internal;

import dev.mana.inspector.ImageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Reads a file once, front to back, in large chunks on reader threads (several reads in flight, so the
 * disk stays busy while the caller's thread checksums), and hands every byte range, in file order, to
 * the extents that cover it. Memory: {@link #BUFFERS} direct buffers of {@link #CHUNK} bytes, off the
 * Java heap.
 */
final class SequentialVerifier {
    /** Read size; the system property mana.inspect.chunkMiB overrides it (benchmarking). */
    static final int CHUNK = Integer.getInteger("mana.inspect.chunkMiB", 8) << 20;
    /** Reads in flight: more than one keeps a virtual disk's queue busy (property mana.inspect.readers). */
    static final int READERS = Math.max(1, Integer.getInteger("mana.inspect.readers", 2));
    static final int BUFFERS = READERS + 3;

    /** Receives the bytes of [start, end) of the file, in order, in pieces. */
    abstract static class Extent {
        final long start;
        final long end;

        Extent(long start, long end) {
            this.start = start;
            this.end = end;
        }

        /** {@code piece} holds file bytes starting at file offset {@code pos}. */
        abstract void accept(long pos, ByteBuffer piece);

        /** Called once all bytes were delivered. */
        abstract void finish();
    }

    private SequentialVerifier() {
    }

    /** A small file: one read, no reader thread. */
    private static long small(FileChannel ch, long size, List<Extent> sorted, LongConsumer progress)
            throws ImageException {
        ByteBuffer b = ByteBuffer.allocate((int) size);
        ManaImageReader.readFully(ch, 0, b, "image");
        b.flip();
        for (Extent e : sorted) {
            long s = Math.max(0, e.start);
            long t = Math.min(size, e.end);
            if (s < t) {
                e.accept(s, b.slice((int) s, (int) (t - s)));
            }
            e.finish();
        }
        if (progress != null) {
            progress.accept(size);
        }
        return size;
    }

    /** Streams [0, size) of {@code ch} through {@code extents}; returns bytes read. */
    static long run(FileChannel ch, long size, List<Extent> extents, LongConsumer progress) throws ImageException {
        List<Extent> sorted = new ArrayList<>(extents);
        sorted.removeIf(e -> e.end <= e.start);
        sorted.sort(Comparator.comparingLong((Extent e) -> e.start));
        if (size <= CHUNK) {
            return small(ch, size, sorted, progress);
        }
        int chunk = CHUNK;
        long nChunks = (size + chunk - 1) / chunk;
        int slots = BUFFERS;
        ByteBuffer[] bufs = new ByteBuffer[slots];
        IOException[] errors = new IOException[slots];
        // slot s holds chunk k (k % slots == s); ready[s] = the chunk it holds, once read.
        // A reader may fill slot s for chunk k only after chunk k - slots was consumed.
        long[] ready = new long[slots];
        Arrays.fill(ready, -1);
        long[] consumed = {0};
        Object lock = new Object();
        for (int i = 0; i < slots; i++) {
            bufs[i] = ByteBuffer.allocateDirect(chunk);
        }
        AtomicLong next = new AtomicLong();
        List<Thread> readers = new ArrayList<>();
        for (int j = 0; j < READERS; j++) {
            Thread t = new Thread(() -> {
                try {
                    for (long k = next.getAndIncrement(); k < nChunks; k = next.getAndIncrement()) {
                        int s = (int) (k % slots);
                        synchronized (lock) {
                            while (consumed[0] < k - slots + 1) {
                                lock.wait();
                            }
                        }
                        ByteBuffer b = bufs[s];
                        long pos = k * chunk;
                        b.clear();
                        b.limit((int) Math.min(chunk, size - pos));
                        try {
                            while (b.hasRemaining()) {
                                int n = ch.read(b, pos + b.position());
                                if (n < 0) {
                                    throw new java.io.EOFException("file ended at " + (pos + b.position()));
                                }
                            }
                            b.flip();
                        } catch (IOException e) {
                            errors[s] = e;
                        }
                        synchronized (lock) {
                            ready[s] = k;
                            lock.notifyAll();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "mana-inspect-verify-reader-" + j);
            t.setDaemon(true);
            t.start();
            readers.add(t);
        }
        long done = 0;
        int nextExtent = 0;
        List<Extent> active = new ArrayList<>();
        try {
            for (long k = 0; k < nChunks; k++) {
                int s = (int) (k % slots);
                synchronized (lock) {
                    while (ready[s] != k) {
                        lock.wait();
                    }
                }
                if (errors[s] != null) {
                    IOException e = errors[s];
                    if (e instanceof java.io.EOFException) {
                        throw Fail.truncated("%s (the file shrank while it was read)", e.getMessage());
                    }
                    throw Fail.io("read at offset " + k * chunk, e);
                }
                ByteBuffer buf = bufs[s];
                long cStart = k * chunk;
                long cEnd = cStart + buf.limit();
                while (nextExtent < sorted.size() && sorted.get(nextExtent).start < cEnd) {
                    active.add(sorted.get(nextExtent++));
                }
                for (int i = 0; i < active.size(); i++) {
                    Extent e = active.get(i);
                    long a = Math.max(e.start, cStart);
                    long t = Math.min(e.end, cEnd);
                    if (a < t) {
                        e.accept(a, buf.slice((int) (a - cStart), (int) (t - a)));
                    }
                    if (e.end <= cEnd) {
                        e.finish();
                        active.remove(i--);
                    }
                }
                done = cEnd;
                synchronized (lock) {
                    consumed[0] = k + 1;
                    lock.notifyAll();
                }
                if (progress != null) {
                    progress.accept(done);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Fail.io("verify", e);
        } finally {
            for (Thread t : readers) {
                t.interrupt();
            }
        }
        // extents reaching past the end of the file (the caller checked bounds; be safe)
        for (Extent e : active) {
            e.finish();
        }
        return done;
    }
}
