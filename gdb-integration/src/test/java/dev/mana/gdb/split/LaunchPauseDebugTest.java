package dev.mana.gdb.split;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.testsupport.ManaRuntime;
import dev.mana.gdb.testsupport.TestProgram;
import dev.mana.inspector.Half;
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
 * Launch-time debugging: a rank launched with {@code MANA_LAUNCH_PAUSE=1} waits in the lower half before
 * anything of the upper half is loaded; {@link RankDebugger#attachAtLaunch} runs it to the program's
 * {@code main} with both halves' symbols; a breakpoint set there is hit; the program ends as an
 * uninterrupted run. Once for the test program (one rank, a shared library of its own) and once for the
 * MPI heat example on 2 ranks under Open MPI, both ranks stopped at {@code main} at the same time.
 */
@Timeout(300)
class LaunchPauseDebugTest {
    @TempDir
    Path tmp;

    @Test
    void launchedRankStopsAtMainThenAtABreakpoint() throws Exception {
        TestProgram prog = TestProgram.build(tmp.resolve("prog"));
        String want = TestProgram.run(prog.dir, prog.app.toString(), "20", "0").lines()
                .filter(l -> l.startsWith("result ")).findFirst().orElseThrow();
        try (ManaRuntime rt = new ManaRuntime(Files.createDirectories(tmp.resolve("run")))) {
            rt.startCoordinator();
            Path ck = Files.createDirectories(rt.dir.resolve("ck"));
            ManaRuntime.Rank r = rt.launch(ck, List.of("--job", "lp"), List.of(prog.app.toString(), "20", "1000"),
                    Map.of("MANA_LAUNCH_PAUSE", "1"));
            long pid = ManaRuntime.launchPausedPid(r);
            assertEquals(List.of(new RankLocator.Launched(pid, 0)), RankLocator.launched(ck));
            // a sample of where the process is: between two sleeps of its pause loop it is running; poll
            Await.value(Duration.ofSeconds(30), Duration.ofMillis(20), "the rank seen waiting in its launch pause",
                    () -> RankLocator.inLaunchPause(pid), Boolean::booleanValue, () -> "stderr: " + r.err().lines());
            long gdbPid;
            try (RankDebugger d = RankDebugger.attachAtLaunch(pid, Duration.ofSeconds(60), GdbMi.Options.defaults())) {
                gdbPid = d.gdb().gdbPid();
                String thread = d.threadIds().get(0);
                RankDebugger.Frame top = d.backtrace(thread).get(0);
                assertEquals("main", top.function(), top.toString());
                assertEquals(Half.UPPER, top.half(), top.toString());
                assertTrue(top.file().endsWith("splitapp.c"), top.toString());
                // nothing printed yet: the program has not run a line
                assertFalse(r.out().lines().stream().anyMatch(l -> l.startsWith("started")), r.out().lines().toString());
                // the upper half's libraries are loaded by now: a breakpoint in the test's own shared library
                d.insertBreakpoint("split_step");
                CompletableFuture<GdbEvent.Stopped> stop = d.nextStop();
                d.resume();
                GdbEvent.Stopped hit = d.awaitStop(stop, Duration.ofSeconds(60));
                RankDebugger.Frame f = d.backtrace(hit.threadId()).get(0);
                assertEquals("split_step", f.function(), f.toString());
                assertEquals(Half.UPPER, f.half());
                assertEquals("0", d.evaluate("i", hit.threadId()));
                d.gdb().execute("-break-delete");
                CompletableFuture<GdbEvent.Stopped> exit = d.gdb().expect(GdbEvent.Stopped.class, GdbEvent.Stopped::isExit);
                d.resume();
                assertEquals("exited-normally", d.awaitStop(exit, Duration.ofSeconds(60)).reason());
            }
            assertFalse(ProcessHandle.of(gdbPid).isPresent(), "gdb left behind");
            assertEquals(want, r.awaitOut(l -> l.startsWith("result "), Duration.ofSeconds(30), "result line"));
            assertEquals(0, r.process().waitFor());
        }
    }

    @Test
    void twoMpiRanksStopAtMain() throws Exception {
        if (!Files.isExecutable(Path.of("/usr/bin/mpirun.openmpi"))) {
            Cannot.skipOrFail("openmpi", "Open MPI is not installed (/usr/bin/mpirun.openmpi)");
        }
        Files.copy(ManaRuntime.root().resolve("core-native/examples/heat_mpi.c"), tmp.resolve("heat_mpi.c"));
        TestProgram.run(tmp, "mpicc.openmpi", "-g", "-O0", "-o", "heat_mpi", "heat_mpi.c");
        String app = tmp.resolve("heat_mpi").toString();
        try (ManaRuntime rt = new ManaRuntime(Files.createDirectories(tmp.resolve("run")))) {
            ManaRuntime.Rank plain = rt.mpirun(2, List.of(app, "4", "0"), Map.of());
            List<String> ref = plain.out().awaitEnd(Duration.ofSeconds(120));
            rt.startCoordinator();
            Path ck = Files.createDirectories(rt.dir.resolve("ck"));
            ManaRuntime.Rank job = rt.mpirun(2, List.of(rt.bin("mana_launch").toString(), "--job", "lpm", "--ckptdir",
                    ck.toString(), app, "4", "0"), Map.of("MANA_LAUNCH_PAUSE", "1", "MANA_RANKS", "2"));
            Map<Integer, Long> pids = new TreeMap<>();
            // processes to appear and reach the pause: /proc has no event to wait on
            Await.value(Duration.ofSeconds(60), Duration.ofMillis(50), "both ranks in their launch pause", () -> {
                for (RankLocator.Launched l : RankLocator.launched(ck)) {
                    pids.putIfAbsent(l.rank(), l.pid());
                }
                return pids.size() >= 2 && pids.values().stream().allMatch(RankLocator::inLaunchPause);
            }, Boolean::booleanValue, () -> "ranks found: " + pids + "; stderr " + job.err().lines());
            ExecutorService ex = Executors.newFixedThreadPool(2);
            List<RankDebugger> ds = new ArrayList<>();
            try {
                List<Future<RankDebugger>> fs = new ArrayList<>();
                for (long pid : pids.values()) {
                    fs.add(ex.submit(() -> RankDebugger.attachAtLaunch(pid, Duration.ofSeconds(90), GdbMi.Options.defaults())));
                }
                for (Future<RankDebugger> f : fs) {
                    ds.add(f.get(120, TimeUnit.SECONDS));
                }
                for (RankDebugger d : ds) {
                    RankDebugger.Frame top = d.backtrace(d.threadIds().get(0)).get(0);
                    assertEquals("main", top.function(), top.toString());
                    assertEquals(Half.UPPER, top.half(), top.toString());
                    assertTrue(top.file().endsWith("heat_mpi.c"), top.toString());
                }
                List<CompletableFuture<GdbEvent.Stopped>> exits = new ArrayList<>();
                for (RankDebugger d : ds) {
                    exits.add(d.gdb().expect(GdbEvent.Stopped.class, GdbEvent.Stopped::isExit));
                    d.resume();
                }
                for (int i = 0; i < ds.size(); i++) {
                    assertEquals("exited-normally", ds.get(i).awaitStop(exits.get(i), Duration.ofSeconds(120)).reason());
                }
            } finally {
                ds.forEach(RankDebugger::close);
                ex.shutdownNow();
            }
            List<String> out = job.out().awaitEnd(Duration.ofSeconds(60));
            assertEquals(ref.get(ref.size() - 1), out.get(out.size() - 1), out + "; " + job.err().lines());
            assertEquals(0, job.process().waitFor());
        }
    }
}
