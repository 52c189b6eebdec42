package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.inspector.testkit.TestManaImage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One rule set for images, two readers: the C one (bin/lower-half --check, core-native/src/lower-half/
 * image_check.c, also what a restart applies) and this library's. Writes a fixed, seeded set of mutants of
 * synthetic images and of an image the runtime really wrote (core-native/examples/demo.sh, as RealImageTest),
 * runs the C check on each, and wants its verdict (accept or reject) to be the Java reader's (open, read every
 * view, verify) on every mutant.
 *
 * <p>Two kinds of mutant: raw ones (MutationFuzzTest's byte flips, extreme field values, truncations: most
 * end at a checksum) and repaired ones, the same changes with every section CRC and the header CRC computed
 * again, so that the structural rules (bounds, counts, order, sizes) decide. The runtime must be built: in the
 * reactor core-native builds first, so a missing bin/lower-half or a demo that writes no image fails here.
 */
@Tag("slow")
class CheckAgreementTest {
    static final long SEED = 20261201L;
    /** Mutants per base image and kind (raw, repaired). */
    static final int PER_BASE = 150;

    @TempDir
    Path tmp;

    record Verdict(boolean accepted, String line) { }

    @Test
    void theCAndJavaReadersAgreeOnEveryMutant() throws Exception {
        Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
        Path lowerHalf = root.resolve("bin/lower-half");
        assertTrue(Files.isExecutable(lowerHalf), lowerHalf + " is not built: build core-native first (make build)");

        List<byte[]> bases = new ArrayList<>();
        List<String> names = new ArrayList<>();
        bases.add(TestManaImage.sample(1).bytes());
        names.add("synthetic 1");
        bases.add(withFileData(TestManaImage.sample(2)).bytes());
        names.add("synthetic 2 + FILEDATA");
        Path kept = null;
        try {
            kept = runDemo(root);
            Path real = realImage(kept);
            bases.add(Files.readAllBytes(real));
            names.add("real (" + real.getFileName() + ")");

            // Mutants are made in order on this thread (deterministic), judged two at a time, and deleted once
            // judged: at most two exist at once (the real image's are megabytes each).
            Random rnd = new Random(SEED);
            int total = 0;
            int accepted = 0;
            int rejected = 0;
            int byChecksum = 0;
            long cNs = 0;
            List<String> disagreements = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                for (int b = 0; b < bases.size(); b++) {
                    byte[] base = bases.get(b);
                    int[] meta = MutationFuzzTest.manaMeta(base);
                    List<Future<Object[]>> pending = new ArrayList<>();
                    for (int i = -1; i < 2 * PER_BASE; i++) {
                        boolean repair = i >= PER_BASE;
                        StringBuilder what = new StringBuilder(names.get(b) + (i < 0 ? ": unchanged" : repair ? ": repaired " : ": raw "));
                        byte[] m = i < 0 ? base : MutationFuzzTest.mutate(base, rnd, meta, what);
                        if (repair) {
                            repairChecksums(m);
                        }
                        Path f = write(m, total++);
                        pending.add(pool.submit(() -> judge(lowerHalf, f, what.toString())));
                        if (pending.size() == 2 || i == 2 * PER_BASE - 1) {
                            for (Future<Object[]> done : pending) {
                                Object[] r = done.get(120, TimeUnit.SECONDS);
                                boolean java = (Boolean) r[0];
                                Verdict c = (Verdict) r[1];
                                cNs += (Long) r[2];
                                if (java != c.accepted()) {
                                    disagreements.add(r[3] + ": Java " + (java ? "accepts" : "rejects") + ", C says: "
                                            + c.line());
                                } else if (java) {
                                    accepted++;
                                } else {
                                    rejected++;
                                    if (c.line().contains("checksum mismatch")) {
                                        byChecksum++;
                                    }
                                }
                            }
                            pending.clear();
                        }
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            long cMs = cNs / 1_000_000;
            int judged = total;
            System.out.printf("CheckAgreementTest: %d mutants of %d images, C and Java agree on %d (%d accepted, "
                    + "%d rejected: %d at a checksum, %d by another rule), disagree on %d; lower-half --check calls took %d ms "
                    + "summed%n", judged, bases.size(), accepted + rejected, accepted, rejected, byChecksum,
                    rejected - byChecksum, disagreements.size(), cMs);
            assertEquals(List.of(), disagreements.subList(0, Math.min(10, disagreements.size())),
                    disagreements.size() + " disagreements");
            assertTrue(accepted >= bases.size(), "the unchanged images pass both");
            assertEquals(judged, accepted + rejected + disagreements.size());
            assertTrue(rejected > judged / 2, "most mutants are refused: " + rejected);
            assertTrue(rejected - byChecksum > judged / 5, "the repaired mutants reach the structural rules");
        } finally {
            if (kept != null && kept.startsWith("/tmp")) {
                try (Stream<Path> s = Files.walk(kept)) {
                    s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        }
    }

    /**
     * One repaired change per rule that the two readers did not share before (docs/image-format.md, "What a
     * reader checks"): each must be refused by both, the C reader saying what is given here.
     */
    @Test
    void eachNewRuleIsAppliedByBoth() throws Exception {
        Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
        Path lowerHalf = root.resolve("bin/lower-half");
        assertTrue(Files.isExecutable(lowerHalf), lowerHalf + " is not built: build core-native first (make build)");
        byte[] base = withFileData(TestManaImage.sample(3)).bytes();
        List<Object[]> probes = new ArrayList<>();     // what, expected C text, the changed image
        probes.add(new Object[] {"lh_info_slot 0", "lh_info_slot is 0", put(base, section(base, 1) + 24, 8, 0)});
        int thr = section(base, 3);
        probes.add(new Object[] {"a thread without context", "has no saved context",
            put(put(base, thr + 48, 8, 0), thr + 56, 8, 0)});
        probes.add(new Object[] {"fd -1", "has descriptor -1", put(base, section(base, 4), 4, -1)});
        int sig = section(base, 5);
        probes.add(new Object[] {"65 signal actions", "at most 64 and 3",
            put(put(base, sig, 4, 65), entry(base, 5) + 28, 4, 65)});
        probes.add(new Object[] {"4 timers", "at most 64 and 3", put(base, sig + 4, 4, 4)});
        probes.add(new Object[] {"no thread", "at least one",
            put(put(base, entry(base, 3) + 16, 8, 0), entry(base, 3) + 28, 4, 0)});
        probes.add(new Object[] {"section offset not 8-aligned", "not 8-byte aligned",
            put(base, entry(base, 7) + 8, 8, section(base, 7) - 4)});
        probes.add(new Object[] {"FILEDATA size past its end", "section FILEDATA",
            put(base, section(base, 7) + 8, 8, 1000)});
        probes.add(new Object[] {"FILEDATA version 2", "layout version 2", put(base, entry(base, 7) + 4, 4, 2)});
        probes.add(new Object[] {"region name of 4,096 bytes", "absurd name length 4096",
            put(base, section(base, 2) + 72, 4, 4096)});
        probes.add(new Object[] {"generation 0", "generation 0", put(base, 56, 4, 0)});
        probes.add(new Object[] {"rank 2 of 2", "rank 2 of 2", put(base, 48, 4, 2)});
        probes.add(new Object[] {"MPI flag clear", "MPI flag is clear", put(base, 44, 4, 0)});
        probes.add(new Object[] {"65 sections", "section count 65", put(base, 32, 4, 65)});
        // incremental images (docs/image-format.md, "Incremental images"): the flag wants a PARENT section, and a
        // full image has no zero runs
        probes.add(new Object[] {"incremental flag without PARENT", "there is no PARENT section",
            put(base, 44, 4, 1 | 2)});
        probes.add(new Object[] {"zero runs in a full image", "zero runs in a full image",
            put(base, section(base, 2) + 76, 4, 1)});
        // compressed images: a region flagged zstd needs its ZSTD record
        int stored = firstStoredRegion(base);
        int flagsAt = stored + 20;
        probes.add(new Object[] {"a compressed region without a ZSTD section", "there is no ZSTD section",
            put(base, flagsAt, 4, ByteBuffer.wrap(base).order(ByteOrder.LITTLE_ENDIAN).getInt(flagsAt) | 0x200)});
        for (Object[] pr : probes) {
            byte[] m = (byte[]) pr[2];
            repairChecksums(m);
            Path f = write(m, probes.indexOf(pr));
            Verdict c = check(lowerHalf, f);
            assertTrue(!c.accepted() && c.line().contains((String) pr[1]), pr[0] + ": C says " + c.line());
            assertTrue(MutationFuzzTest.runCase(f, (String) pr[0]) != null, pr[0] + ": the Java reader accepts it");
        }
        System.out.printf("CheckAgreementTest: %d rule probes, each refused by both readers%n", probes.size());
    }

    /** Offset of the record of the first region that stores pages (MEMORY: record, name, runs, zero runs). */
    static int firstStoredRegion(byte[] img) {
        ByteBuffer b = ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN);
        int at = section(img, 2);
        for (int i = 0; i < b.getInt(entry(img, 2) + 28); i++) {
            if (b.getLong(at + 56) > 0) {
                return at;
            }
            int name = (b.getInt(at + 72) + 7) & ~7;
            at += 80 + name + 16 * (b.getInt(at + 64) + b.getInt(at + 76));
        }
        throw new AssertionError("no region stores pages");
    }

    /** Offset of the table entry of the (first) section of this type. */
    static int entry(byte[] img, int type) {
        ByteBuffer b = ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN);
        int table = (int) b.getLong(24);
        for (int i = 0; i < b.getInt(32); i++) {
            if (b.getInt(table + 32 * i) == type) {
                return table + 32 * i;
            }
        }
        throw new AssertionError("no section of type " + type);
    }

    static int section(byte[] img, int type) {
        return (int) ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN).getLong(entry(img, type) + 8);
    }

    /** A copy with a little-endian value of 4 or 8 bytes at `at`. */
    static byte[] put(byte[] img, int at, int width, long v) {
        byte[] m = img.clone();
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        if (width == 8) {
            b.putLong(at, v);
        } else {
            b.putInt(at, (int) v);
        }
        return m;
    }

    /** A FILEDATA section (one saved file of 13 bytes, fd 3) in a synthetic image. */
    static TestManaImage withFileData(TestManaImage t) {
        byte[] contents = "hello, world\n".getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(32 + 16).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(3).putInt(0).putLong(contents.length).putLong(1003).putLong(0x801).put(contents);
        t.extraSections.add(new Object[] {SectionInfo.FILEDATA, b.array()});
        return t;
    }

    Path write(byte[] image, int i) throws IOException {
        Path p = tmp.resolve("m" + i + ".mana");     // not a ckpt_*.mana name: the C name rule stays out
        Files.write(p, image);
        return p;
    }

    /** Every section whose table entry lies in the file gets its CRC again, then the header. */
    static void repairChecksums(byte[] img) {
        if (img.length < 256) {
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN);
        long table = b.getLong(24);
        long count = Integer.toUnsignedLong(b.getInt(32));
        for (long i = 0; i < count && table >= 0 && table + 32 * (i + 1) <= img.length; i++) {
            int e = (int) (table + 32 * i);
            long off = b.getLong(e + 8);
            long len = b.getLong(e + 16);
            if (off >= 0 && len >= 0 && off + len >= off && off + len <= img.length) {
                CRC32C c = new CRC32C();
                c.update(img, (int) off, (int) len);
                b.putInt(e + 24, (int) c.getValue());
            }
        }
        TestManaImage.fixHeaderCrc(img);
    }

    /** Both verdicts on one file, then the file goes: {Java accepts, C verdict, ns in C, what}. */
    static Object[] judge(Path lowerHalf, Path f, String what) throws Exception {
        long t0 = System.nanoTime();
        Verdict c = check(lowerHalf, f);
        long ns = System.nanoTime() - t0;
        boolean java = MutationFuzzTest.runCase(f, what) == null;
        Files.delete(f);
        return new Object[] {java, c, ns, what};
    }

    static Verdict check(Path lowerHalf, Path f) throws Exception {
        Path err = Files.createTempFile(f.getParent(), "err", ".txt");
        Process p = new ProcessBuilder(lowerHalf.toString(), "--check", f.toString())
                .redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "lower-half --check " + f + " hangs");
        // decoded leniently: a refusal may quote bytes of the mutated image (a parent's file name), which
        // need not be UTF-8; the verdict is what is compared
        String e = new String(Files.readAllBytes(err), StandardCharsets.UTF_8);
        Files.delete(err);
        int rc = p.exitValue();
        assertTrue(rc == 0 || rc == 1, f + ": exit " + rc + " (a crash?): " + e);
        String line = rc == 0 ? out : e;
        assertTrue(line.endsWith("\n") && line.indexOf('\n') == line.length() - 1,
                f + ": want one line, got: " + out + e);
        assertTrue(rc == 0 ? e.isEmpty() : out.isEmpty(), f + ": output on both streams: " + out + e);
        return new Verdict(rc == 0, line.strip());
    }

