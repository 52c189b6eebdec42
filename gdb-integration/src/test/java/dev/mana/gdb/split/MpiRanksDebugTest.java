package dev.mana.gdb.split;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.testsupport.ManaRuntime;
import dev.mana.gdb.testsupport.TestProgram;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.Half;
import dev.mana.inspector.Images;
import dev.mana.testing.Await;
import dev.mana.testing.Cannot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two ranks of a real MPI job debugged at once: the MPI heat example of the runtime
 * ({@code core-native/examples/heat_mpi.c}, built here with {@code mpicc.openmpi -g -O0}) runs on 2 ranks
 * under {@code mpirun.openmpi} and {@code bin/mana_launch}, is checkpointed with {@code mana_status} and
 * killed, and is restarted with {@code MANA_RESTART_PAUSE=2} in both ranks. gdb attaches to each rank from
 * its own thread, loads both halves' symbols and inserts a line breakpoint on the {@code MPI_Gather} of the
 * step loop (code right after the checkpoint point) before the pause is released; both ranks stop there in
 * the upper half, each with its own {@code rank} and the same step {@code s}; without the breakpoints
 * the job ends with the checksum of an uninterrupted run.
 */
@Timeout(300)
class MpiRanksDebugTest {
    static final int STEPS = 30;

    @TempDir
    Path tmp;

