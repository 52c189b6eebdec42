package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reads an image the native runtime really wrote: runs the repository's demo (core-native/examples/demo.sh:
 * coordinator, mana_launch, mana_status --checkpoint, kill, restart) keeping its directory, then inspects
 * the checkpoint. This is the only check of the C writer against the Java reader, so nothing turns it
 * into a skip: a runtime that is not built, a demo that fails or one that writes no image fails the test.
 * The reactor builds core-native first (a test-scope dependency); {@code make test-fast} leaves the test
 * out by its tag.
 */
@Tag("slow")
class RealImageTest {
    static Path root;
    static Path kept;
    static Path image;
    static String why = "";

    @BeforeAll
    static void checkpointTheDemo() throws Exception {
        root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
        Path demo = root.resolve("core-native/examples/demo.sh");
        for (String tool : new String[] {"mana_launch", "mana_restart", "mana_coordinator", "mana_status"}) {
            if (!Files.isExecutable(root.resolve("bin").resolve(tool))) {
                why = "bin/" + tool + " is not built (run make build)";
                return;
            }
        }
        if (!Files.isExecutable(demo)) {
            why = "no core-native/examples/demo.sh";
            return;
        }
        ProcessBuilder pb = new ProcessBuilder(demo.toString());
        pb.environment().put("MANA_DEMO_KEEP", "1");
        pb.environment().put("MANA_DEMO_STEPS", "30");
        pb.environment().put("MANA_DEMO_MPIRUN", "");          // the non-MPI example (the demo defaults to MPI)
        KeptRun r = KeptRun.run(pb, "demo: kept ");
        String text = r.output();
        kept = r.kept();
        if (kept == null) {
            why = "the demo did not run: " + tail(text);
            return;
        }
        Path rank0 = kept.resolve("ckpt/ckpt_rank_0");
        if (Files.isDirectory(rank0)) {
            try (Stream<Path> s = Files.list(rank0)) {
                image = s.filter(f -> f.toString().endsWith(".mana")).findFirst().orElse(null);
            }
        }
        if (image == null) {
            why = "the runtime wrote no image: " + tail(text);
        }
    }

    static String tail(String s) {
        String t = s.strip();
        return t.length() > 400 ? "..." + t.substring(t.length() - 400) : t;
    }

    @AfterAll
    static void cleanUp() throws IOException {
        if (kept != null && kept.startsWith("/tmp")) {
            try (Stream<Path> s = Files.walk(kept)) {
                s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    @Test
    void everyViewReadsTheRealImage() throws Exception {
        assertNotNull(image, () -> "no real image: " + why);
        try (ManaImage img = (ManaImage) Images.open(image)) {
            ImageSummary s = img.summary();
            assertEquals("heat", s.program());
            assertEquals(1, s.generation());
            assertTrue(s.storedBytes() > 0 && s.storedBytes() < s.fileSize());
            List<MemoryRegion> rs = img.regions();
            assertTrue(rs.stream().anyMatch(r -> r.half() == Half.LOWER), "lower half listed");
            assertTrue(rs.stream().anyMatch(r -> r.half() == Half.KERNEL), "vdso/vvar listed");
            assertTrue(rs.stream().anyMatch(r -> r.saved() && r.name().endsWith("/heat")), "the program is saved");
            assertTrue(rs.stream().anyMatch(r -> r.saved() && r.name().contains("libc")), "its libc is saved");
            assertTrue(img.threads().stream().anyMatch(ThreadInfo::main), "a main thread");
            assertTrue(img.threads().stream().anyMatch(ThreadInfo::checkpointThread), "the checkpoint thread");
            assertFalse(img.files().isEmpty());
            img.signals();
            img.process();
            for (MemoryRegion r : rs) {
                if (r.saved() && r.storedBytes() > 0) {
                    ByteBuffer b = ByteBuffer.allocate((int) Math.min(r.mappedBytes(), 1 << 20));
                    img.readMemory(r.start(), b);
                }
            }
            // the main thread's registers point into saved memory
            ThreadInfo main = img.threads().stream().filter(ThreadInfo::main).findFirst().orElseThrow();
            MemoryRegion stack = img.regionAt(main.register("rsp"));
            assertTrue(stack != null && stack.saved(), "rsp in a saved region");
            VerifyReport v = img.verify(null);
            assertTrue(v.ok(), "verify: " + v.problems());
        }
        CheckpointDirectory d = CheckpointDirectory.scan(kept.resolve("ckpt"));
        assertTrue(d.restartable(), d.problems().toString());
        assertEquals(1, d.newestCommonGeneration());
    }

    @Test
    void mutationsOfTheRealImageAreDetected() throws Exception {
        assertNotNull(image, () -> "no real image: " + why);
        byte[] base = Files.readAllBytes(image);
        int[] meta = MutationFuzzTest.manaMeta(base);
        int[] mpi = MutationFuzzTest.mpiCountField(base);
        Random rnd = new Random(MutationFuzzTest.SEED + 7);
        Path p = Files.createTempFile("real-fuzz", ".mana");
        try {
            long deadline = System.nanoTime() + 20_000_000_000L;
            for (int i = 0; i < 400 && (i < 50 || System.nanoTime() < deadline); i++) {
                StringBuilder what = new StringBuilder("real case " + i + " ");
                byte[] m = MutationFuzzTest.mutate(base, rnd, meta, what);
                Files.write(p, m);
                ErrorKind k = MutationFuzzTest.runCase(p, what.toString());
                String w = what.toString();
                if (w.contains("truncate@")) {
                    assertEquals(ErrorKind.TRUNCATED, k, w);
                }
                if (w.contains(" flip@")) {
                    int at = Integer.parseInt(w.substring(w.indexOf('@') + 1));
                    if (at < mpi[0] || at >= mpi[1]) {
                        assertTrue(k != null, w + ": a single changed byte went unnoticed");
                    }
                }
            }
        } finally {
            Files.deleteIfExists(p);
        }
    }
}
