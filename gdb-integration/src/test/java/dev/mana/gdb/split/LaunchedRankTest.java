package dev.mana.gdb.split;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.elf.ElfFile;
import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.testsupport.CheckpointFixture;
import dev.mana.gdb.testsupport.ManaRuntime;
import dev.mana.inspector.Half;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rank that was launched, not restarted: no image, so the halves come from /proc/PID/maps and the
 * lower half's own ranges in lh_info; gdb attaches to the running program, and detaching leaves it
 * running to its normal end.
 */
@Timeout(120)
class LaunchedRankTest {
    /** Steps of 10 ms: the run outlives gdb's attach on a loaded machine (150, 1.5 s, is close to it). */
    private static final String STEPS = "600";
    @Test
    void attachToARunningRankDetachAndItFinishes() throws Exception {
        CheckpointFixture fx = CheckpointFixture.get();
        ManaRuntime.Rank r = launchRunning(fx, "c");
        try (RankDebugger dbg = RankDebugger.attach(r.pid(), null, GdbMi.Options.defaults())) {
            SplitProcess sp = dbg.process();
            assertTrue(sp.warnings().isEmpty(), sp.warnings().toString());
            LhInfo lh = sp.lhInfo();
            assertFalse(lh.restarted());
            assertEquals(0, lh.restartPause());
            assertFalse(lh.lowerRanges().isEmpty());
            List<String> upper = sp.objects(Half.UPPER).stream().map(o -> o.path().getFileName().toString()).toList();
            List<String> lower = sp.objects(Half.LOWER).stream().map(o -> o.path().getFileName().toString()).toList();
            assertTrue(upper.containsAll(List.of("splitapp", "libsplitstep.so", "libmana.so", "libc.so.6",
                    "ld-linux-x86-64.so.2")), upper.toString());
            assertTrue(lower.containsAll(List.of("lower-half", "libc.so.6", "ld-linux-x86-64.so.2")), lower.toString());
            for (ElfObject o : sp.objects()) {
                assertEquals(ElfObject.BuildIdCheck.MATCH, o.check(), o.toString());
            }
            ElfObject app = sp.objects(Half.UPPER).stream().filter(o -> o.path().equals(fx.prog.app)).findFirst().orElseThrow();
            assertEquals(fx.launchedSymbols.get("main"), app.bias() + ElfFile.read(fx.prog.app).symbol("main"));

            dbg.insertBreakpoint("split_step");
            CompletableFuture<GdbEvent.Stopped> stop = dbg.nextStop();
            dbg.resume();
            GdbEvent.Stopped hit = dbg.awaitStop(stop, Duration.ofSeconds(30));
            List<RankDebugger.Frame> stack = dbg.backtrace(hit.threadId());
            assertEquals("split_step", stack.get(0).function());
            assertEquals("splitstep.c", Path.of(stack.get(0).file()).getFileName().toString());
            assertEquals(Half.UPPER, stack.get(0).half());
            assertEquals("main", stack.get(1).function());
            dbg.gdb().execute("-break-delete");
        }
        // closing detached: the program runs on and ends normally
        endsWithTheUninterruptedResult(fx, r);
    }

    /** A checkpoint of a rank that runs under gdb goes through: gdb passes the checkpoint signal without
     *  stopping the rank (before, gdb stopped every thread at signal 40 and the checkpoint waited for a
     *  Resume that never came). The rank goes on and ends with the uninterrupted result. */
    @Test
    void checkpointWhileRunningUnderGdb() throws Exception {
        CheckpointFixture fx = CheckpointFixture.get();
        ManaRuntime.Rank r = launchRunning(fx, "g");
        try (RankDebugger dbg = RankDebugger.attach(r.pid(), null, GdbMi.Options.defaults())) {
            CompletableFuture<GdbEvent.Stopped> stop = dbg.nextStop();
            dbg.resume();
            fx.rt.checkpoint("g");     // mana_status --checkpoint: exit 0 once the image is committed
            assertFalse(stop.isDone(), "gdb stopped the rank during the checkpoint: " + (stop.isDone() ? stop.get() : ""));
            try (var images = Files.list(fx.tmp.resolve("ck-g/ckpt_rank_0"))) {
                assertTrue(images.anyMatch(f -> f.toString().endsWith(".mana")), "the checkpoint wrote rank 0's image");
            }
        }
        endsWithTheUninterruptedResult(fx, r);
    }

    @Test
    void checkpointSignalFromTheEnvironment(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path env = dir.resolve("environ");
        Files.writeString(env, "A=1\0MANA_CKPT_SIGNAL=45\0B=2\0");
        assertEquals(45, RankDebugger.checkpointSignal(env));
        Files.writeString(env, "A=1\0MANA_CKPT_SIGNAL=x\0");
        assertEquals(40, RankDebugger.checkpointSignal(env));
        assertEquals(40, RankDebugger.checkpointSignal(dir.resolve("missing")));
        assertEquals("handle SIG45 nostop noprint pass", new dev.mana.gdb.mi.command.CliHandleSignal(45).text());
    }

    /** The test program under bin/mana_launch as job {@code job}, running (its "started" line seen). */
    private static ManaRuntime.Rank launchRunning(CheckpointFixture fx, String job) throws Exception {
        fx.rt.startCoordinator();
        ManaRuntime.Rank r = fx.rt.launch(fx.tmp.resolve("ck-" + job), List.of("--job", job),
                List.of(fx.prog.app.toString(), STEPS, "10000"));
        r.awaitOut(l -> l.startsWith("started "), Duration.ofSeconds(30), "started line");
        return r;
    }

    /** The rank runs to its end with the result line of an uninterrupted run, and exits 0. */
    private static void endsWithTheUninterruptedResult(CheckpointFixture fx, ManaRuntime.Rank r) throws Exception {
        String result = r.awaitOut(l -> l.startsWith("result "), Duration.ofSeconds(60), "result line");
        String reference = dev.mana.gdb.testsupport.TestProgram.run(fx.prog.dir, fx.prog.app.toString(), STEPS, "0")
                .lines().filter(l -> l.startsWith("result ")).findFirst().orElseThrow();
        assertEquals(reference, result);
        assertEquals(0, r.process().waitFor());
    }
}
