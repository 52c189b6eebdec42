package dev.mana.gdb.split;

import dev.mana.elf.ElfFile;
import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.command.MiBreakDelete;
import dev.mana.gdb.mi.command.MiBreakInsert;
import dev.mana.gdb.mi.command.MiDataEvaluateExpression;
import dev.mana.gdb.mi.command.MiExecContinue;
import dev.mana.gdb.mi.command.MiFrame;
import dev.mana.gdb.mi.command.MiGdbSet;
import dev.mana.gdb.mi.command.MiStackListFrames;
import dev.mana.gdb.mi.command.CliHandleSignal;
import dev.mana.gdb.mi.command.MiTargetAttach;
import dev.mana.gdb.mi.command.MiThreadInfo;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.Half;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * gdb attached to one rank of a split process: both halves' symbols loaded, frames tagged with their
 * half, and the restart pause ({@code MANA_RESTART_PAUSE}) released when the caller is ready.
 *
 * <p>The usual sequence at a restart pause: {@link #attach}, {@link #insertBreakpoint} for each of the
 * user's breakpoints, {@link #releaseAndContinue()}; the breakpoints are in place before any upper-half
 * code runs again.
 */
public final class RankDebugger implements AutoCloseable {
    /** One stack frame with the half it runs in. */
    public record Frame(int level, long address, String function, String file, String fullname, int line, String from,
                        Half half) {
        @Override
        public String toString() {
            return String.format("#%d [%s] 0x%x %s%s%s", level, half.label(), address, function == null ? "??" : function,
                    file == null ? "" : " at " + file + ":" + line, from == null ? "" : " from " + from);
        }
    }

    /** Times of the steps of {@link #attach}, in milliseconds. */
    public record Timings(double startGdb, double attach, double plan, double symbols) {
        public double total() {
            return startGdb + attach + plan + symbols;
        }
    }

    private final GdbMi gdb;
    private final long pid;
    private final SplitProcess process;
    private final List<SymbolLoader.Outcome> symbols;
    private final Timings timings;

    private RankDebugger(GdbMi gdb, long pid, SplitProcess process, List<SymbolLoader.Outcome> symbols, Timings timings) {
        this.gdb = gdb;
        this.pid = pid;
        this.process = process;
        this.symbols = List.copyOf(symbols);
        this.timings = timings;
    }

    /**
     * Starts gdb, attaches to {@code pid} (the process stops), computes both halves' objects
     * ({@code image}: the image it was restarted from, or null for a launched rank) and loads their symbols.
     */
    public static RankDebugger attach(long pid, CheckpointImage image, GdbMi.Options options) throws IOException, MiException {
        long t0 = System.nanoTime();
        GdbMi gdb = GdbMi.start(options);
        boolean ok = false;
        try {
            long t1 = System.nanoTime();
            CompletableFuture<GdbEvent.Stopped> stop = gdb.expect(GdbEvent.Stopped.class, s -> true);
            gdb.execute(new MiTargetAttach(pid), Duration.ofSeconds(60));
            gdb.await(stop, Duration.ofSeconds(30), "stop after attaching to " + pid);
            passCheckpointSignal(gdb, pid);
            long t2 = System.nanoTime();
            SplitProcess sp = SplitProcess.ofProcess(pid, image);
            long t3 = System.nanoTime();
            List<SymbolLoader.Outcome> outcomes = SymbolLoader.load(gdb, sp);
            long t4 = System.nanoTime();
            ok = true;
            return new RankDebugger(gdb, pid, sp, outcomes,
                    new Timings(ms(t1 - t0), ms(t2 - t1), ms(t3 - t2), ms(t4 - t3)));
        } finally {
            if (!ok) {
                gdb.close();
            }
        }
    }

    /**
     * Attaches to a launched rank that waits in its launch pause ({@code MANA_LAUNCH_PAUSE=1}: nothing of the
     * upper half is loaded yet) and runs it to the program's {@code main}: the pause is released with a
     * breakpoint on the lower half's {@code lh_record_ranges} (called once at launch, when the program and
     * its {@code ld.so} are mapped, right before the jump to {@code ld.so}); there the program's load bias
     * is {@code mana_lh.uh_app_base}, so a temporary breakpoint goes on its {@code main}; the upper
     * {@code ld.so} then loads the libraries and stops there. Both halves' symbols are loaded at that stop.
     * The rank is left stopped at {@code main}.
     */
    public static RankDebugger attachAtLaunch(long pid, Duration timeout, GdbMi.Options options)
            throws IOException, MiException {
        long t0 = System.nanoTime();
        GdbMi gdb = GdbMi.start(options);
        boolean ok = false;
        try {
            long t1 = System.nanoTime();
            CompletableFuture<GdbEvent.Stopped> stop = gdb.expect(GdbEvent.Stopped.class, s -> true);
            gdb.execute(new MiTargetAttach(pid), Duration.ofSeconds(60));
            gdb.await(stop, Duration.ofSeconds(30), "stop after attaching to " + pid);
            passCheckpointSignal(gdb, pid);
            if (!onStack(gdb, RuntimeSymbols.LH_LAUNCH_PAUSE)) {
                throw new MiException(null, "pid " + pid + " does not wait in its launch pause (MANA_LAUNCH_PAUSE=1)");
            }
            String bp = gdb.run(MiBreakInsert.symbol(RuntimeSymbols.LH_RECORD_RANGES)).getString("number");
            gdb.execute(MiGdbSet.variable(RuntimeSymbols.MANA_LAUNCH_PAUSE_WAIT, "0"));
            GdbEvent.Stopped mapped = continueTo(gdb, timeout, "the program of pid " + pid + " to be mapped");
            gdb.execute(new MiBreakDelete(bp));
            String v = gdb.run(new MiDataEvaluateExpression(RuntimeSymbols.appBaseExpression()));
            long bias = parseAddress(v.split(" ")[0]);
            long main = mainOfProgram(pid, bias);
            gdb.execute(MiBreakInsert.symbol("*0x" + Long.toHexString(main)).temporary());
            GdbEvent.Stopped atMain = continueTo(gdb, timeout, "main of pid " + pid);
            if (parseAddress(atMain.frame().getString("addr")) != main) {
                throw new MiException(null, "pid " + pid + " stopped at " + atMain.frame() + ", not at main ("
                        + mapped.reason() + " before)");
            }
            long t2 = System.nanoTime();
            SplitProcess sp = SplitProcess.ofProcess(pid, null);
            long t3 = System.nanoTime();
            List<SymbolLoader.Outcome> outcomes = SymbolLoader.load(gdb, sp);
            long t4 = System.nanoTime();
            ok = true;
            return new RankDebugger(gdb, pid, sp, outcomes, new Timings(ms(t1 - t0), ms(t2 - t1), ms(t3 - t2), ms(t4 - t3)));
        } finally {
            if (!ok) {
                gdb.close();
            }
        }
    }

    private static boolean onStack(GdbMi gdb, String function) throws MiException {
        for (MiTuple f : gdb.run(new MiStackListFrames("1"))) {
            if (function.equals(f.getString("func"))) {
                return true;
            }
        }
        return false;
    }

    private static GdbEvent.Stopped continueTo(GdbMi gdb, Duration timeout, String what) throws MiException {
        CompletableFuture<GdbEvent.Stopped> stop = gdb.expect(GdbEvent.Stopped.class, s -> true);
        gdb.execute(new MiExecContinue());
        GdbEvent.Stopped s = gdb.await(stop, timeout, what);
        if (s.isExit() || !"breakpoint-hit".equals(s.reason())) {
            throw new MiException(null, "waiting for " + what + ": stopped (" + s.reason() + ")");
        }
        return s;
    }

    /** The address of {@code main} of the program the lower half mapped at {@code bias} (its mapping at offset 0). */
    static long mainOfProgram(long pid, long bias) throws IOException {
        String exe = java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/" + pid + "/exe")).toString();
        for (ProcMaps.Mapping m : ProcMaps.read(pid)) {
            if (!m.isFile() || m.offset() != 0 || m.path().equals(exe)) {
                continue;
            }
            ElfFile elf;
            try {
                elf = ElfFile.read(java.nio.file.Path.of(m.path()));
            } catch (IOException e) {
                continue; // shared memory of the MPI library, a data file: not the program
            }
            Long b = elf.biasFor(m.start(), 0);
            Long main = b != null && b == bias ? elf.symbol("main") : null;
            if (main != null) {
                return bias + main;
            }
        }
        throw new IOException("pid " + pid + ": no mapped program with a main at bias 0x" + Long.toHexString(bias));
    }

    private static double ms(long ns) {
        return ns / 1e6;
    }

    public GdbMi gdb() { return gdb; }
    public long pid() { return pid; }
    public SplitProcess process() { return process; }
    public List<SymbolLoader.Outcome> symbols() { return symbols; }
    public Timings timings() { return timings; }

    /** The restart pause level the rank was started with (0: none), from {@code lh_info}. */
    public int pauseLevel() {
        return process.lhInfo() == null ? 0 : process.lhInfo().restartPause();
    }

    /** Whether some thread waits in the lower half's restart pause loop. */
    public boolean isPaused() throws MiException {
        for (MiTuple t : gdb.run(new MiThreadInfo())) {
            if (RuntimeSymbols.LH_RESTART_PAUSE.equals(t.path("frame", "func"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Lets the runtime's checkpoint signal through gdb without a stop ({@link CliHandleSignal}): a checkpoint
     * of the job while this rank runs under gdb then goes on as without it. The signal is the rank's
     * {@code MANA_CKPT_SIGNAL} (its environment as it started), else the runtime's default, 40.
     */
    static void passCheckpointSignal(GdbMi gdb, long pid) throws MiException {
        gdb.execute(new CliHandleSignal(checkpointSignal(Path.of("/proc/" + pid + "/environ"))));
    }

    /** MANA_CKPT_SIGNAL of an environ file (NUL-separated), or 40 where it is unset, unreadable or bad. */
    static int checkpointSignal(Path environ) {
        try {
            for (String e : Files.readString(environ, java.nio.charset.StandardCharsets.ISO_8859_1).split("\0")) {
                if (e.startsWith("MANA_CKPT_SIGNAL=")) {
                    int n = Integer.parseInt(e.substring("MANA_CKPT_SIGNAL=".length()).trim());
                    return n >= 1 && n <= 64 ? n : DEFAULT_CKPT_SIGNAL;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // the default
        }
        return DEFAULT_CKPT_SIGNAL;
    }

    /** The runtime's checkpoint signal unless MANA_CKPT_SIGNAL says another (lh_info.h). */
    static final int DEFAULT_CKPT_SIGNAL = 40;

    /**
     * Waits until a restarting rank sits in its restart pause at {@code level}, through a short gdb
     * session of its own (attach, let it run to {@code lh_restart_pause} with {@code level == N} if it is
     * not there yet, detach). A debugger that attaches while the restore code still replaces memory and
     * moves the vdso sees an inconsistent process (unreadable link map, no shared libraries); attach the
     * real session after this returns. Nothing else can tell from outside: the pause loop spins.
     */
    public static void waitForPause(long pid, int level, Duration timeout, GdbMi.Options options)
            throws IOException, MiException {
        try (GdbMi g = GdbMi.start(options.withKillOnClose(false))) {
            CompletableFuture<GdbEvent.Stopped> attached = g.expect(GdbEvent.Stopped.class, s -> true);
            g.execute(new MiTargetAttach(pid), Duration.ofSeconds(60));
            g.await(attached, Duration.ofSeconds(30), "stop after attaching to " + pid);
            passCheckpointSignal(g, pid);
            for (MiTuple f : g.run(new MiStackListFrames("1"))) {
                if (RuntimeSymbols.LH_RESTART_PAUSE.equals(f.getString("func"))) {
                    return; // already there (close() detaches)
                }
            }
            g.execute(pauseBreakpoint(level));
            CompletableFuture<GdbEvent.Stopped> stop = g.expect(GdbEvent.Stopped.class, s -> true);
            g.execute(new MiExecContinue());
            GdbEvent.Stopped s = g.await(stop, timeout, "restart pause level " + level + " of pid " + pid);
            if (s.isExit() || !RuntimeSymbols.LH_RESTART_PAUSE.equals(s.frame().getString("func"))) {
                throw new MiException(null, "pid " + pid + " did not reach restart pause level " + level + " (stopped: "
                        + s.reason() + ")");
            }
        }
    }

    /**
     * Makes sure the rank sits in its restart pause at {@code level}: when it was found while still
     * restoring, a temporary breakpoint on {@code lh_restart_pause} (condition {@code level == N}) lets it
     * run there first. Upper-half breakpoints need this from level 2 on: before, that memory is not back.
     */
    public void awaitPause(int level, Duration timeout) throws MiException {
        if (isPaused()) {
            return;
        }
        gdb.execute(pauseBreakpoint(level));
        CompletableFuture<GdbEvent.Stopped> stop = nextStop();
        resume();
        GdbEvent.Stopped s = awaitStop(stop, timeout);
        if (s.isExit() || !RuntimeSymbols.LH_RESTART_PAUSE.equals(s.frame().getString("func"))) {
            throw new MiException(null, "rank pid " + pid + " did not reach restart pause level " + level + " (stopped: "
                    + s.reason() + ")");
        }
    }

    /** A temporary breakpoint on {@code lh_restart_pause} that stops at pause level {@code level} only. */
    static MiBreakInsert pauseBreakpoint(int level) {
        return MiBreakInsert.symbol(RuntimeSymbols.LH_RESTART_PAUSE).temporary()
                .condition(RuntimeSymbols.restartPauseLevelCondition(level));
    }

    /** {@code -break-insert LOCATION}; returns the breakpoint number. */
    public String insertBreakpoint(String location) throws MiException {
        return gdb.run(MiBreakInsert.linespec(location)).getString("number");
    }

    /** Clears {@code mana_restart_pause_wait}: the pause loop ends once the process runs again. */
    public void releasePause() throws MiException {
        gdb.execute(MiGdbSet.variable(RuntimeSymbols.MANA_RESTART_PAUSE_WAIT, "0"));
    }

    /** Resumes every thread. */
    public void resume() throws MiException {
        gdb.execute(new MiExecContinue());
    }

    /**
     * Releases the restart pause and lets the restore finish under gdb: the rank runs to {@code lh_restart_pause}
     * at level 4 (a temporary breakpoint; "just before user code resumes": every thread is back) and is left
     * stopped there, the pause no longer pending; the caller resumes it. After a pause at levels 1 to 3 the
     * restore still has work left, one thread with every signal blocked, then the threads cloned: an interrupt sent
     * in that time (gdb's SIGINT) stopped the rank inside the restore (one thread, still in the pause loop the
     * debugger had just released), or once here never stopped it (no stop within 40 s; while the restore blocks
     * every signal), though the debugger already showed the rank running. From level 4 on nothing is left but the
     * resume itself. Returns the stop, or null when the rank
     * waited at level 4 already, or in no restart pause (released only: the breakpoint would never be met).
     */
    public GdbEvent.Stopped releaseToUserCode(Duration timeout) throws MiException {
        int level = pauseLevel();
        if (level < 1 || level >= 4 || !isPaused()) {
            releasePause();
            return null;
        }
        gdb.execute(pauseBreakpoint(4));
        releasePause();
        CompletableFuture<GdbEvent.Stopped> stop = nextStop();
        resume();
        GdbEvent.Stopped s = awaitStop(stop, timeout);
        if (s.isExit() || s.frame() == null || !RuntimeSymbols.LH_RESTART_PAUSE.equals(s.frame().getString("func"))) {
            throw new MiException(null, "rank pid " + pid + " did not finish its restore (stopped: " + s.reason() + ")");
        }
        return s;
    }

    /** Releases the pause and resumes every thread; breakpoints inserted before are in force. */
    public void releaseAndContinue() throws MiException {
        releasePause();
        resume();
    }

    /** Waits for the next stop (a breakpoint, a signal, the end of the program). */
    public GdbEvent.Stopped awaitStop(CompletableFuture<GdbEvent.Stopped> registered, Duration timeout) throws MiException {
        return gdb.await(registered, timeout, "stop of rank pid " + pid);
    }

    /** A future of the next stop; register before resuming. */
    public CompletableFuture<GdbEvent.Stopped> nextStop() {
        return gdb.expect(GdbEvent.Stopped.class, s -> true);
    }

    /** Thread ids (gdb's numbering). */
    public List<String> threadIds() throws MiException {
        List<String> ids = new ArrayList<>();
        for (MiTuple t : gdb.run(new MiThreadInfo())) {
            ids.add(t.getString("id"));
        }
        return ids;
    }

    /** The stack of one thread, each frame tagged with its half. */
    public List<Frame> backtrace(String threadId) throws MiException {
        List<Frame> out = new ArrayList<>();
        for (MiTuple f : gdb.run(new MiStackListFrames(threadId))) {
            long addr = parseAddress(f.getString("addr"));
            String line = f.getString("line");
            out.add(new Frame(Integer.parseInt(f.getString("level", "0")), addr, f.getString("func"), f.getString("file"),
                    f.getString("fullname"), line == null ? 0 : Integer.parseInt(line), f.getString("from"),
                    process.halfOf(addr)));
        }
        return out;
    }

    /** An expression's value in the current frame of {@code threadId} (null: the selected thread). */
    public String evaluate(String expression, String threadId) throws MiException {
        return gdb.run(new MiDataEvaluateExpression(threadId == null ? null : MiFrame.top(threadId), expression));
    }

    static long parseAddress(String s) {
        if (s == null || s.equals("<unavailable>")) {
            return 0;
        }
        return Long.parseUnsignedLong(s.startsWith("0x") ? s.substring(2) : s, 16);
    }

    /** Detaches (the rank runs on; a pause not yet released stays) and ends gdb. */
    @Override
    public void close() {
        gdb.close();
    }
}
