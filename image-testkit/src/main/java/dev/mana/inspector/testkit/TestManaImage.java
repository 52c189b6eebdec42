package dev.mana.inspector.testkit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The test kit's writer of our image format v1, written from docs/image-format.md alone (it shares no code
 * with the readers). Builds images in memory; {@link #write} lays them out as the doc says: header page,
 * payloads from 4096 (zero pages skipped, runs), sections, section table, header last. {@link #sample} is a
 * typical small process; {@link ManaImageWriter} has the one-call images the directory tests use.
 */
public final class TestManaImage {
    public static final int PAGE = 4096;
    // region flags, from the doc
    public static final int SHARED = 0x1, ANON = 0x2, FILE = 0x4, STACK = 0x8, HEAP = 0x10, VDSO = 0x20, VVAR = 0x40,
            LOWER = 0x80, GUARD = 0x100;

    public String program = "hello";
    public String host = "testhost";
    public String mpi = "openmpi";
    public int rank = 0;
    public int nranks = 2;
    public int generation = 1;
    public int pid = 4242;
    public long timeNs = 1_764_000_000_123_456_789L;
    public String exe = "/home/user/hello";
    public String cwd = "/home/user";
    public List<String> argv = new ArrayList<>(List.of("./hello", "--size", "8"));
    public byte[] mpiSection;
    public int mpiCount = 3;
    public final List<Region> regions = new ArrayList<>();
    public final List<long[]> threads = new ArrayList<>();
    public final List<FileRec> files = new ArrayList<>();
    public final List<long[]> sigactions = new ArrayList<>();
    public final List<long[]> timers = new ArrayList<>();
    public long pending = 0;
    /** Extra section entries (type, bytes) for "unknown section" tests. */
    public final List<Object[]> extraSections = new ArrayList<>();

    /** A region; {@code content} is the whole region's bytes for a saved region, null otherwise. */
    public static final class Region {
        public long start;
        public long end;
        public int prot;
        public int flags;
        public String name;
        public byte[] content;
        public long fileOffset;
        public long inode;
        public int devMajor;
        public int devMinor;
        /** When > 0: a region whose stored pages are a hole of this many bytes in the file (sparse, CRC 0). */
        public long hugeStored;
        /**
         * With {@link #hugeStored}: the stored pages are pseudo-random bytes from this seed instead of a hole,
         * every byte written and the CRC right (an image as costly to read as a real one of that size).
         */
        public Long fillSeed;
        /** Store every page of {@link #content}, zero pages too (as a writer that does not look for them). */
        public boolean storeZeroPages;
        /**
         * With {@link #hugeStored} and {@link #fillSeed}: every {@code holeEvery}-th page of the region (index
         * {@code holeEvery - 1}, {@code 2 * holeEvery - 1}, ...) is a zero page, not stored, so the region has
         * many runs (0: one run). {@link #fillRegion} sets the region's end to match.
         */
        public int holeEvery;
    }

    /** Write {@link #write}'s file to the disk (fsync) before returning, as the runtime's writer does. */
    public boolean fsync;

    /** Pseudo-random payloads laid out by the last {@link #layout()}: offset, length, seed. */
    private final List<long[]> fills = new ArrayList<>();

    /** Feeds {@code len} pseudo-random bytes from {@code seed} to {@code sink} in pieces of at most 1 MiB. */
    private static void fill(long len, long seed, java.util.function.Consumer<ByteBuffer> sink) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        ByteBuffer chunk = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
        for (long left = len; left > 0;) {
            int n = (int) Math.min(chunk.capacity(), left);
            chunk.clear();
            while (chunk.position() < n) {
                chunk.putLong(rnd.nextLong());
            }
            chunk.flip();
            sink.accept(chunk);
            left -= n;
        }
    }

    /** The file as positioned pieces (so a huge sparse payload costs nothing). */
    private static final class Chunks {
        final List<Object[]> parts = new ArrayList<>();
        final java.io.ByteArrayOutputStream cur = new java.io.ByteArrayOutputStream();
        long curBase;

        long position() { return curBase + cur.size(); }
        void put(byte[] b) { cur.write(b, 0, b.length); }
        void put(byte[] b, int off, int len) { cur.write(b, off, len); }
        void skip(long n) {
            parts.add(new Object[] {curBase, cur.toByteArray()});
            curBase = position() + n;
            cur.reset();
        }
        List<Object[]> finish() {
            parts.add(new Object[] {curBase, cur.toByteArray()});
            return parts;
        }
    }

    public static final class FileRec {
        public int fd;
        public int kind;
        public int openFlags;
        public int fdFlags;
        public long offset;
        public long size;
        public String path;
    }

    public Region region(long start, long size, int prot, int flags, String name, byte[] content) {
        Region r = new Region();
        r.start = start;
        r.end = start + size;
        r.prot = prot;
        r.flags = flags;
        r.name = name;
        r.content = content;
        regions.add(r);
        return r;
    }

    /**
     * A saved anonymous region of {@code storedBytes} (rounded up to pages) of pseudo-random bytes from
     * {@code seed}, every byte written by {@link #write} (no sparse file); with {@code holeEvery} &gt; 1 every
     * {@code holeEvery}-th page is a zero page that is not stored (the region is longer than what it stores).
     */
    public Region fillRegion(long start, long storedBytes, long seed, int holeEvery) {
        long pages = Math.max(1, (storedBytes + PAGE - 1) / PAGE);
        long span = holeEvery > 1 ? pages + (pages - 1) / (holeEvery - 1) : pages;
        Region r = region(start, span * PAGE, 3, ANON, "", null);
        r.hugeStored = pages * PAGE;
        r.fillSeed = seed;
        r.holeEvery = holeEvery > 1 ? holeEvery : 0;
        return r;
    }

    /** Thread record: tid, flags, fs_base, stack [lo, hi), and rip/rsp for the registers. */
    public void thread(int tid, int flags, long fsBase, long stackLo, long stackHi, long rip, long rsp) {
        threads.add(new long[] {tid, flags, fsBase, stackLo, stackHi, rip, rsp});
    }

    public FileRec file(int fd, int kind, int openFlags, long offset, String path) {
        FileRec f = new FileRec();
        f.fd = fd;
        f.kind = kind;
        f.openFlags = openFlags;
        f.offset = offset;
        f.size = offset * 2;
        f.path = path;
        files.add(f);
        return f;
    }

    public void sigaction(int signo, long handler, long flags, long mask) {
        sigactions.add(new long[] {signo, handler, flags, 0x7f0000001000L, mask});
    }

    public void timer(int which, long intervalNs, long valueNs) {
        timers.add(new long[] {which, intervalNs, valueNs});
    }

    /** A typical small process: text, data, heap with zero pages, stack, lower half, vdso, a guard. */
    public static TestManaImage sample(long seed) {
        TestManaImage t = new TestManaImage();
        java.util.Random rnd = new java.util.Random(seed);
        t.region(0x555555554000L, 2 * PAGE, 5, FILE, "/home/user/hello", random(rnd, 2 * PAGE, 0));
        byte[] data = random(rnd, 3 * PAGE, 0);
        java.util.Arrays.fill(data, PAGE, 2 * PAGE, (byte) 0); // a zero page in the middle
        t.region(0x555555556000L, 3 * PAGE, 3, FILE, "/home/user/hello", data);
        byte[] heap = new byte[8 * PAGE];
        for (int p : new int[] {0, 1, 5}) {
            byte[] pg = random(rnd, PAGE, 0);
            System.arraycopy(pg, 0, heap, p * PAGE, PAGE);
        }
        t.region(0x555555600000L, 8 * PAGE, 3, ANON | HEAP, "[heap]", heap);
        t.region(0x7f0000000000L, 16 * PAGE, 3, ANON | LOWER, "", null);
        t.region(0x7f0000100000L, 4 * PAGE, 0, ANON | GUARD, "", null);
        t.region(0x7ffff7a00000L, 4 * PAGE, 5, FILE, "/usr/lib/x86_64-linux-gnu/libc.so.6", random(rnd, 4 * PAGE, 0));
        t.region(0x7ffff7fc0000L, 2 * PAGE, 1, VVAR, "[vvar]", null);
        t.region(0x7ffff7fc2000L, 2 * PAGE, 5, VDSO, "[vdso]", null);
        byte[] stack = new byte[4 * PAGE];
        System.arraycopy(random(rnd, 2 * PAGE, 0), 0, stack, 2 * PAGE, 2 * PAGE);
        t.region(0x7ffffffde000L, 4 * PAGE, 3, ANON | STACK, "[stack]", stack);
        t.thread(4242, 1, 0x7ffff7d8a740L, 0x7ffffffde000L, 0x7ffffffe2000L, 0x555555555123L, 0x7ffffffe1000L);
        t.thread(4243, 2, 0x7ffff7589640L, 0x7ffffffde000L, 0x7ffffffe2000L, 0x7ffff7a01234L, 0x7ffffffe0f00L);
        t.file(0, 3, 2, 0, "/dev/pts/0");
        t.file(1, 3, 1, 0, "/dev/pts/0").fdFlags = 0x100; // inherited from the launcher
        t.file(3, 1, 02101, 1234, "/home/user/out.txt");
        t.sigaction(10, 0x555555555400L, 0x14000000L, 0);
        t.sigaction(13, 1, 0, 0);
        t.timer(0, 1_000_000_000L, 250_000_000L);
        t.mpiSection = random(rnd, 300, 0);
        return t;
    }

    public static byte[] random(java.util.Random rnd, int n, int unused) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        // keep every page non-zero for sure
        for (int i = 0; i < n; i += PAGE) {
            b[i] = (byte) 0x5a;
        }
        return b;
    }

    // ---- layout ----

    private static boolean zeroPage(byte[] b, int page) {
        for (int i = page * PAGE; i < (page + 1) * PAGE; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** Little-endian bytes, growing as needed. */
    private static final class Out {
        ByteBuffer b;

        Out(int cap) {
            b = ByteBuffer.allocate(cap).order(ByteOrder.LITTLE_ENDIAN);
        }

        private ByteBuffer room(int n) {
            if (b.remaining() < n) {
                ByteBuffer g = ByteBuffer.allocate(Math.max(2 * b.capacity(), b.position() + n)).order(ByteOrder.LITTLE_ENDIAN);
                b.flip();
                g.put(b);
                b = g;
            }
            return b;
        }

        Out i32(long v) { room(4).putInt((int) v); return this; }
        Out i64(long v) { room(8).putLong(v); return this; }
        Out bytes(byte[] v) { room(v.length).put(v); return this; }
        Out pad8() { while ((b.position() & 7) != 0) { room(1).put((byte) 0); } return this; }
        Out str(String s) {
            byte[] v = s.getBytes(StandardCharsets.UTF_8);
            i32(v.length);
            bytes(v);
            return pad8();
        }
        byte[] done() {
            byte[] r = new byte[b.position()];
            b.flip();
            b.get(r);
            return r;
        }
    }

    private static long crc(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }

    /** Lays the image out as bytes (not for images with a huge region: use {@link #write}). */
    public byte[] bytes() {
        List<Object[]> parts = layout();
        long size = 0;
        for (Object[] p : parts) {
            size = Math.max(size, (Long) p[0] + ((byte[]) p[1]).length);
        }
        byte[] out = new byte[Math.toIntExact(size)];
        for (Object[] p : parts) {
            byte[] b = (byte[]) p[1];
            System.arraycopy(b, 0, out, (int) (long) (Long) p[0], b.length);
        }
        for (long[] f : fills) {
            int[] at = {(int) f[0]};
            fill(f[1], f[2], b -> {
                int n = b.remaining();
                b.get(out, at[0], n);
                at[0] += n;
            });
        }
        return out;
    }

    private List<Object[]> layout() {
        fills.clear();
        Chunks file = new Chunks();
        file.put(new byte[PAGE]);
        Out mem = new Out(1 << 20);
        long mapped = 0;
        long storedAll = 0;
        for (Region r : regions) {
            List<long[]> runs = new ArrayList<>();
            long payload = 0;
            long stored = 0;
            CRC32C c = new CRC32C();
            boolean saved = (r.flags & (LOWER | VDSO | VVAR | GUARD)) == 0;
            if (saved) {
                mapped += r.end - r.start;
            }
            if (r.hugeStored > 0) {
                payload = file.position();
                long pages = r.hugeStored / PAGE;
                if (r.holeEvery > 1 && r.fillSeed != null) {
                    for (long first = 0, left = pages; left > 0; first += r.holeEvery) {
                        long n = Math.min(left, r.holeEvery - 1);
                        runs.add(new long[] {first, n});
                        left -= n;
                    }
                } else {
                    runs.add(new long[] {0, pages});
                }
                stored = r.hugeStored;
                file.skip(r.hugeStored);
                if (r.fillSeed != null) {
                    fills.add(new long[] {payload, r.hugeStored, r.fillSeed});
                    fill(r.hugeStored, r.fillSeed, c::update);
                }
            } else if (r.content != null && saved) {
                int pages = (int) ((r.end - r.start) / PAGE);
                payload = file.position();
                for (int p = 0; p < pages; p++) {
                    if (!r.storeZeroPages && zeroPage(r.content, p)) {
                        continue;
                    }
                    if (!runs.isEmpty() && runs.get(runs.size() - 1)[0] + runs.get(runs.size() - 1)[1] == p) {
                        runs.get(runs.size() - 1)[1]++;
                    } else {
                        runs.add(new long[] {p, 1});
                    }
                    file.put(r.content, p * PAGE, PAGE);
                    c.update(r.content, p * PAGE, PAGE);
                    stored += PAGE;
                }
                if (stored == 0) {
                    payload = 0;
                }
            }
            storedAll += stored;
            byte[] name = r.name.getBytes(StandardCharsets.UTF_8);
            mem.i64(r.start).i64(r.end).i32(r.prot).i32(r.flags).i64(r.fileOffset).i64(r.inode).i32(r.devMajor)
                    .i32(r.devMinor).i64(payload).i64(stored).i32(runs.size())
                    .i32(stored == 0 || (r.hugeStored > 0 && r.fillSeed == null) ? 0 : c.getValue())
                    .i32(name.length).i32(0).bytes(name).pad8();
            for (long[] run : runs) {
                mem.i64(run[0]).i64(run[1]);
            }
        }
        Out proc = new Out(1 << 16);
        proc.i32(pid).i32(pid - 1).i32(pid - 2).i32(pid - 2).i32(022).i32(0x2d0).i64(0x7ffff7ff0000L)
                .i64(0x7ffff7fc2000L).i64(0x7ffff7fc4000L).i64(0x7ffff7fc0000L).i64(0x7ffff7fc2000L)
                .i64(0x7fffff000000L).i64(0x7fffff800000L).i64(0x7ffff7fe3290L);
        for (int i = 0; i < 5; i++) {
            proc.i64(0);
        }
        proc.str(exe).str(cwd).i32(argv.size()).i32(0);
        for (String a : argv) {
            proc.str(a);
        }
        Out thr = new Out(1 << 16);
        for (long[] t : threads) {
            thr.i32(t[0]).i32(t[1]).i64(t[2]).i64(0).i64(t[2] + 0x2d0).i64(t[3]).i64(t[4])
                    .i64((t[1] & 2) != 0 ? 0 : t[6] - 0x400).i64((t[1] & 2) != 0 ? t[6] - 0x200 : 0)
                    .i64(0x1000).i64(t[2] + 0x9e0).i64(24).i64(0).i64(0).i32(2).i32(0);
            for (int g = 0; g < 23; g++) {
                long v = g == 16 ? t[5] : g == 15 ? t[6] : g == 17 ? 0x246 : 0x1000L * g + t[0];
                thr.i64(v);
            }
        }
        Out fil = new Out(1 << 16);
        for (FileRec f : files) {
            byte[] p = f.path.getBytes(StandardCharsets.UTF_8);
            fil.i32(f.fd).i32(f.kind).i32(f.openFlags).i32(f.fdFlags).i64(f.offset).i64(f.size).i64(1_700_000_000_000_000_000L)
                    .i64(1000 + f.fd).i64(0x801).i32(0100644).i32(p.length).bytes(p).pad8();
        }
        Out sig = new Out(1 << 16);
        sig.i32(sigactions.size()).i32(timers.size()).i64(pending);
        for (long[] s : sigactions) {
            sig.i32(s[0]).i32(0).i64(s[1]).i64(s[2]).i64(s[3]).i64(s[4]);
        }
        for (long[] t : timers) {
            sig.i32(t[0]).i32(0).i64(t[1]).i64(t[2]);
        }
        List<Object[]> secs = new ArrayList<>();
        secs.add(new Object[] {1, proc.done(), 1L});
        secs.add(new Object[] {2, mem.done(), (long) regions.size()});
        secs.add(new Object[] {3, thr.done(), (long) threads.size()});
        secs.add(new Object[] {4, fil.done(), (long) files.size()});
        secs.add(new Object[] {5, sig.done(), (long) sigactions.size()});
        if (mpiSection != null) {
            secs.add(new Object[] {6, mpiSection, (long) mpiCount});
        }
        for (Object[] x : extraSections) {
            secs.add(new Object[] {x[0], x[1], 1L});
        }
        Out table = new Out(32 * secs.size());
        for (Object[] s : secs) {
            while ((file.position() & 7) != 0) {
                file.put(new byte[1]);
            }
            byte[] body = (byte[]) s[1];
            table.i32((Integer) s[0]).i32(1).i64(file.position()).i64(body.length).i32(crc(body)).i32((Long) s[2]);
            file.put(body);
        }
        long tableOff = file.position();
        file.put(table.done());
        long size = file.position();
        // header, last
        Out h = new Out(256);
        h.bytes("MANAIMG1".getBytes(StandardCharsets.US_ASCII)).i32(1).i32(256).i64(size).i64(tableOff).i32(secs.size())
                .i32(32).i32(PAGE).i32(mpiSection != null ? 1 : 0).i32(rank).i32(nranks).i32(generation).i32(pid)
                .i64(timeNs).i64(mapped).i64(storedAll).i32(0).i32(0);
        h.bytes(fixed(host, 64)).bytes(fixed(mpi, 16)).bytes(fixed(program, 80));
        byte[] hdr = h.done();
        long hc = crc(hdr);
        ByteBuffer.wrap(hdr).order(ByteOrder.LITTLE_ENDIAN).putInt(88, (int) hc);
        List<Object[]> parts = file.finish();
        System.arraycopy(hdr, 0, (byte[]) parts.get(0)[1], 0, hdr.length);
        return parts;
    }

    private static byte[] fixed(String s, int n) {
        byte[] b = new byte[n];
        byte[] v = s.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(v, 0, b, 0, Math.min(v.length, n - 1));
        return b;
    }

    /** Writes the image; a huge region's payload becomes a hole (a sparse file). */
    public Path write(Path p) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (Object[] part : layout()) {
                writeAt(ch, ByteBuffer.wrap((byte[]) part[1]), (Long) part[0]);
            }
            for (long[] f : fills) {
                long[] at = {f[0]};
                fill(f[1], f[2], b -> {
                    int n = b.remaining();
                    try {
                        writeAt(ch, b, at[0]);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    at[0] += n;
                });
            }
            if (fsync) {
                ch.force(true);
            }
        }
        return p;
    }

    private static void writeAt(FileChannel ch, ByteBuffer b, long pos) throws IOException {
        while (b.hasRemaining()) {
            pos += ch.write(b, pos);
        }
    }

    /** Recomputes the header CRC of a (mutated) image in place: for tests that change header fields. */
    public static void fixHeaderCrc(byte[] img) {
        ByteBuffer b = ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(88, 0);
        CRC32C c = new CRC32C();
        c.update(img, 0, 256);
        b.putInt(88, (int) c.getValue());
    }
}
