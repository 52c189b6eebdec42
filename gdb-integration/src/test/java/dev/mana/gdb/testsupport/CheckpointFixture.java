package dev.mana.gdb.testsupport;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.Images;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * One checkpoint of the test program, made once per test JVM and shared by the test classes that
 * restart from it: the program is built, run natively for the reference result, launched under
 * bin/mana_launch with a private coordinator, checkpointed with mana_status --checkpoint and killed.
 */
public final class CheckpointFixture {
    public static final int STEPS = 200;
    private static CheckpointFixture instance;

    public final Path tmp;
    public final TestProgram prog;
    public final ManaRuntime rt;
    public final Path ckpt;
    /** The checkpoint of job "b" (same program, its own rank 0). */
    public final Path ckptB;
    public final String nativeResult;
    /** Addresses the launched program printed: main, after_step, split_step, usleep, iteration. */
    public final Map<String, Long> launchedSymbols = new HashMap<>();
    /** The global {@code iteration} as the image saved it. */
    public final long iterationAtCheckpoint;

    public static synchronized CheckpointFixture get() throws Exception {
        if (instance == null) {
            instance = new CheckpointFixture();
            Runtime.getRuntime().addShutdownHook(new Thread(instance::cleanUp));
        }
        return instance;
    }

    private CheckpointFixture() throws Exception {
        tmp = Files.createTempDirectory("gdb-integration-test");
        prog = TestProgram.build(tmp.resolve("prog"));
        String out = TestProgram.run(prog.dir, prog.app.toString(), Integer.toString(STEPS), "0");
        nativeResult = out.lines().filter(l -> l.startsWith("result ")).findFirst().orElseThrow();

        rt = new ManaRuntime(Files.createDirectories(tmp.resolve("run")));
        ckpt = rt.dir.resolve("ck");
        ckptB = rt.dir.resolve("ck-b");
        try {
            rt.startCoordinator();
            // two jobs of one non-MPI rank each (the MPI runtime is not there yet): "a" is the one most
            // tests restart, "b" is the second rank of the test that debugs two at once; one after the
            // other, each checkpointed right after it started
            iterationAtCheckpoint = checkpointed(ckpt, "a", true);
            checkpointed(ckptB, "b", false);
        } catch (Exception | Error e) {
            rt.close(); // no instance, so no shutdown hook: the coordinator would outlive the test JVM
            throw e;
        }
    }

    /**
     * Launches the program as job {@code job}, checkpoints it into {@code dir} once it has started and
     * kills it; returns {@code iteration} as the image saved it. A run lasts STEPS x 10 ms: on a loaded
     * machine (another MPI run beside, load 14 on 2 cores) mana_status's JVM alone took 2 s to start, and
     * the run had ended before the request ("0 of 1 ranks registered") or was past the steps the tests
     * need. Only then is it tried again, with a fresh run, at most 3 times; any other failure is one.
     */
    private long checkpointed(Path dir, String job, boolean readSymbols) throws Exception {
        for (int attempt = 1; ; attempt++) {
            ManaRuntime.Rank r = rt.launch(dir, List.of("--job", job),
                    List.of(prog.app.toString(), Integer.toString(STEPS), "10000"));
            try {
                if (readSymbols) {
                    String symbols = r.awaitOut(l -> l.startsWith("symbols "), Duration.ofSeconds(30), "symbols line");
                    for (String kv : symbols.substring(8).split(" ")) {
                        String[] p = kv.split("=");
                        launchedSymbols.put(p[0], Long.parseUnsignedLong(p[1].substring(2), 16));
                    }
                }
                r.awaitOut(l -> l.startsWith("started "), Duration.ofSeconds(30), "started line");
                try {
                    rt.checkpoint(job);
                } catch (IOException e) {
                    boolean ranToItsEnd = e.getMessage().contains("0 of 1 ranks registered")
                            && r.awaitOut(l -> l.startsWith("result "), Duration.ofSeconds(30), "result line") != null;
                    if (!ranToItsEnd || attempt == 3) {
                        throw e;
                    }
                    deleteTree(dir);
                    continue;
                }
            } finally {
                r.process().destroyForcibly();
                r.process().waitFor();
            }
            if (!readSymbols) {
                return -1;
            }
            long it;
            try (CheckpointImage img = Images.open(image(dir))) {
                ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
                img.readMemory(launchedSymbols.get("iteration"), b);
                it = b.getLong(0);
            }
            if (it <= STEPS - 20) {
                return it;
            }
            if (attempt == 3) {
                throw new IllegalStateException("checkpoint taken too late: step " + it + ", 3 times");
            }
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) s.sorted(java.util.Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
    }

    /** The image of job "a". */
    public Path image() throws IOException {
        return image(ckpt);
    }

    public static Path image(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("ckpt_rank_0"))) {
            return s.filter(p -> p.toString().endsWith(".mana")).findFirst().orElseThrow();
        }
    }

    private void cleanUp() {
        rt.close();
        try (Stream<Path> s = Files.walk(tmp)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temporary directory
        }
    }
}
