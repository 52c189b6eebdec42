package dev.mana.inspector.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;

/**
 * Test-side writer of DMTCP v4.0 images, from the format facts in issue 4 only (no DMTCP code):
 * two identical 4096-byte file headers, 4096-byte region headers each optionally followed by data,
 * an end marker; optionally gzip'd as a whole. Bytes after a name's NUL are garbage on purpose.
 */
public final class TestDmtcpImage {
    public static final String SIGNATURE = "DMTCP_CHECKPOINT_IMAGE_v4.0\n";
    public static final int SHARED = 1, PRIVATE = 2, FIXED = 0x10, ANONYMOUS = 0x20;
    public static final long ZERO_PAGE = 1, PARENT = 2, CHILD = 4;

    /** What mtcp_restart --simulate prints for {@link #sample} (any seed), from the description. */
    public static final String SAMPLE_SIMULATE = String.join("\n",
            "DMTCP: DMTCP_CHECKPOINT_IMAGE_v4.0",
            "**** mtcp_restart (will be copied here): 0x7ffff7a00000..0x7ffff7a80000",
            "**** DMTCP entry point (ThreadList::postRestart()): 0x7ffff7e51234",
            "**** brk (sbrk(0)): 0x555555600000",
            "**** vdso: 0x7ffff7fc2000..0x7ffff7fc4000",
            "**** vvar: 0x7ffff7fbe000..0x7ffff7fc2000",
            "**** vvar_vclock: 0x7ffff7fbd000..0x7ffff7fbe000",
            "**** end of stack: 0x7ffffffff000",
            "",
            "**** Listing ckpt image area:",
            "0x80000000-0x80001000 r--p               /lib/ld-linux-x86-64.so.2",
            "0x555555554000-0x555555556000 r-xp               /home/user/ping_pong",
            "0x555555556000-0x555555557000 rw-p               /home/user/ping_pong",
            "0x555555600000-0x555555606000 rw-p Anon          [heap]",
            "0x7ffff7a00000-0x7ffff7a04000 r-xp               /lib/x86_64-linux-gnu/libc.so.6",
            "0x7ffff7c00000-0x7ffff7c01000 rw-s               /dev/shm/mana-shared",
            "0x7ffff7e00000-0x7ffff7e01000 rw-p Anon          ",
            "0x7ffffffde000-0x7ffffffe2000 rw-p Anon          [stack]",
            "");

    public String signature = SIGNATURE;
    public long hostid = 0x1a2b3c4dL;
    public long time = 0x65f0a1b2L;
    public int pid = 31337;
    public int generation = 2;
    public int ppid = 31000;
    public int numPeers = 4;
    public long restoreStart = 0x7ffff7a00000L;
    public long restoreEnd = 0x7ffff7a80000L;
    public long vdsoStart = 0x7ffff7fc2000L;
    public long vdsoEnd = 0x7ffff7fc4000L;
    public long vvarStart = 0x7ffff7fbe000L;
    public long vvarEnd = 0x7ffff7fc2000L;
    public long vclockStart = 0x7ffff7fbd000L;
    public long vclockEnd = 0x7ffff7fbe000L;
    public long brk = 0x555555600000L;
    public long endOfStack = 0x7ffffffff000L;
    public long postRestart = 0x7ffff7e51234L;
    public String procname = "ping_pong";
    public String exe = "/home/user/ping_pong";
    public final List<Area> areas = new ArrayList<>();
    private final Random garbage = new Random(7);

    /** One stored region header (and its data, or null). */
    public static final class Area {
        public long addr;
        public long size;
        public long endAddr;
        public int prot;
        public int flags;
        public long props;
        public long mmapFileSize = -1;
        public long offset;
        public long inode;
        public String name;
        public byte[] data;
    }

    private Area add(long addr, long size, int prot, int flags, long props, String name, byte[] data, long mmapFileSize) {
        Area a = new Area();
        a.addr = addr;
        a.size = size;
        a.endAddr = addr + size;
        a.prot = prot;
        a.flags = flags;
        a.props = props;
        a.name = name;
        a.data = data;
        a.mmapFileSize = mmapFileSize;
        areas.add(a);
        return a;
    }

    /** A file-backed region stored whole (mmapFileSize = its size). */
    public Area file(long addr, int prot, boolean shared, String name, byte[] data) {
        Area a = add(addr, data.length, prot, (shared ? SHARED : PRIVATE), 0, name, data, data.length);
        a.inode = 123456;
        return a;
    }

    /**
     * An anonymous region: a PARENT header, then one CHILD per chunk: null chunk = ZERO_PAGE child of
     * {@code zeroSizes[i]} bytes, else a child with that data.
     */
    public void anon(long addr, int prot, String name, List<byte[]> chunks, long[] zeroSizes) {
        long size = 0;
        for (int i = 0; i < chunks.size(); i++) {
            size += chunks.get(i) == null ? zeroSizes[i] : chunks.get(i).length;
        }
        add(addr, size, prot, PRIVATE | ANONYMOUS, PARENT, name, null, -1);
        long at = addr;
        for (int i = 0; i < chunks.size(); i++) {
            byte[] c = chunks.get(i);
            long n = c == null ? zeroSizes[i] : c.length;
            add(at, n, prot, PRIVATE | ANONYMOUS, CHILD | (c == null ? ZERO_PAGE : 0), name, c, -1);
            at += n;
        }
    }

