package dev.mana.inspector.internal;

import dev.mana.inspector.ImageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.LongConsumer;

/**
 * Reads a file once, front to back, in large chunks on a reader thread (so the disk stays busy while
 * the caller's thread checksums), and hands every byte range to the extents that cover it.
 * Memory: {@link #BUFFERS} direct buffers of {@link #CHUNK} bytes, off the Java heap.
 */
final class SequentialVerifier {
    static final int CHUNK = 8 << 20;
    static final int BUFFERS = 4;

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

    private static final class Chunk {
        final long pos;
        final ByteBuffer buf;
        final IOException error;

        Chunk(long pos, ByteBuffer buf, IOException error) {
            this.pos = pos;
            this.buf = buf;
            this.error = error;
        }
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
        BlockingQueue<ByteBuffer> free = new ArrayBlockingQueue<>(BUFFERS);
        BlockingQueue<Chunk> full = new ArrayBlockingQueue<>(BUFFERS + 1);
        for (int i = 0; i < BUFFERS; i++) {
            free.add(ByteBuffer.allocateDirect((int) Math.min(CHUNK, Math.max(4096, size))));
        }
        Thread reader = new Thread(() -> {
            long pos = 0;
            try {
                while (pos < size) {
                    ByteBuffer b = free.take();
                    b.clear();
                    int want = (int) Math.min(b.capacity(), size - pos);
                    b.limit(want);
                    try {
                        while (b.hasRemaining()) {
                            int n = ch.read(b, pos + b.position());
                            if (n < 0) {
                                throw new java.io.EOFException("file ended at " + (pos + b.position()));
                            }
                        }
                    } catch (IOException e) {
                        full.put(new Chunk(pos, null, e));
                        return;
                    }
                    b.flip();
                    full.put(new Chunk(pos, b, null));
                    pos += want;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "mana-inspect-verify-reader");
        reader.setDaemon(true);
        reader.start();
        long done = 0;
        int next = 0;
        List<Extent> active = new ArrayList<>();
        try {
            while (done < size) {
                Chunk c = full.take();
                if (c.error != null) {
                    if (c.error instanceof java.io.EOFException) {
                        throw Fail.truncated("%s (the file shrank while it was read)", c.error.getMessage());
                    }
                    throw Fail.io("read at offset " + c.pos, c.error);
                }
                long cStart = c.pos;
                long cEnd = c.pos + c.buf.limit();
                while (next < sorted.size() && sorted.get(next).start < cEnd) {
                    active.add(sorted.get(next++));
                }
                for (int i = 0; i < active.size(); i++) {
                    Extent e = active.get(i);
                    long s = Math.max(e.start, cStart);
                    long t = Math.min(e.end, cEnd);
                    if (s < t) {
                        e.accept(s, c.buf.slice((int) (s - cStart), (int) (t - s)));
                    }
                    if (e.end <= cEnd) {
                        e.finish();
                        active.remove(i--);
                    }
                }
                done = cEnd;
                free.put(c.buf);
                if (progress != null) {
                    progress.accept(done);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Fail.io("verify", e);
        } finally {
            reader.interrupt();
        }
        // extents reaching past the end of the file (the caller checked bounds; be safe)
        for (Extent e : active) {
            e.finish();
        }
        return done;
    }
}
