package dev.mana.eclipse.tests.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * A small, well-formed checkpoint image of our format v1 (docs/image-format.md), for tests: the
 * header (rank, nranks, generation, program), one saved anonymous region holding {@code content}
 * (padded to whole pages), one thread and its (zero) stack, no files, no signal handlers. Shares no code
 * with the reader (after image-inspector's test-side TestManaImage, reduced to what a checkpoint-directory
 * test needs). Used by the core tests and the UI tests.
 */
public final class ManaImageWriter {
    private static final int PAGE = 4096;

    private ManaImageWriter() {}

    /** Writes the image to {@code file} (its folder is created) and returns {@code file}. */
    public static Path write(Path file, String program, int rank, int nranks, int generation, byte[] content)
            throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, bytes(program, rank, nranks, generation, content));
        return file;
    }

    public static byte[] bytes(String program, int rank, int nranks, int generation, byte[] content) {
        int pages = Math.max(1, (content.length + PAGE - 1) / PAGE);
        byte[] payload = new byte[pages * PAGE];
        System.arraycopy(content, 0, payload, 0, content.length);
        CRC32C pc = new CRC32C();
        pc.update(payload);
        byte[][] hdrTail = metadata(program, rank, nranks, generation, payload.length, pc.getValue());
        byte[] img = new byte[PAGE + payload.length + hdrTail[1].length];
        System.arraycopy(hdrTail[0], 0, img, 0, hdrTail[0].length);
        System.arraycopy(payload, 0, img, PAGE, payload.length);
        System.arraycopy(hdrTail[1], 0, img, PAGE + payload.length, hdrTail[1].length);
        return img;
    }

    /**
     * A large image written as a stream (never whole in memory): the heap region holds {@code payloadBytes}
     * (rounded up to pages) of pseudo-random bytes from {@code seed}, every byte written (no sparse file),
     * so reading it costs what reading a real image of that size costs.
     */
    public static Path writeLarge(Path file, String program, int rank, int nranks, int generation, long payloadBytes,
            long seed) throws IOException {
        long len = Math.max(PAGE, (payloadBytes + PAGE - 1) / PAGE * PAGE);
        Files.createDirectories(file.toAbsolutePath().getParent());
        CRC32C pc = new CRC32C();
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING,
                java.nio.file.StandardOpenOption.WRITE)) {
            ByteBuffer chunk = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
            long pos = PAGE;
            while (pos < PAGE + len) {
                chunk.clear();
                int n = (int) Math.min(chunk.capacity(), PAGE + len - pos);
                while (chunk.position() < n) {
                    chunk.putLong(rnd.nextLong());
                }
                chunk.flip();
                pc.update(chunk.duplicate());
                while (chunk.hasRemaining()) {
                    pos += ch.write(chunk, pos);
                }
            }
            byte[][] hdrTail = metadata(program, rank, nranks, generation, len, pc.getValue());
            ch.write(ByteBuffer.wrap(hdrTail[1]), PAGE + len);
            ByteBuffer page0 = ByteBuffer.allocate(PAGE);
            page0.put(hdrTail[0]).rewind();
            ch.write(page0, 0);
        }
        return file;
    }

    /**
     * The header page's first 256 bytes and everything after the payload (sections, table) for a payload of
     * {@code payloadLength} bytes at offset 4096 with checksum {@code payloadCrc}.
     */
    private static byte[][] metadata(String program, int rank, int nranks, int generation, long payloadLength,
            long payloadCrc) {
        long pages = payloadLength / PAGE;
        int pid = 4000 + rank;
        long start = 0x555555600000L;
        byte[] name = "[heap]".getBytes(StandardCharsets.UTF_8);
        Out mem = new Out().i64(start).i64(start + payloadLength).i32(3).i32(0x2 | 0x10).i64(0).i64(0).i32(0).i32(0)
            .i64(PAGE).i64(payloadLength).i32(1).i32(payloadCrc).i32(name.length).i32(0).bytes(name).pad8()
            .i64(0).i64(pages);
        long fs = 0x7ffff7d8a740L, stackLo = 0x7ffffffde000L, stackHi = 0x7ffffffe2000L, rsp = 0x7ffffffe1000L;
        byte[] stackName = "[stack]".getBytes(StandardCharsets.UTF_8);
        // the thread's stack: mapped, all zero pages (nothing stored)
        mem.i64(stackLo).i64(stackHi).i32(3).i32(0x2 | 0x8).i64(0).i64(0).i32(0).i32(0).i64(0).i64(0).i32(0).i32(0)
            .i32(stackName.length).i32(0).bytes(stackName).pad8();
        Out proc = new Out().i32(pid).i32(pid - 1).i32(pid - 2).i32(pid - 2).i32(022).i32(0x2d0).i64(0x7ffff7ff0000L)
            .i64(0x7ffff7fc2000L).i64(0x7ffff7fc4000L).i64(0x7ffff7fc0000L).i64(0x7ffff7fc2000L)
            .i64(0x7fffff000000L).i64(0x7fffff800000L).i64(0x7ffff7fe3290L);
        for (int i = 0; i < 5; i++) {
            proc.i64(0);
        }
        proc.str("/usr/bin/" + program).str("/tmp").i32(1).i32(0).str(program);
        Out thr = new Out().i32(pid).i32(1).i64(fs).i64(0).i64(fs + 0x2d0).i64(stackLo).i64(stackHi).i64(rsp - 0x400)
            .i64(0).i64(0x1000).i64(fs + 0x9e0).i64(24).i64(0).i64(0).i32(2).i32(0);
        for (int g = 0; g < 23; g++) {
            thr.i64(g == 16 ? 0x555555555123L : g == 15 ? rsp : g == 17 ? 0x246 : 0x1000L * g + pid);
        }
        Out sig = new Out().i32(0).i32(0).i64(0);
        // type, body, count: PROCESS, MEMORY, THREADS, FILES, SIGNALS
        Object[][] secs = {{1, proc.done(), 1}, {2, mem.done(), 2}, {3, thr.done(), 1}, {4, new byte[0], 0},
            {5, sig.done(), 0}};
        long base = PAGE + payloadLength; // page-aligned, so 8-aligned
        ByteArrayOutputStream tail = new ByteArrayOutputStream();
        Out table = new Out();
        for (Object[] s : secs) {
            while ((tail.size() & 7) != 0) {
                tail.write(0);
            }
            byte[] body = (byte[]) s[1];
            table.i32((Integer) s[0]).i32(1).i64(base + tail.size()).i64(body.length).i32(crc(body)).i32((Integer) s[2]);
            tail.writeBytes(body);
        }
        long tableOff = base + tail.size();
        tail.writeBytes(table.done());
        long fileSize = base + tail.size();
        Out h = new Out().bytes("MANAIMG1".getBytes(StandardCharsets.US_ASCII)).i32(1).i32(256).i64(fileSize)
            .i64(tableOff).i32(secs.length).i32(32).i32(PAGE).i32(0).i32(rank).i32(nranks).i32(generation).i32(pid)
            .i64(1_764_000_000_000_000_000L + generation).i64(payloadLength + (stackHi - stackLo)).i64(payloadLength).i32(0).i32(0)
            .bytes(fixed("testhost", 64)).bytes(fixed("openmpi", 16)).bytes(fixed(program, 80));
        byte[] hdr = h.done();
        ByteBuffer.wrap(hdr).order(ByteOrder.LITTLE_ENDIAN).putInt(88, (int) crc(hdr));
        return new byte[][] {hdr, tail.toByteArray()};
    }

    private static long crc(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }

    private static byte[] fixed(String s, int n) {
        byte[] b = new byte[n];
        byte[] v = s.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(v, 0, b, 0, Math.min(v.length, n - 1));
        return b;
    }

    /** Little-endian fields, strings as u32 length + bytes padded to 8. */
    private static final class Out {
        private final ByteBuffer b = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);

        Out i32(long v) { b.putInt((int) v); return this; }
        Out i64(long v) { b.putLong(v); return this; }
        Out bytes(byte[] v) { b.put(v); return this; }
        Out pad8() { while ((b.position() & 7) != 0) { b.put((byte) 0); } return this; }
        Out str(String s) {
            byte[] v = s.getBytes(StandardCharsets.UTF_8);
            return i32(v.length).bytes(v).pad8();
        }
        byte[] done() {
            byte[] r = new byte[b.position()];
            b.flip();
            b.get(r);
            return r;
        }
    }
}
