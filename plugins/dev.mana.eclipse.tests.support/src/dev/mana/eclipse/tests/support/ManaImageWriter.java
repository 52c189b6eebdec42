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
 * test needs). Used by the core tests, the UI tests and the stand-in runtime's SumTo.
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
        int pid = 4000 + rank;
        long start = 0x555555600000L;
        CRC32C pc = new CRC32C();
        pc.update(payload);
        byte[] name = "[heap]".getBytes(StandardCharsets.UTF_8);
        Out mem = new Out().i64(start).i64(start + payload.length).i32(3).i32(0x2 | 0x10).i64(0).i64(0).i32(0).i32(0)
            .i64(PAGE).i64(payload.length).i32(1).i32(pc.getValue()).i32(name.length).i32(0).bytes(name).pad8()
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
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.writeBytes(new byte[PAGE]);
        file.writeBytes(payload);
        Out table = new Out();
        for (Object[] s : secs) {
            while ((file.size() & 7) != 0) {
                file.write(0);
            }
            byte[] body = (byte[]) s[1];
            table.i32((Integer) s[0]).i32(1).i64(file.size()).i64(body.length).i32(crc(body)).i32((Integer) s[2]);
            file.writeBytes(body);
        }
        long tableOff = file.size();
        file.writeBytes(table.done());
        byte[] img = file.toByteArray();
        Out h = new Out().bytes("MANAIMG1".getBytes(StandardCharsets.US_ASCII)).i32(1).i32(256).i64(img.length)
            .i64(tableOff).i32(secs.length).i32(32).i32(PAGE).i32(0).i32(rank).i32(nranks).i32(generation).i32(pid)
            .i64(1_764_000_000_000_000_000L + generation).i64(payload.length + (stackHi - stackLo)).i64(payload.length).i32(0).i32(0)
            .bytes(fixed("testhost", 64)).bytes(fixed("openmpi", 16)).bytes(fixed(program, 80));
        byte[] hdr = h.done();
        ByteBuffer.wrap(hdr).order(ByteOrder.LITTLE_ENDIAN).putInt(88, (int) crc(hdr));
        System.arraycopy(hdr, 0, img, 0, hdr.length);
        return img;
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
