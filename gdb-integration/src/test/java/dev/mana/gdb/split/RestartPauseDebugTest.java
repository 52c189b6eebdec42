package dev.mana.gdb.split;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.elf.ElfFile;
import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.testsupport.CheckpointFixture;
import dev.mana.gdb.testsupport.ManaRuntime;
import dev.mana.gdb.testsupport.TestProgram;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.Half;
import dev.mana.inspector.Images;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The whole path on the real runtime: the test program (linked against a shared library of the test,
 * two threads) is launched under bin/mana_launch, checkpointed with mana_status, killed, and restarted
 * with MANA_RESTART_PAUSE 2, 3 and 4 from the same image. Each time gdb attaches at the pause, loads
 * both halves' symbols, sets a breakpoint in code that runs right after the checkpoint point, releases
 * the pause; the breakpoint is hit, its frames name the program's functions and lines in the upper
 * half, locals agree with the image, and the program ends with the result of an uninterrupted run.
 */
@Timeout(300)
class RestartPauseDebugTest {
    static CheckpointFixture fx;
    static TestProgram prog;
    static ManaRuntime rt;
    static Path ckpt;
    static long iterationAtCheckpoint;
    static Map<String, Long> launchedSymbols;
    static String nativeResult;

    @BeforeAll
    static void checkpoint() throws Exception {
        fx = CheckpointFixture.get();
        prog = fx.prog;
        rt = fx.rt;
        ckpt = fx.ckpt;
        iterationAtCheckpoint = fx.iterationAtCheckpoint;
        launchedSymbols = fx.launchedSymbols;
        nativeResult = fx.nativeResult;
    }

    static Path image() throws Exception {
        return fx.image();
    }

    @Test
    void imageAloneGivesTheUpperHalfObjectsWithMatchingBuildIds() throws Exception {
        try (CheckpointImage img = Images.open(image())) {
            SplitProcess sp = SplitProcess.ofImage(img);
            List<String> names = sp.objects(Half.UPPER).stream().map(o -> o.path().getFileName().toString()).toList();
            assertTrue(names.containsAll(List.of("splitapp", "libsplitstep.so", "libmana.so", "libc.so.6",
                    "ld-linux-x86-64.so.2")), names.toString());
            for (ElfObject o : sp.objects()) {
                assertEquals(ElfObject.BuildIdCheck.MATCH, o.check(), o.toString());
            }
            ElfObject app = sp.objects().stream().filter(o -> o.path().equals(prog.app)).findFirst().orElseThrow();
            // bias + link-time address of main = the address the program printed at launch
            long mainLink = ElfFile.read(prog.app).symbol("main");
            assertEquals(launchedSymbols.get("main"), app.bias() + mainLink);
        }
    }