    /** The demo (non-MPI) with its directory kept; returns the directory. */
    static Path runDemo(Path root) throws Exception {
        Path demo = root.resolve("core-native/examples/demo.sh");
        ProcessBuilder pb = new ProcessBuilder(demo.toString()).redirectErrorStream(true);
        pb.environment().put("MANA_DEMO_KEEP", "1");
        pb.environment().put("MANA_DEMO_STEPS", "30");
        pb.environment().put("MANA_DEMO_MPIRUN", "");
        Process p = pb.start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(240, TimeUnit.SECONDS), "the demo hangs");
        for (String line : text.split("\n")) {
            if (line.startsWith("demo: kept ")) {
                return Path.of(line.substring("demo: kept ".length()).trim());
            }
        }
        throw new AssertionError("the demo did not run: " + RealImageTest.tail(text));
    }

    static Path realImage(Path kept) throws IOException {
        Path rank0 = kept.resolve("ckpt/ckpt_rank_0");
        Path image = null;
        if (Files.isDirectory(rank0)) {
            try (Stream<Path> s = Files.list(rank0)) {
                image = s.filter(f -> f.toString().endsWith(".mana")).findFirst().orElse(null);
            }
        }
        assertNotNull(image, "the runtime wrote no image in " + rank0);
        return image;
    }
}
