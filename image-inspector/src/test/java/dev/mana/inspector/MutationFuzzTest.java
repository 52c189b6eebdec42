package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.mana.inspector.cli.CliProbe;
import dev.mana.inspector.testkit.TestDmtcpImage;
import dev.mana.inspector.testkit.TestManaImage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutation fuzzing over real (test-written) images of both formats: random byte flips, extreme values
 * in metadata fields, and truncations. Seeded, so every run tries the same cases. Every case must end
 * in success or an {@link ImageException} (never another exception, an OutOfMemoryError or a hang);
 * for our format every single-byte change and every truncation must be detected.
 */
@Tag("slow")
class MutationFuzzTest {
    static final long SEED = 20261130L;
    static final int MANA_CASES = 3000;
    static final int DMTCP_CASES = 1500;
    static final int GZIP_CASES = 800;
    /** Each test stops trying new cases after this long (a loaded machine), having run at least MIN_CASES. */
    static final long BUDGET_NS = 40_000_000_000L;
    static final int MIN_CASES = 300;
    static final long[] EXTREMES = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, 0xffffffffL, 0x7fffffffL, 0x80000000L,
        1L << 40, 4096, 4095};

    @TempDir
    Path tmp;

    /** Touches every part of the API an editor would; returns whether the image passed verify. */
    static boolean exercise(Path p) throws ImageException {
        try (CheckpointImage img = Images.open(p)) {
            img.summary();
            for (MemoryRegion r : img.regions()) {
                if (r.saved() && r.mappedBytes() > 0) {
                    try {
                        img.readMemory(r.start(), ByteBuffer.allocate((int) Math.min(64, r.mappedBytes())));
                    } catch (ImageException e) {
                        // a damaged region may refuse: fine
                    }
                }
            }
            if (img instanceof ManaImage) {
                ManaImage m = (ManaImage) img;
                tryQuietly(m::process);
                tryQuietly(m::threads);
                tryQuietly(m::files);
                tryQuietly(m::signals);
            } else {
                ((DmtcpImage) img).simulate();
            }
            return img.verify(null).ok();
        }
    }

    interface Access {
        Object get() throws ImageException;
    }

    static void tryQuietly(Access a) {
        try {
            a.get();
        } catch (ImageException e) {
            // a damaged section is an ImageException: fine
        }
    }

    /** Runs one case; returns the failure class, or null when the image passed verify. */
    static ErrorKind runCase(Path p, String what) {
        long t0 = System.nanoTime();
        ErrorKind k = null;
        try {
            if (!exercise(p)) {
                k = ErrorKind.CORRUPT; // verify found something; exact class does not matter here
            }
        } catch (ImageException e) {
            k = e.kind();
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), what);
            assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
        } catch (Throwable t) {
            fail(what + ": " + t, t);
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 5000, what + " took " + ms + " ms");
        return k;
    }

    static byte[] mutate(byte[] base, Random rnd, int[] metaRanges, StringBuilder what) {
        byte[] b = base.clone();
        int kind = rnd.nextInt(10);
        if (kind < 4) {
            // single byte change anywhere (biased to metadata half the time)
            int at = pick(b.length, metaRanges, rnd);
            b[at] ^= (byte) (1 + rnd.nextInt(255));
            what.append("flip@").append(at);
        } else if (kind < 6) {
            int n = 2 + rnd.nextInt(6);
            what.append("flips");
            for (int i = 0; i < n; i++) {
                int at = pick(b.length, metaRanges, rnd);
                b[at] ^= (byte) (1 + rnd.nextInt(255));
                what.append('@').append(at);
            }
        } else if (kind < 8) {
            int at = pick(b.length, metaRanges, rnd) & ~3;
            long v = EXTREMES[rnd.nextInt(EXTREMES.length)];
            ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            if (rnd.nextBoolean() && at + 8 <= b.length) {
                bb.putLong(at, v);
            } else if (at + 4 <= b.length) {
                bb.putInt(at, (int) v);
            }
            what.append("field@").append(at).append('=').append(v);
        } else {
            int len = rnd.nextInt(b.length);
            what.append("truncate@").append(len);
            return Arrays.copyOf(b, len);
        }
        return b;
    }

    static int pick(int len, int[] meta, Random rnd) {
        if (meta.length > 0 && rnd.nextBoolean()) {
            int r = rnd.nextInt(meta.length / 2);
            int s = meta[2 * r];
            int e = Math.min(len, meta[2 * r + 1]);
            if (e > s) {
                return s + rnd.nextInt(e - s);
            }
        }
        return rnd.nextInt(len);
    }

    /** Metadata of our format: header, sections + table (everything after the payloads). */
    static int[] manaMeta(byte[] img) {
        ByteBuffer b = ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN);
        long table = b.getLong(24);
        int count = b.getInt(32);
        long firstSection = table;
        for (int i = 0; i < count; i++) {
            firstSection = Math.min(firstSection, b.getLong((int) table + 32 * i + 8));
        }
        return new int[] {0, 256, (int) firstSection, img.length};
    }

    /** Where the MPI section's count lives in the table (opaque: a change there cannot be detected). */
    static int[] mpiCountField(byte[] img) {
        ByteBuffer b = ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN);
        long table = b.getLong(24);
        int count = b.getInt(32);
        for (int i = 0; i < count; i++) {
            if (b.getInt((int) table + 32 * i) == 6) {
                int at = (int) table + 32 * i + 28;
                return new int[] {at, at + 4};
            }
        }
        return new int[] {-1, -1};
    }

    /**
     * A region whose end lies past 2^63 (one damaged byte, checksums made right again): its length is
     * negative as a long. readMemory read it as such and handed ByteBuffer a negative position
     * (IllegalArgumentException out of the API, CheckAgreementTest on a real image); such an end now
     * gives an ImageException or bytes, never anything else (whether verify refuses it is
     * CheckAgreementTest's question: the last region's end has nothing to overlap).
     */
    @Test
    void aRegionEndingPast2To63IsRefusedNotThrownOver() throws Exception {
        byte[] base = TestManaImage.sample(1).bytes();
        ByteBuffer b = ByteBuffer.wrap(base).order(ByteOrder.LITTLE_ENDIAN);
        long table = b.getLong(24);
        int count = b.getInt(32);
        int mem = -1;
        int nregions = 0;
        for (int i = 0; i < count; i++) {
            if (b.getInt((int) table + 32 * i) == 2) {
                mem = (int) b.getLong((int) table + 32 * i + 8);
                nregions = b.getInt((int) table + 32 * i + 28);
            }
        }
        assertTrue(mem > 0 && nregions > 0, "no MEMORY section");
        Path p = tmp.resolve("end.mana");
        int at = mem;
        int cases = 0;
        for (int r = 0; r < nregions; r++) {
            for (int x : new int[] {0x80, 0xff}) {
                byte[] m = base.clone();
                m[at + 15] ^= (byte) x;          // the top byte of region r's end
                CheckAgreementTest.repairChecksums(m);
                Files.write(p, m);
                runCase(p, "region " + r + "'s end ^ " + x);    // fails on anything but an ImageException
                cases++;
            }
            // the next record: 80 bytes, the name (padded to 8), the runs and zero runs (16 bytes each)
            at += 80 + ((b.getInt(at + 72) + 7) & ~7) + 16 * (b.getInt(at + 64) + b.getInt(at + 76));
        }
        assertEquals(2 * nregions, cases);
    }

    @Test
    void ourFormatSurvivesAndDetectsMutations() throws Exception {
        Random rnd = new Random(SEED);
        byte[][] bases = {TestManaImage.sample(1).bytes(), TestManaImage.sample(2).bytes()};
        Path p = tmp.resolve("fuzz.mana");
        int detected = 0;
        long deadline = System.nanoTime() + BUDGET_NS;
        for (int i = 0; i < MANA_CASES && (i < MIN_CASES || System.nanoTime() < deadline); i++) {
            byte[] base = bases[i % bases.length];
            StringBuilder what = new StringBuilder("mana case " + i + " ");
            byte[] m = mutate(base, rnd, manaMeta(base), what);
            Files.write(p, m);
            ErrorKind k = runCase(p, what.toString());
            String w = what.toString();
            if (w.contains("truncate@")) {
                assertEquals(ErrorKind.TRUNCATED, k, w);
            }
            if (w.contains(" flip@")) {
                int at = Integer.parseInt(w.substring(w.indexOf('@') + 1));
                int[] mpi = mpiCountField(base);
                if (at < mpi[0] || at >= mpi[1]) {
                    assertTrue(k != null, w + ": a single changed byte went unnoticed");
                }
            }
            if (k != null) {
                detected++;
            }
            if (i % 100 == 0) {
                CliProbe.assertOneLineOrSuccess(p, w);
            }
        }
        assertTrue(detected > MIN_CASES * 9 / 10, "detected " + detected);
    }

    @Test
    void dmtcpImagesSurviveMutations() throws Exception {
        Random rnd = new Random(SEED + 1);
        byte[] base = TestDmtcpImage.sample(5).bytes();
        // metadata: the two file headers and every region header
        int[] meta = dmtcpMeta(base);
        Path p = tmp.resolve("fuzz.dmtcp");
        long deadline = System.nanoTime() + BUDGET_NS;
        for (int i = 0; i < DMTCP_CASES && (i < MIN_CASES || System.nanoTime() < deadline); i++) {
            StringBuilder what = new StringBuilder("dmtcp case " + i + " ");
            byte[] m = mutate(base, rnd, meta, what);
            Files.write(p, m);
            ErrorKind k = runCase(p, what.toString());
            if (what.toString().contains("truncate@")) {
                assertEquals(ErrorKind.TRUNCATED, k, what.toString());
            }
            if (i % 100 == 0) {
                CliProbe.assertOneLineOrSuccess(p, what.toString());
            }
        }
    }

    @Test
    void gzipDmtcpImagesSurviveMutations() throws Exception {
        Random rnd = new Random(SEED + 2);
        byte[] base = TestDmtcpImage.gzip(TestDmtcpImage.sample(6).bytes());
        Path p = tmp.resolve("fuzz.dmtcp.gz");
        long deadline = System.nanoTime() + BUDGET_NS;
        for (int i = 0; i < GZIP_CASES && (i < MIN_CASES || System.nanoTime() < deadline); i++) {
            StringBuilder what = new StringBuilder("gzip case " + i + " ");
            byte[] m = mutate(base, rnd, new int[] {0, 64}, what);
            Files.write(p, m);
            ErrorKind k = runCase(p, what.toString());
            if (what.toString().contains("truncate@") && m.length > 1) {
                assertEquals(ErrorKind.TRUNCATED, k, what.toString());
            }
        }
    }

    static int[] dmtcpMeta(byte[] img) {
        java.util.List<Integer> r = new java.util.ArrayList<>(java.util.List.of(0, 8192));
        ByteBuffer b = ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN);
        int pos = 8192;
        while (pos + 4096 <= img.length) {
            r.add(pos);
            r.add(pos + 1100);
            long size = b.getLong(pos + 16);
            if (b.getLong(pos) == 0 && size == -1) {
                break;
            }
            long props = b.getLong(pos + 80);
            int flags = b.getInt(pos + 40);
            long mfs = b.getLong(pos + 72);
            long len = (props & 3) != 0 ? 0 : (flags & 0x20) == 0 && mfs > 0 ? mfs : size;
            pos += 4096 + (int) len;
        }
        int[] out = new int[r.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = r.get(i);
        }
        return out;
    }
}
