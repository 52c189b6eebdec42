package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.inspector.cli.ManaInspect;
import dev.mana.testing.Cannot;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Incremental images the runtime really wrote, read through their chain. incrmem changes its memory in three steps,
 * each checkpointed (generation 1 full, 2 and 3 incremental: MANA_INCREMENTAL_FULL_EVERY=3); then, with the program
 * still waiting after step 3, generation 4 is taken, a full image of the same moment as generation 3. Reading 3
 * through its chain must give what 4 holds, except where the program and the runtime really moved between the two
 * checkpoints: the threads' stacks and TLS (the program polls for its go file, errno with it; the checkpoint thread
 * ran) and the runtime's own libmana.so data. The commit of 4 removes 1-3 (a new chain), so they are copied aside first.
 */
@Tag("slow")
class IncrementalChainTest {
    static Path root;
    static Path work;
    /** Generations 1-3 (the chain), copied before generation 4's commit removed them. */
    static Path chainDir;
    static Path full;

    @BeforeAll
    static void checkpointThreeStepsAndTheSameMomentInFull() throws Exception {
        root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
        assertTrue(Files.isExecutable(root.resolve("bin/mana_launch")), "bin/mana_launch is not built (run make build)");
        assertTrue(Files.isExecutable(root.resolve("core-native/build/tests/process/incrmem")), "incrmem is not built");
        work = Files.createTempDirectory("mana-chain-test");
        chainDir = Files.createDirectories(work.resolve("chain"));
        try (IncrementalRun run = IncrementalRun.start(root, work, 3, 3)) {
            for (int g = 1; g <= 3; g++) {
                run.awaitLine("ready " + g);
                run.checkpoint(g);
                if (g < 3) {
                    run.release(g);
                }
            }
            String err = run.stderr();
            if (err.contains("incremental checkpoints were asked for, but")) {
                Cannot.skipOrFail("softdirty", "the kernel cannot track written pages: " + err);
            }
            for (int g = 1; g <= 3; g++) {
                Files.copy(run.image(g), chainDir.resolve(run.image(g).getFileName()));
            }
            full = Files.copy(run.checkpoint(4), work.resolve("full_gen4.mana"));
        }
    }