    @Test
    void twoMpiRanksRestartedAndDebuggedAtOnce() throws Exception {
        if (!Files.isExecutable(Path.of("/usr/bin/mpirun.openmpi"))) {
            Cannot.skipOrFail("openmpi", "Open MPI is not installed (/usr/bin/mpirun.openmpi)");
        }
        Path src = ManaRuntime.root().resolve("core-native/examples/heat_mpi.c");
        Files.copy(src, tmp.resolve("heat_mpi.c"));
        TestProgram.run(tmp, "mpicc.openmpi", "-g", "-O0", "-o", "heat_mpi", "heat_mpi.c");
        String app = tmp.resolve("heat_mpi").toString();
        int gatherLine = lineOf(tmp.resolve("heat_mpi.c"), "MPI_Gather(");

        try (ManaRuntime rt = new ManaRuntime(Files.createDirectories(tmp.resolve("run")))) {
            // the reference: an uninterrupted run without the runtime
            ManaRuntime.Rank plain = rt.mpirun(2, List.of(app, Integer.toString(STEPS), "0"), Map.of());
            String want = lastDone(plain.out().awaitEnd(Duration.ofSeconds(120)));
            assertEquals(0, plain.process().waitFor());

            // launched under the runtime, checkpointed mid-run, killed
            rt.startCoordinator();
            Path ck = rt.dir.resolve("ck");
            ManaRuntime.Rank job = rt.mpirun(2, List.of(rt.bin("mana_launch").toString(), "--job", "mpi", "--ckptdir",
                    ck.toString(), app, Integer.toString(STEPS), "100"), Map.of("MANA_RANKS", "2"));
            job.awaitOut(l -> l.startsWith("heat step   3/"), Duration.ofSeconds(90), "step 3 of the launched job");
            // the steps printed before the checkpoint request: it lands in a later one (the job runs on
            // until the kill, and those steps do not bound where the restart resumes)
            int printed = (int) job.out().lines().stream().filter(l -> l.startsWith("heat step")).count();
            rt.checkpoint("mpi");
            ManaRuntime.killTree(job);

            // restarted with both ranks paused after the memory restore
            ManaRuntime.Rank restarted = rt.mpirun(2, List.of(rt.bin("mana_restart").toString(), "--job", "mpi",
                    "--restartdir", ck.toString()), Map.of("MANA_RESTART_PAUSE", "2", "MANA_RANKS", "2"));
            Map<Integer, Long> pids = new TreeMap<>();
            // processes to appear: /proc has no event to wait on
            Await.value(Duration.ofSeconds(60), Duration.ofMillis(50), "two restarting ranks", () -> {
                for (RankLocator.Restarting r : RankLocator.restarting(ck)) {
                    pids.putIfAbsent(r.rank(), r.pid());
                }
                return pids.size() >= 2;
            }, Boolean::booleanValue, () -> "restarting ranks found: " + pids + "; stderr " + restarted.err().lines());
            assertEquals(List.of(0, 1), List.copyOf(pids.keySet()));

            String location = tmp.resolve("heat_mpi.c") + ":" + gatherLine;
            ExecutorService ex = Executors.newFixedThreadPool(2);
            List<RankDebugger> debuggers = new ArrayList<>();
            try {
                List<Future<RankDebugger>> attached = new ArrayList<>();
                for (int rank : pids.keySet()) {
                    long pid = pids.get(rank);
                    attached.add(ex.submit(() -> {
                        RankDebugger.waitForPause(pid, 2, Duration.ofSeconds(60), GdbMi.Options.defaults());
                        try (CheckpointImage img = Images.open(RankLocator.imageOf(pid, ck, rank))) {
                            RankDebugger d = RankDebugger.attach(pid, img, GdbMi.Options.defaults());
                            d.insertBreakpoint(location);
                            return d;
                        }
                    }));
                }
                for (Future<RankDebugger> f : attached) {
                    debuggers.add(f.get(120, TimeUnit.SECONDS));
                }
                // both ranks must run for either to pass the halo exchange: release both, then wait
                List<CompletableFuture<GdbEvent.Stopped>> stops = new ArrayList<>();
                for (RankDebugger d : debuggers) {
                    assertTrue(d.isPaused(), "rank pid " + d.pid() + " waits in its restart pause");
                    CompletableFuture<GdbEvent.Stopped> stop = d.nextStop();
                    d.releaseAndContinue();
                    stops.add(stop);
                }
                List<Long> steps = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    RankDebugger d = debuggers.get(i);
                    GdbEvent.Stopped hit = d.awaitStop(stops.get(i), Duration.ofSeconds(90));
                    assertEquals("breakpoint-hit", hit.reason(), hit.record().toString());
                    RankDebugger.Frame top = d.backtrace(hit.threadId()).get(0);
                    assertEquals("main", top.function(), top.toString());
                    assertEquals(gatherLine, top.line(), top.toString());
                    assertEquals(Half.UPPER, top.half(), top.toString());
                    assertEquals(Integer.toString(i), d.evaluate("rank", hit.threadId()), "rank of pid " + d.pid());
                    assertEquals("2", d.evaluate("size", hit.threadId()));
                    steps.add(Long.parseLong(d.evaluate("s", hit.threadId())));
                }
                // the same step in both ranks, one the checkpoint had not finished
                assertEquals(steps.get(0), steps.get(1), "steps " + steps);
                assertTrue(steps.get(0) >= printed && steps.get(0) <= STEPS, "step " + steps.get(0)
                        + " after " + printed + " printed before the checkpoint request");

                // on to the end without the breakpoints
                List<CompletableFuture<GdbEvent.Stopped>> exits = new ArrayList<>();
                for (RankDebugger d : debuggers) {
                    d.gdb().execute("-break-delete");
                    exits.add(d.gdb().expect(GdbEvent.Stopped.class, GdbEvent.Stopped::isExit));
                    d.resume();
                }
                for (int i = 0; i < 2; i++) {
                    GdbEvent.Stopped end = debuggers.get(i).awaitStop(exits.get(i), Duration.ofSeconds(120));
                    assertEquals("exited-normally", end.reason(), end.record().toString());
                }
            } finally {
                debuggers.forEach(RankDebugger::close);
                ex.shutdownNow();
            }
            List<String> out = restarted.out().awaitEnd(Duration.ofSeconds(60));
            assertEquals(want, lastDone(out), "restarted output: " + out + "; stderr " + restarted.err().lines());
            assertEquals(0, restarted.process().waitFor());
        }
    }

    /** The number of the first line of {@code file} that contains {@code text}. */
    static int lineOf(Path file, String text) throws java.io.IOException {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i + 1;
            }
        }
        throw new AssertionError(text + " not in " + file);
    }

    private static String lastDone(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("heat done:")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no \"heat done:\" line in " + lines));
    }
}