    public static TestDmtcpImage sample(long seed) {
        Random r = new Random(seed);
        TestDmtcpImage t = new TestDmtcpImage();
        t.file(0x80000000L, 1, false, "/lib/ld-linux-x86-64.so.2", bytes(r, 4096));
        t.file(0x555555554000L, 5, false, "/home/user/ping_pong", bytes(r, 2 * 4096));
        t.file(0x555555556000L, 3, false, "/home/user/ping_pong", bytes(r, 4096));
        t.anon(0x555555600000L, 3, "[heap]", java.util.Arrays.asList(bytes(r, 8192), null, bytes(r, 4096)),
                new long[] {0, 3 * 4096, 0});
        t.file(0x7ffff7a00000L, 5, false, "/lib/x86_64-linux-gnu/libc.so.6", bytes(r, 4 * 4096));
        t.file(0x7ffff7c00000L, 3, true, "/dev/shm/mana-shared", bytes(r, 4096));
        t.anon(0x7ffff7e00000L, 3, "", List.of(bytes(r, 4096)), new long[] {0});
        t.anon(0x7ffffffde000L, 3, "[stack]", java.util.Arrays.asList(null, bytes(r, 2 * 4096)), new long[] {2 * 4096, 0});
        return t;
    }

    public static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    private byte[] fileHeader() {
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        b.put(signature.getBytes(StandardCharsets.ISO_8859_1));
        // upid, uppid, compGroup: hostid, time, pid, generation
        long[][] ids = {{hostid, time, pid, generation}, {hostid, time - 5, ppid, 1}, {hostid, time - 9, 30000, generation}};
        for (int i = 0; i < 3; i++) {
            b.putLong(32 + 24 * i, ids[i][0]).putLong(40 + 24 * i, ids[i][1]).putInt(48 + 24 * i, (int) ids[i][2])
                    .putInt(52 + 24 * i, (int) ids[i][3]);
        }
        b.putInt(104, pid).putInt(108, ppid).putInt(112, pid - 5).putInt(116, pid - 5).putInt(120, pid - 5)
                .putInt(124, 0).putInt(128, numPeers).putInt(132, 1);
        b.putLong(136, 0x10).putLong(144, 0x20).putLong(152, 0x30).putLong(160, 0x40);
        b.putLong(168, restoreStart).putLong(176, restoreEnd).putLong(184, vdsoStart).putLong(192, vdsoEnd)
                .putLong(200, vvarStart).putLong(208, vvarEnd).putLong(216, vclockStart).putLong(224, vclockEnd)
                .putLong(232, brk).putLong(240, endOfStack).putLong(248, postRestart);
        b.put(256, procname.getBytes(StandardCharsets.UTF_8));
        b.put(1280, exe.getBytes(StandardCharsets.UTF_8));
        return b.array();
    }

    private byte[] areaHeader(Area a) {
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        byte[] g = new byte[4096];
        garbage.nextBytes(g);
        b.put(0, g); // stale bytes everywhere a field does not cover
        b.putLong(0, a.addr).putLong(8, a.endAddr).putLong(16, a.size).putLong(24, a.offset)
                .putInt(32, a.prot).putInt(40, a.flags) // i32 in 8-byte slots: upper halves stay garbage
               
                .putLong(48, 8).putLong(56, 1).putLong(64, a.inode).putLong(72, a.mmapFileSize).putLong(80, a.props);
        byte[] n = a.name.getBytes(StandardCharsets.UTF_8);
        b.put(88, n);
        b.put(88 + n.length, (byte) 0);
        return b.array();
    }

    private static Area emptyArea() {
        Area a = new Area();
        a.name = "";
        return a;
    }

    public byte[] bytes() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] h = fileHeader();
        out.write(h);
        out.write(h);
        for (Area a : areas) {
            out.write(areaHeader(a));
            if (a.data != null) {
                out.write(a.data);
            }
        }
        ByteBuffer end = ByteBuffer.wrap(areaHeader(areas.isEmpty() ? emptyArea() : areas.get(0)))
                .order(ByteOrder.LITTLE_ENDIAN);
        end.putLong(0, 0).putLong(16, -1L);
        out.write(end.array());
        return out.toByteArray();
    }

    public static byte[] gzip(byte[] plain) throws IOException {
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(bo)) {
            z.write(plain);
        }
        return bo.toByteArray();
    }

    public Path write(Path p, boolean gz) throws IOException {
        byte[] b = bytes();
        Files.write(p, gz ? gzip(b) : b);
        return p;
    }
}