    @AfterAll
    static void clean() throws Exception {
        if (work != null) {
            try (Stream<Path> s = Files.walk(work)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    static Path gen(int g) {
        return chainDir.resolve("ckpt_incrmem_gen" + g + ".mana");
    }

    @Test
    void aChainOfThreeReadsAsTheFullImageOfTheSameMoment() throws Exception {
        try (CheckpointImage opened = Images.openChain(gen(3)); CheckpointImage alone = Images.open(gen(3));
             CheckpointImage f = Images.open(full)) {
            ManaChain chain = assertInstanceOf(ManaChain.class, opened);
            assertEquals(3, chain.images().size());
            assertEquals(List.of(3L, 2L, 1L), chain.images().stream().map(i -> i.header().generation()).toList());
            assertEquals(2, chain.parent().orElseThrow().depth());
            assertTrue(chain.images().get(2).parent().isEmpty(), "generation 1 is the full image");
            assertTrue(((ManaImage) f).parent().isEmpty(), "generation 4 is a full image");
            List<ThreadInfo> threads = ((ManaImage) f).threads();
            List<MemoryRegion> rs = f.regions();
            long compared = 0;
            long aloneDiffers = 0;
            for (int i = 0; i < rs.size(); i++) {
                MemoryRegion r = rs.get(i);
                if (!r.saved() || movedBetweenTheCheckpoints(r, i > 0 ? rs.get(i - 1) : null, threads)) {
                    continue;
                }
                // a MiB at a time: the runtime's 256 MiB work area is a region too, and the test heap is small
                for (long at = r.start(); at != r.end(); ) {
                    long to = r.end() - at > 1 << 20 ? at + (1 << 20) : r.end();
                    byte[] want = read(f, at, to);
                    assertArrayEquals(want, read(chain, at, to), "through the chain: " + r + " at 0x" + Long.toHexString(at));
                    aloneDiffers += differing(want, read(alone, at, to));
                    at = to;
                }
                compared += r.mappedBytes();
            }
            assertTrue(compared > 30L << 20, "compared " + compared + " bytes");
            // the file alone reads the pages it leaves to its parents as zeros: incrmem's 24 MiB, its libraries
            assertTrue(aloneDiffers > 20L << 20, "the file alone differs in " + aloneDiffers + " bytes only");
        }
    }

    /**
     * A thread's stack or its TLS (the mapping holding its thread pointer), or the runtime's own libmana.so mappings
     * and the anonymous data (its .bss) right after them.
     */
    static boolean movedBetweenTheCheckpoints(MemoryRegion r, MemoryRegion before, List<ThreadInfo> threads) {
        for (ThreadInfo t : threads) {
            if (Long.compareUnsigned(r.start(), t.stackEnd()) < 0 && Long.compareUnsigned(t.stackStart(), r.end()) < 0) {
                return true;
            }
            // its TLS, below the thread pointer: errno is 2 (ENOENT: the go file polled) or 4 (EINTR: the sleep the
            // checkpoint signal cut short) depending on where each checkpoint found the thread; 1 run in 3 failed so
            if (Long.compareUnsigned(r.start(), t.fsBase()) <= 0 && Long.compareUnsigned(t.fsBase(), r.end()) < 0) {
                return true;
            }
        }
        if (r.name().endsWith("/libmana.so")) {
            return true;
        }
        return r.name().isEmpty() && before != null && before.name().endsWith("/libmana.so") && before.end() == r.start();
    }

    static byte[] read(CheckpointImage img, long start, long end) throws ImageException {
        byte[] b = new byte[Math.toIntExact(end - start)];
        img.readMemory(start, ByteBuffer.wrap(b));
        return b;
    }

    static long differing(byte[] a, byte[] b) {
        long n = 0;
        for (int i = 0; i < a.length; i++) {
            if (a[i] != b[i]) {
                n++;
            }
        }
        return n;
    }

    @Test
    void aMissingParentIsRefusedByName() throws Exception {
        Path dir = Files.createDirectories(work.resolve("missing"));
        Files.copy(gen(2), dir.resolve(gen(2).getFileName()));
        Files.copy(gen(3), dir.resolve(gen(3).getFileName()));
        Path top = dir.resolve(gen(3).getFileName());
        ImageException e = assertThrows(ImageException.class, () -> Images.openChain(top).close());
        assertEquals(ErrorKind.INCOMPLETE, e.kind());
        assertTrue(e.getMessage().contains("ckpt_incrmem_gen2.mana is incremental and needs")
                && e.getMessage().contains("ckpt_incrmem_gen1.mana (generation 1), which is gone"), e.getMessage());
        // the image alone still opens, and every view of it works
        try (CheckpointImage alone = Images.open(top)) {
            assertEquals(3, alone.summary().generation());
        }
        Cli verify = Cli.run("verify", top.toString());
        assertEquals(9, verify.status, verify.err);
        assertTrue(verify.err.contains("ckpt_incrmem_gen1.mana") && verify.err.contains("gone"), verify.err);
        assertEquals(0, Cli.run("verify", "--no-chain", "-q", top.toString()).status);
        Cli extract = Cli.run("extract", top.toString(), "--region", "0x7fff00000000", "-o", dir.resolve("x").toString());
        assertTrue(extract.status == 9 || extract.status == 10, extract.err);
        Cli summary = Cli.run("summary", top.toString());
        assertEquals(0, summary.status, summary.err);
        assertTrue(summary.out.contains("incremental on ckpt_incrmem_gen2.mana (generation 2, depth 2)"), summary.out);
    }

    @Test
    void aReplacedParentIsRefusedByName() throws Exception {
        // generation 4 of the same program and rank put in generation 1's place: a real image, not the recorded one
        Path dir = Files.createDirectories(work.resolve("replaced"));
        Files.copy(full, dir.resolve(gen(1).getFileName()));
        Files.copy(gen(2), dir.resolve(gen(2).getFileName()));
        Files.copy(gen(3), dir.resolve(gen(3).getFileName()));
        Path top = dir.resolve(gen(3).getFileName());
        ImageException e = assertThrows(ImageException.class, () -> Images.openChain(top).close());
        assertEquals(ErrorKind.INCOMPLETE, e.kind());
        assertTrue(e.getMessage().contains(dir.resolve(gen(1).getFileName()) + " is not the parent ")
                && e.getMessage().contains("replaced or rewritten"), e.getMessage());
        Cli verify = Cli.run("verify", "--json", top.toString());
        assertEquals(9, verify.status, verify.err);
        assertTrue(verify.out.contains("replaced or rewritten"), verify.out);
    }

    @Test
    void extractHexdumpAndDiffReadThroughTheChain() throws Exception {
        try (CheckpointImage f = Images.open(full)) {
            // incrmem's 24 MiB from malloc (an anonymous mapping a little larger; the runtime's work area is 256 MiB)
            MemoryRegion a = f.regions().stream()
                    .filter(r -> r.saved() && r.anonymous() && r.mappedBytes() > 24L << 20 && r.mappedBytes() < 32L << 20)
                    .findFirst().orElseThrow();
            Path out = work.resolve("extract.bin");
            Cli x = Cli.run("extract", gen(3).toString(), "--region", "0x" + Long.toHexString(a.start()), "-o", out.toString());
            assertEquals(0, x.status, x.err);
            assertArrayEquals(read(f, a.start(), a.end()), Files.readAllBytes(out), "extract of " + a);
            Cli h = Cli.run("hexdump", gen(3).toString(), "0x" + Long.toHexString(a.start()), "64");
            Cli hf = Cli.run("hexdump", full.toString(), "0x" + Long.toHexString(a.start()), "64");
            assertEquals(0, h.status, h.err);
            assertEquals(hf.out, h.out);
        }
        // generation 3 through its chain against 4: only what moved between the two checkpoints
        Cli d = Cli.run("diff", "--json", gen(3).toString(), full.toString());
        assertEquals(1, d.status, d.err);
        long changed = Long.parseLong(d.out.replaceAll("(?s).*\"bytes_changed\":(\\d+).*", "$1"));
        assertTrue(changed < 64 * 1024, "bytes changed " + changed + ": " + d.out);
        try (CheckpointImage alone = Images.open(gen(3)); CheckpointImage f = Images.open(full)) {
            assertTrue(ImageDiff.compare(alone, f, null).bytesChanged() > 20L << 20, "the file alone misses its parents' pages");
        }
    }

    @Test
    void verifyAndSummaryOfTheChain() throws Exception {
        Cli v = Cli.run("verify", "--json", gen(3).toString());
        assertEquals(0, v.status, v.out + v.err);
        long sizes = Files.size(gen(1)) + Files.size(gen(2)) + Files.size(gen(3));
        assertTrue(v.out.contains("\"bytes_read\":" + sizes), "every image of the chain read once: " + v.out);
        Cli alone = Cli.run("verify", "--json", "--no-chain", gen(3).toString());
        assertTrue(alone.out.contains("\"bytes_read\":" + Files.size(gen(3))), alone.out);
        Cli s = Cli.run("summary", "--json", gen(3).toString());
        assertTrue(s.out.contains("\"parent\":{\"name\":\"ckpt_incrmem_gen2.mana\",\"generation\":2,\"depth\":2"), s.out);
        Cli s1 = Cli.run("summary", gen(1).toString());
        assertFalse(s1.out.contains("incremental on"), s1.out);
    }

    @Test
    void aDamagedZeroRunSpoilsItsRegionOnly() throws Exception {
        // generation 3 with the first zero run of a region holding several made empty (its MEMORY CRC fixed up): that
        // region is refused, the regions after it still read as before (their records follow its zero runs)
        Path dir = Files.createDirectories(work.resolve("badzero"));
        for (int g = 1; g <= 3; g++) {
            Files.copy(gen(g), dir.resolve(gen(g).getFileName()));
        }
        Path top = dir.resolve(gen(3).getFileName());
        int damaged = emptyFirstZeroRunOfARegionWithSeveral(top);
        try (CheckpointImage bad = Images.openChain(top); CheckpointImage good = Images.openChain(gen(3))) {
            List<MemoryRegion> rb = bad.regions();
            List<MemoryRegion> rg = good.regions();
            assertEquals(rg.size(), rb.size());
            MemoryRegion d = rb.get(damaged);
            ImageException e = assertThrows(ImageException.class, () -> read(bad, d.start(), d.start() + 4096));
            assertEquals(ErrorKind.MALFORMED, e.kind());
            VerifyReport v = bad.verify(null);
            assertTrue(v.problems().stream().anyMatch(p -> p.region() == damaged && p.message().contains("zero run 0")),
                    v.problems().toString());
            for (int i = damaged + 1; i < rg.size(); i++) {
                MemoryRegion r = rg.get(i);
                assertEquals(r.toString(), rb.get(i).toString());
                if (r.saved() && r.mappedBytes() <= 32L << 20) {
                    assertArrayEquals(read(good, r.start(), r.end()), read(bad, r.start(), r.end()), r.toString());
                }
            }
        }
    }

    /** Sets page_count 0 in the first zero run of the first region with two or more; returns that region's index. */
    static int emptyFirstZeroRunOfARegionWithSeveral(Path image) throws Exception {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(image,
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
            SectionInfo mem;
            long entry;
            try (CheckpointImage img = Images.open(image)) {
                ManaImage m = (ManaImage) img;
                int k = 0;
                while (m.sections().get(k).type() != SectionInfo.MEMORY) {
                    k++;
                }
                mem = m.sections().get(k);
                entry = m.header().sectionTableOffset() + 32L * k;
            }
            ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(mem.length())).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            ch.read(b, mem.offset());
            int p = 0;
            for (int i = 0; i < mem.count(); i++) {
                long runs = Integer.toUnsignedLong(b.getInt(p + 64));
                long nameLen = Integer.toUnsignedLong(b.getInt(p + 72));
                long zeroRuns = Integer.toUnsignedLong(b.getInt(p + 76));
                int zeros = Math.toIntExact(p + 80 + ((nameLen + 7) & ~7L) + 16 * runs);
                if (zeroRuns >= 2) {
                    b.putLong(zeros + 8, 0);
                    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
                    crc.update(b.array());
                    ByteBuffer c = ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, (int) crc.getValue());
                    ch.write(b.rewind(), mem.offset());
                    ch.write(c, entry + 24);
                    return i;
                }
                p = Math.toIntExact(zeros + 16 * zeroRuns);
            }
        }
        throw new AssertionError(image + ": no region with two zero runs");
    }

    /** One run of the command line: exit status, stdout, stderr. */
    record Cli(int status, String out, String err) {
        static Cli run(String... args) {
            StringWriter o = new StringWriter();
            StringWriter e = new StringWriter();
            int rc = ManaInspect.run(args, new PrintWriter(o, true), new PrintWriter(e, true));
            return new Cli(rc, o.toString(), e.toString());
        }
    }
}