    @ParameterizedTest(name = "pause level {0}")
    @ValueSource(ints = {2, 3, 4})
    void attachAtPauseLevelBreakOnRestartAndFinish(int level) throws Exception {
        rt.startCoordinator();
        ManaRuntime.Rank r = rt.restart(ckpt, "a", level, Map.of());
        long pid = ManaRuntime.pausedPid(r, level);
        long gdbPid;
        try (CheckpointImage img = Images.open(image());
             RankDebugger dbg = RankDebugger.attach(pid, img, GdbMi.Options.defaults())) {
            gdbPid = dbg.gdb().gdbPid();
            assertEquals(level, dbg.pauseLevel());
            assertTrue(dbg.isPaused(), "a thread waits in lh_restart_pause");
            SplitProcess sp = dbg.process();
            assertTrue(sp.warnings().isEmpty(), sp.warnings().toString());

            // both halves: the upper from the image, the lower from /proc/PID/maps
            List<String> upper = sp.objects(Half.UPPER).stream().map(o -> o.path().getFileName().toString()).toList();
            List<String> lower = sp.objects(Half.LOWER).stream().map(o -> o.path().getFileName().toString()).toList();
            assertTrue(upper.containsAll(List.of("splitapp", "libsplitstep.so", "libmana.so", "libc.so.6",
                    "ld-linux-x86-64.so.2")), upper.toString());
            assertTrue(lower.containsAll(List.of("lower-half", "libc.so.6", "ld-linux-x86-64.so.2")), lower.toString());
            for (SymbolLoader.Outcome o : dbg.symbols()) {
                SymbolLoader.Action want = o.object().half() == Half.UPPER ? SymbolLoader.Action.ADDED
                        : SymbolLoader.Action.KNOWN_TO_GDB;
                assertEquals(want, o.action(), o.toString());
                assertEquals(ElfObject.BuildIdCheck.MATCH, o.object().check(), o.toString());
            }

            // the addresses the program printed when it was launched hold, for gdb, the same five symbols
            // ("main" and "usleep" exist in both halves: gdb is asked about the address, not the name)
            for (String sym : List.of("main", "after_step", "split_step", "usleep", "iteration")) {
                String where = dbg.gdb().execute("info symbol 0x" + Long.toHexString(launchedSymbols.get(sym))).console();
                assertTrue(where.startsWith(sym + " in section "), sym + ": " + where);
            }
            assertEquals(Long.toUnsignedString(launchedSymbols.get("after_step")),
                    dbg.evaluate("(unsigned long)&after_step", null));
            // memory is back at levels >= 2: the global holds what the image saved
            assertEquals(Long.toString(iterationAtCheckpoint), dbg.evaluate("iteration", null));

            // the paused thread runs lower-half code: its frames say so
            List<RankDebugger.Frame> pauseStack = dbg.backtrace("1");
            assertEquals("lh_restart_pause", pauseStack.get(0).function());
            assertEquals(Half.LOWER, pauseStack.get(0).half());

            // a breakpoint in code that runs right after the checkpoint point, then release
            dbg.insertBreakpoint("after_step");
            CompletableFuture<GdbEvent.Stopped> stop = dbg.nextStop();
            long t0 = System.nanoTime();
            dbg.releaseAndContinue();
            GdbEvent.Stopped hit = dbg.awaitStop(stop, Duration.ofSeconds(30));
            assertEquals("breakpoint-hit", hit.reason(), hit.toString());
            assertTrue((System.nanoTime() - t0) / 1e9 < 10);

            List<RankDebugger.Frame> stack = dbg.backtrace(hit.threadId());
            RankDebugger.Frame top = stack.get(0);
            assertEquals("after_step", top.function());
            assertEquals("splitapp.c", Path.of(top.file()).getFileName().toString());
            assertEquals(20, top.line());
            assertEquals(Half.UPPER, top.half());
            RankDebugger.Frame caller = stack.get(1);
            assertEquals("main", caller.function());
            assertTrue(caller.line() > 40, caller.toString());
            assertEquals(Half.UPPER, caller.half());

            // locals: the step after the checkpoint (or the one it interrupted)
            long i = Long.parseLong(dbg.evaluate("i", hit.threadId()));
            assertTrue(i == iterationAtCheckpoint + 1 || i == iterationAtCheckpoint,
                    "i = " + i + " at the checkpoint " + iterationAtCheckpoint);
            assertEquals(Long.toString(i), dbg.evaluate("iteration", hit.threadId()));

            // every thread: frame 0 is a named function, tagged with its half. A recreated thread may not
            // have left the lower half's thread boot yet (levels 3 and 4): then it is tagged lower. A thread
            // inside the vDSO (the checkpoint thread reading the clock while it reconnects) is the kernel's
            // there: its caller is the one to judge
            assertEquals(3, dbg.threadIds().size(), dbg.threadIds().toString());
            for (String t : dbg.threadIds()) {
                List<RankDebugger.Frame> fs = dbg.backtrace(t);
                RankDebugger.Frame f0 = fs.get(0);
                if (f0.half() == Half.KERNEL && fs.size() > 1) {
                    f0 = fs.get(1);
                }
                assertNotNull(f0.function(), fs.toString());
                // (the boot code's system-call helpers are inlined: frame 0 may be mana_sys4 inside lh_thread_boot)
                boolean inBoot = fs.stream().anyMatch(fr -> fr.function() != null && fr.function().startsWith("lh_"));
                Half want = inBoot ? Half.LOWER : Half.UPPER;
                assertEquals(want, f0.half(), fs.toString());
            }

            // run to the end: same result as the uninterrupted run
            dbg.gdb().execute("-break-delete");
            CompletableFuture<GdbEvent.Stopped> exit = dbg.gdb().expect(GdbEvent.Stopped.class, GdbEvent.Stopped::isExit);
            dbg.resume();
            GdbEvent.Stopped end = dbg.awaitStop(exit, Duration.ofSeconds(60));
            assertEquals("exited-normally", end.reason(), end.toString());
        }
        assertFalse(ProcessHandle.of(gdbPid).isPresent(), "gdb left behind");
        String result = r.awaitOut(l -> l.startsWith("result "), Duration.ofSeconds(30), "result line");
        assertEquals(nativeResult, result);
        assertEquals(0, r.process().waitFor());
        assertNotNull(r.process());
    }

