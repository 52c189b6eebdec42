package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Images the runtime wrote for MPI programs (checkpointed, killed and restarted by cr_mpi.sh under MPICH):
 * core-native/tests/mpi/mpiio.c, whose MPI section decodes and whose MPI_OBJECTS section lists the three
 * open files with their modes, pointers and flags; and rma_counter.c, checkpointed inside its
 * MPI_Win_lock_all epoch, whose section lists its window with the lock_all flag.
 */
@Tag("slow")
class RealMpiImageTest {
    static Path kept;
    static Path image;
    static String why = "";

    @BeforeAll
    static void checkpointMpiio() throws Exception {
        Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
        Path prog = root.resolve("core-native/build/tests/mpi/mpich/mpiio");
        Path cr = root.resolve("core-native/tests/mpi/cr_mpi.sh");
        if (!Files.isExecutable(prog) || !Files.isExecutable(root.resolve("bin/mana_launch"))) {
            why = prog + " or bin/mana_launch is not built (run make build)";
            return;
        }
        ProcessBuilder pb = new ProcessBuilder(cr.toString(), "--mode", "kill", "--cycles", "1", "--seed", "91", "mpich",
                "2", prog.toString());
        pb.environment().put("MANA_TEST_KEEP", "1");
        pb.environment().put("MANA_ROOT", root.toString());
        KeptRun r = KeptRun.run(pb, "cr_mpi: kept ");
        String text = r.output();
        kept = r.kept();
        if (kept == null || !text.contains("PASS")) {
            why = "cr_mpi.sh did not pass: " + text.strip();
            return;
        }
        try (Stream<Path> s = Files.list(kept.resolve("ck/ckpt_rank_0"))) {
            image = s.filter(f -> f.toString().endsWith(".mana")).findFirst().orElse(null);
        }
        if (image == null) {
            why = "no image under " + kept;
        }
    }

    @AfterAll
    static void cleanUp() throws IOException {
        for (Path k : new Path[] {kept, keptRma}) {
            if (k != null && k.startsWith("/tmp")) {
                try (Stream<Path> s = Files.walk(k)) {
                    s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        }
    }

    static Path keptRma;

    @Test
    void aWindowInItsLockAllEpochIsListed() throws Exception {
        Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
        Path prog = root.resolve("core-native/build/tests/mpi/mpich/rma_counter");
        assertTrue(Files.isExecutable(prog), prog + " is not built (run make build)");
        ProcessBuilder pb = new ProcessBuilder(root.resolve("core-native/tests/mpi/cr_mpi.sh").toString(), "--mode", "kill",
                "--cycles", "1", "--seed", "92", "mpich", "2", prog.toString());
        pb.environment().put("MANA_TEST_KEEP", "1");
        pb.environment().put("MANA_ROOT", root.toString());
        KeptRun r = KeptRun.run(pb, "cr_mpi: kept ");
        keptRma = r.kept();
        assertTrue(keptRma != null && r.output().contains("PASS"), r.output());
        Path img;
        try (Stream<Path> s = Files.list(keptRma.resolve("ck/ckpt_rank_0"))) {
            img = s.filter(f -> f.toString().endsWith(".mana")).findFirst().orElseThrow();
        }
        try (ManaImage m = (ManaImage) Images.open(img)) {
            List<MpiObject> wins = m.mpiObjects().stream().filter(o -> o.kind() == MpiObject.WINDOW).toList();
            assertEquals(1, wins.size(), m.mpiObjects().toString());
            MpiObject w = wins.get(0);
            assertEquals("allocate", MpiText.flavor(w.amode()));
            assertEquals(2, w.commSize());
            assertTrue((w.flags() & MpiObject.LOCK_ALL) != 0, w.toString());
            assertTrue(w.position() > 0 && w.disp() != 0, w.toString());
            assertTrue(MpiText.describe(m.mpi().orElseThrow(), m.mpiObjects()).contains("lock-all"));
        }
    }

    @Test
    void theOpenFilesAreListed() throws Exception {
        assertNotNull(image, () -> "no real image: " + why);
        try (ManaImage img = (ManaImage) Images.open(image)) {
            MpiSummary m = img.mpi().orElseThrow();
            assertEquals("mpich", m.kindName());
            assertTrue(m.replayEntries() >= 3, "recipes: " + m.replayEntries());
            List<MpiObject> files = img.mpiObjects();
            assertEquals(3, files.size(), files.toString());
            MpiObject data = files.stream().filter(f -> f.name().endsWith("_data.dat")).findFirst().orElseThrow();
            MpiObject log = files.stream().filter(f -> f.name().endsWith("_log.dat")).findFirst().orElseThrow();
            MpiObject own = files.stream().filter(f -> f.name().endsWith("_own0.dat")).findFirst().orElseThrow();
            // mpiio.c: data through a view, 2 ranks, its pointer a whole number of iterations (NB*B = 64 ints)
            assertEquals(MpiObject.VIEW, data.flags() & (MpiObject.VIEW | MpiObject.SHARED_FP), data.toString());
            assertEquals(2, data.commSize());
            assertTrue(data.position() > 0 && data.position() % 64 == 0, data.toString());
            // log: the shared pointer, 24-byte records from both ranks
            assertTrue((log.flags() & MpiObject.SHARED_FP) != 0, log.toString());
            assertTrue(log.sharedPosition() > 0 && log.sharedPosition() % 48 == 0, log.toString());
            // own: MPI_COMM_SELF, atomic mode
            assertEquals(1, own.commSize());
            assertTrue((own.flags() & MpiObject.ATOMIC) != 0, own.toString());
            for (MpiObject f : files) {
                assertEquals(MpiObject.FILE, f.kind());
                assertTrue(f.ino() != 0, f.toString());
            }
            assertTrue(img.verify(null).ok());
        }
    }
}