    /** Two ranks (two jobs: the MPI runtime is not there yet) paused and debugged at the same time. */
    @Test
    void twoRanksDebuggedAtOnce() throws Exception {
        rt.startCoordinator();
        ManaRuntime.Rank ra = rt.restart(ckpt, "a", 2, Map.of());
        ManaRuntime.Rank rb = rt.restart(fx.ckptB, "b", 2, Map.of());
        long pa = ManaRuntime.pausedPid(ra, 2);
        long pb = ManaRuntime.pausedPid(rb, 2);
        java.util.concurrent.ExecutorService ex = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            var fa = ex.submit(() -> breakOnceAndFinish(pa, CheckpointFixture.image(ckpt)));
            var fb = ex.submit(() -> breakOnceAndFinish(pb, CheckpointFixture.image(fx.ckptB)));
            RankDebugger.Frame a = fa.get(120, java.util.concurrent.TimeUnit.SECONDS);
            RankDebugger.Frame b = fb.get(120, java.util.concurrent.TimeUnit.SECONDS);
            for (RankDebugger.Frame f : List.of(a, b)) {
                assertEquals("after_step", f.function());
                assertEquals(Half.UPPER, f.half());
            }
        } finally {
            ex.shutdownNow();
        }
        for (ManaRuntime.Rank r : List.of(ra, rb)) {
            assertEquals(nativeResult, r.awaitOut(l -> l.startsWith("result "), Duration.ofSeconds(60), "result"));
            assertEquals(0, r.process().waitFor());
        }
    }

    private static RankDebugger.Frame breakOnceAndFinish(long pid, Path image) throws Exception {
        try (CheckpointImage img = Images.open(image);
             RankDebugger dbg = RankDebugger.attach(pid, img, GdbMi.Options.defaults())) {
            dbg.insertBreakpoint("after_step");
            CompletableFuture<GdbEvent.Stopped> stop = dbg.nextStop();
            dbg.releaseAndContinue();
            GdbEvent.Stopped hit = dbg.awaitStop(stop, Duration.ofSeconds(60));
            RankDebugger.Frame top = dbg.backtrace(hit.threadId()).get(0);
            dbg.gdb().execute("-break-delete");
            CompletableFuture<GdbEvent.Stopped> exit = dbg.gdb().expect(GdbEvent.Stopped.class, GdbEvent.Stopped::isExit);
            dbg.resume();
            GdbEvent.Stopped end = dbg.awaitStop(exit, Duration.ofSeconds(60));
            assertEquals("exited-normally", end.reason(), end.record().toString());
            return top;
        }
    }
}
