package dev.mana.eclipse.debug;

import dev.mana.gdb.mi.BreakInsert;
import dev.mana.gdb.mi.Disassembly;
import dev.mana.gdb.mi.Expressions;
import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.Registers;
import dev.mana.gdb.mi.Stepping;
import dev.mana.gdb.mi.Watch;
import dev.mana.gdb.mi.command.CliKill;
import dev.mana.gdb.mi.command.MiBreakDelete;
import dev.mana.gdb.mi.command.MiExecInterrupt;
import dev.mana.gdb.mi.command.MiVarDelete;
import dev.mana.gdb.split.RankDebugger;
import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.Images;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IMarkerDelta;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.model.DebugElement;
import org.eclipse.debug.core.model.IBreakpoint;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.core.model.IMemoryBlock;
import org.eclipse.debug.core.model.IMemoryBlockExtension;
import org.eclipse.debug.core.model.IMemoryBlockRetrievalExtension;
import org.eclipse.debug.core.model.IProcess;
import org.eclipse.debug.core.model.IThread;

/**
 * One debugged rank: gdb (through gdb-integration's {@link RankDebugger}) attached to the rank's
 * process, both halves' symbols loaded. Named {@code rank N (pid P)} in the Debug view.
 *
 * <p>{@link #attach} leaves the rank suspended at its restart pause with every enabled breakpoint of
 * the model inserted; {@link #releaseAndResume()} lets the upper half run. gdb's events become debug
 * events (suspend with BREAKPOINT or STEP_END, resume, terminate). Nothing here waits on gdb from
 * gdb's reader thread: event handling only records state and fires.
 *
 * <p>Locks: gdb's reader thread is the only thread that delivers gdb's answers, so it must never wait for a
 * lock that another thread holds while it waits for an answer (that thread would wait for the reader, the
 * reader for it, until gdb's 30 s time-out). The reader takes {@link #threadLock} only, and only for map
 * operations; no method holds it, or the target's own monitor, across a gdb command. The register caches
 * have a lock of their own ({@link #registerLock}), which the reader never takes.
 */
public final class RankDebugTarget extends DebugElement implements IDebugTarget, IMemoryBlockRetrievalExtension {
    private final ILaunch launch;
    private final int rank;
    private final RankDebugger dbg;
    private final Map<IBreakpoint, String> installed = new ConcurrentHashMap<>();
    /** gdb's threads by id, in the order gdb listed them; guarded by {@link #threadLock}. */
    private final Map<String, RankThread> threads = new LinkedHashMap<>();
    /** Guards {@link #threads}; held for map operations only, never across a gdb command (the reader takes it). */
    private final Object threadLock = new Object();
    /** Guards the register caches while gdb is read for them (the reader never takes it). */
    private final Object registerLock = new Object();
    private volatile boolean suspended = true;
    private volatile boolean terminated;
    private volatile GdbEvent.Stopped lastStop;
    /** The rank still waits in its restart pause: the next resume lets the restore finish first. */
    private volatile boolean pausePending;
    /** The rank runs the rest of its restore ({@link #finishRestore}): its run and stop are not the user's. */
    private volatile boolean restoring;
    final List<String> varObjects = new ArrayList<>();
    /** The rank's gdb console: a process of the launch, so the Console view gives it a console of its own. */
    private GdbConsoleProcess console;
    /** Values shown at the last stop: what changed is highlighted. */
    private final ValueHistory history = new ValueHistory();
    /** gdb's register names by number and its register groups: fixed for a process, read once. */
    private List<String> registerNames;
    private List<Registers.Group> registerGroups;
    /** gdb's number of the temporary breakpoint of a Run to Line in progress, or null. */
    private volatile String runToLineBreakpoint;

    private RankDebugTarget(ILaunch launch, int rank, RankDebugger dbg) {
        super(null);
        this.launch = launch;
        this.rank = rank;
        this.dbg = dbg;
    }

    /**
     * Attaches gdb to {@code pid} (rank {@code rank}, restarted from {@code image}, or null for a launched
     * rank), loads both halves' symbols, inserts the model's enabled breakpoints and adds the target to
     * {@code launch}. Long: call it from a Job.
     */
    public static RankDebugTarget attach(ILaunch launch, int rank, long pid, Path image) throws CoreException {
        return attach(launch, rank, pid, image, 0);
    }

    /**
     * As {@link #attach(ILaunch, int, long, Path)}, for a rank restarted with {@code MANA_RESTART_PAUSE=pauseLevel}
     * (0: none): a rank found while still restoring runs to that pause first; {@link #resume()} releases it.
     */
    public static RankDebugTarget attach(ILaunch launch, int rank, long pid, Path image, int pauseLevel)
            throws CoreException {
        RankDebugger d;
        try (CheckpointImage img = image == null ? null : Images.open(image)) {
            if (pauseLevel > 0) {
                // not while the restore code still replaces memory: gdb would see an inconsistent process
                RankDebugger.waitForPause(pid, pauseLevel, Duration.ofSeconds(60), ManaDebugModel.gdbOptions());
            }
            d = RankDebugger.attach(pid, img, ManaDebugModel.gdbOptions());
        } catch (ImageException e) {
            throw ManaDebugModel.error(e.getMessage(), e);
        } catch (IOException | MiException e) {
            throw ManaDebugModel.error("rank " + rank + " (pid " + pid + "): " + e.getMessage(), e);
        }
        RankDebugTarget t = new RankDebugTarget(launch, rank, d);
        try {
            t.pausePending = d.isPaused();
        } catch (MiException e) {
            t.pausePending = pauseLevel > 0;
        }
        t.register(launch, false);
        return t;
    }

    /** Events, breakpoints, source lookup, the gdb console; then the target joins the launch, suspended. */
    private void register(ILaunch launch, boolean selectTopFrame) {
        dbg.gdb().addListener(this::onGdbEvent);
        for (IBreakpoint bp : ManaDebugModel.breakpoints()) {
            breakpointAdded(bp);
        }
        DebugPlugin.getDefault().getBreakpointManager().addBreakpointListener(this);
        if (launch.getSourceLocator() == null) {
            launch.setSourceLocator(new ManaSourceLocator());
        }
        console = new GdbConsoleProcess(this);
        launch.addDebugTarget(this);
        launch.addProcess(console);
        console.fireCreated();
        fireCreationEvent();
        // at main: the thread reports it, so the Debug view selects its top frame and shows the source line
        RankThread first = selectTopFrame ? thread("1") : null;
        if (first != null) {
            first.fireSuspendEvent(DebugEvent.CLIENT_REQUEST);
        } else {
            fireSuspendEvent(DebugEvent.CLIENT_REQUEST);
        }
    }

    /**
     * Debug Rank (the MANA Job view): attaches to a rank that runs, launched or restarted (then from the image
     * its process restores, which tells the upper half's objects), and adds it to {@code launch}, stopped where
     * it was. Long: call it from a Job.
     */
    public static RankDebugTarget attachRunning(ILaunch launch, int rank, long pid) throws CoreException {
        Path image = null;
        Path restoreDir = dev.mana.gdb.split.RankLocator.restoreDirOf(pid);
        if (restoreDir != null) {
            try {
                image = dev.mana.gdb.split.RankLocator.imageOf(pid, restoreDir, rank);
            } catch (IOException e) {
                throw ManaDebugModel.error("rank " + rank + " (pid " + pid + "): its image: " + e.getMessage(), e);
            }
        }
        return attach(launch, rank, pid, image, 0);
    }

    /**
     * Launch-time debugging: attaches to a launched rank waiting in its launch pause ({@code MANA_LAUNCH_PAUSE=1}),
     * runs it to its program's {@code main} with both halves' symbols, inserts the model's enabled breakpoints
     * and adds the target, suspended at {@code main}, to {@code launch}. Long: call it from a Job.
     */
    public static RankDebugTarget attachAtLaunch(ILaunch launch, int rank, long pid) throws CoreException {
        RankDebugger d;
        try {
            d = RankDebugger.attachAtLaunch(pid, Duration.ofSeconds(120), ManaDebugModel.gdbOptions());
        } catch (IOException | MiException e) {
            throw ManaDebugModel.error("rank " + rank + " (pid " + pid + "): " + e.getMessage(), e);
        }
        RankDebugTarget t = new RankDebugTarget(launch, rank, d);
        t.pausePending = false;
        t.register(launch, true);
        return t;
    }

    public RankDebugger debugger() { return dbg; }
    public int rank() { return rank; }

    /** The breakpoint gdb numbered {@code number}, or null. */
    IBreakpoint breakpointByNumber(String number) {
        for (Map.Entry<IBreakpoint, String> e : installed.entrySet()) {
            if (e.getValue().equals(number)) {
                return e.getKey();
            }
        }
        return null;
    }

    GdbEvent.Stopped lastStop() {
        return lastStop;
    }

    /** Clears the restart pause and resumes: the upper half runs, breakpoints in force. */
    public void releaseAndResume() throws DebugException {
        pausePending = true;
        resume();
    }

    /**
     * Releases the restart pause and runs the restore to its end, the rank still suspended ({@link #finishRestore}),
     * for a {@code continue} typed into the gdb console, which then resumes it. (Cleared alone, the pause let the
     * console's continue resume a rank still restoring: a Suspend then stopped it inside the restore.)
     */
    void releasePauseToUserCode() throws DebugException {
        if (pausePending) {
            finishRestore();
            pausePending = false;
        }
    }

    /** Whether the rank still waits in its restart pause (the next resume releases it). */
    public boolean isPausePending() {
        return pausePending;
    }

    private void onGdbEvent(GdbEvent e) {
        if (e instanceof GdbEvent.Stopped s) {
            if (s.isExit()) {
                terminated();
                return;
            }
            if (restoring) {
                return; // the end of the restore: the rank stays suspended and is resumed from there
            }
            lastStop = s;
            suspended = true;
            // Run to Line's temporary breakpoint: the end of a step, not a user's breakpoint (a user's breakpoint
            // met on the way leaves it in place, to be met later)
            String rtl = runToLineBreakpoint;
            boolean ranToLine = rtl != null && rtl.equals(Watch.stoppedBy(s));
            if (ranToLine) {
                runToLineBreakpoint = null;
            }
            int detail = switch (s.reason() == null ? "" : s.reason()) {
                case "breakpoint-hit" -> ranToLine ? DebugEvent.STEP_END : DebugEvent.BREAKPOINT;
                case "watchpoint-trigger", "read-watchpoint-trigger", "access-watchpoint-trigger", "watchpoint-scope" ->
                        DebugEvent.BREAKPOINT;
                case "end-stepping-range", "function-finished", "location-reached" -> DebugEvent.STEP_END;
                default -> DebugEvent.CLIENT_REQUEST;
            };
            // the thread that stopped reports it (the Debug view then selects its top frame and source
            // display shows the line); the target only when gdb names no thread
            RankThread t = thread(s.threadId());
            if (t != null) {
                t.fireSuspendEvent(detail);
            } else {
                fireSuspendEvent(detail);
            }
            othersChanged();
        } else if (e instanceof GdbEvent.Running) {
            if (restoring) {
                return;
            }
            suspended = false;
            fireResumeEvent(DebugEvent.UNSPECIFIED);
            othersChanged();
        } else if (e instanceof GdbEvent.ThreadChanged || e instanceof GdbEvent.GdbExited) {
            if (e instanceof GdbEvent.GdbExited) {
                terminated();
            } else {
                fireChangeEvent(DebugEvent.CONTENT);
            }
        }
    }

    /**
     * This rank stopped or runs: the other ranks of the launch that run now wait for it, or no longer, in a
     * collective ({@link RankGroups#waitsFor}); their labels say so.
     */
    private void othersChanged() {
        for (IDebugTarget t : launch.getDebugTargets()) {
            if (t != this && t instanceof RankDebugTarget r && !r.isTerminated()) {
                r.fireChangeEvent(DebugEvent.STATE);
            }
        }
    }

    /** The thread of gdb's id {@code id} (made on first sight); null for null. Any thread, the reader too. */
    private RankThread thread(String id) {
        if (id == null) {
            return null;
        }
        synchronized (threadLock) {
            return threads.computeIfAbsent(id, k -> new RankThread(this, k));
        }
    }

    /** The threads known, in gdb's order. */
    private IThread[] knownThreads() {
        synchronized (threadLock) {
            return threads.values().toArray(new IThread[0]);
        }
    }

    private void terminated() {
        if (terminated) {
            return;
        }
        terminated = true;
        suspended = false;
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpointListener(this);
        BreakpointProblems.forgetRank(rank);
        // not on gdb's reader thread: closing waits for gdb
        Thread closer = new Thread(dbg::close, "close gdb of rank " + rank);
        closer.setDaemon(true);
        closer.start();
        fireTerminateEvent();
        othersChanged();
        if (console != null) {
            console.fireTerminated();
        }
    }

    @Override
    public String getName() {
        return "rank " + rank + " (pid " + dbg.pid() + ")";
    }

    /**
     * gdb's threads while the rank is suspended (asked again each time), the ones last known while it runs.
     * gdb is asked with no lock held: the reader thread takes {@link #threadLock} to report a stop.
     */
    @Override
    public IThread[] getThreads() throws DebugException {
        if (terminated || !suspended) {
            return knownThreads();
        }
        List<String> ids;
        try {
            ids = dbg.threadIds();
        } catch (MiException e) {
            throw new DebugException(ManaDebugModel.error(e.getMessage(), e).getStatus());
        }
        synchronized (threadLock) {
            threads.keySet().retainAll(ids);
            for (String id : ids) {
                threads.computeIfAbsent(id, k -> new RankThread(this, k));
            }
            return threads.values().toArray(new IThread[0]);
        }
    }

    @Override
    public boolean hasThreads() throws DebugException {
        return getThreads().length > 0;
    }

    @Override
    public IDebugTarget getDebugTarget() {
        return this;
    }

    @Override
    public ILaunch getLaunch() {
        return launch;
    }

    @Override
    public String getModelIdentifier() {
        return ManaDebugModel.ID;
    }

    @Override
    public IProcess getProcess() {
        return console;
    }

    /** The rank's gdb console (a process of the launch). */
    public GdbConsoleProcess console() {
        return console;
    }

    @Override
    public boolean supportsBreakpoint(IBreakpoint breakpoint) {
        return ManaDebugModel.ID.equals(breakpoint.getModelIdentifier());
    }

    // --- suspend / resume / terminate / disconnect ---

    @Override
    public boolean canResume() { return !terminated && suspended; }
    @Override
    public boolean canSuspend() { return !terminated && !suspended; }
    @Override
    public boolean isSuspended() { return suspended; }

    @Override
    public void resume() throws DebugException {
        prepareToRun();
        run("-exec-continue");
    }

    /**
     * Steps thread {@code threadId} (by instruction in Instruction Stepping Mode). At the restart pause a step
     * would only walk the lower half's pause loop, which spins until the pause is released: the step
     * releases the pause and resumes instead, so the upper half runs on to the user's breakpoints.
     */
    void step(String threadId, Stepping kind) throws DebugException {
        if (pausePending) {
            resume();
            return;
        }
        prepareToRun();
        run((ManaDebugModel.isInstructionStepping() ? kind.byInstruction() : kind).command(threadId));
    }

    /**
     * Run to Line: a temporary breakpoint at {@code location} ({@code /abs/file.c:LINE}) and continue (from a
     * restart pause too: the pause is released); the stop there is reported as the end of a step. The rank may
     * stop earlier at a breakpoint, as in CDT; the temporary one then stays until it is met.
     */
    public void runToLine(String location) throws DebugException {
        try {
            runToLineBreakpoint = BreakInsert.at(location).asTemporary().insert(dbg.gdb());
        } catch (MiException e) {
            throw ManaDebugModel.debugError(e);
        }
        resume();
    }

    /**
     * What every resume does first: this stop's variable objects and values retired, and a pending restart pause
     * released with the restore run to its end ({@link #finishRestore}).
     */
    private void prepareToRun() throws DebugException {
        deleteVarObjects();
        history.nextStop();
        if (pausePending) {
            finishRestore();
            pausePending = false;
        }
    }

    /**
     * Releases the restart pause and runs the rank, still reported suspended, to where its restore ends and every
     * thread is back ({@link RankDebugger#releaseToUserCode}); the resume that follows runs the program itself.
     * Released with a plain continue, the rank was reported running while the restore went on for milliseconds,
     * longer on a loaded machine: a Suspend then stopped it in the pause loop with one thread
     * (DebuggerDepthTest: "main and the ticker thread"), or was not answered at all.
     */
    private void finishRestore() throws DebugException {
        restoring = true;
        try {
            dbg.releaseToUserCode(Duration.ofSeconds(60));
        } catch (MiException e) {
            throw ManaDebugModel.debugError(e);
        } finally {
            restoring = false;
        }
    }

    ValueHistory history() {
        return history;
    }

    /** gdb's register names indexed by number (read once). */
    List<String> registerNames() throws MiException {
        synchronized (registerLock) {
            if (registerNames == null) {
                registerNames = Registers.names(dbg.gdb());
            }
            return registerNames;
        }
    }

    /** gdb's register groups of this process (read once). */
    List<Registers.Group> registerGroups() throws MiException {
        synchronized (registerLock) {
            if (registerGroups == null) {
                registerGroups = Registers.groups(dbg.gdb());
            }
            return registerGroups;
        }
    }

    @Override
    public void suspend() throws DebugException {
        run("-exec-interrupt --all");
    }

    @Override
    public boolean canTerminate() { return !terminated; }
    @Override
    public boolean isTerminated() { return terminated; }

    /** Kills the rank's process (gdb's {@code kill}) and ends gdb. */
    @Override
    public void terminate() throws DebugException {
        if (terminated) {
            return;
        }
        GdbMi g = dbg.gdb();
        try {
            if (g.isRunning()) {
                // gdb kills a stopped process only: interrupt and wait for the stop first, else closing gdb
                // would detach and leave the rank running
                CompletableFuture<GdbEvent.Stopped> stop = g.expect(GdbEvent.Stopped.class, x -> true);
                g.execute(MiExecInterrupt.all());
                g.await(stop, Duration.ofSeconds(10), "the stop before kill");
            }
            g.executeAllowError(new CliKill(), Duration.ofSeconds(10));
        } catch (MiException e) {
            // gdb is going away anyway
        }
        terminated();
    }

    @Override
    public boolean canDisconnect() { return !terminated; }
    @Override
    public boolean isDisconnected() { return terminated; }

    /** Detaches gdb: the rank runs on without the debugger. */
    @Override
    public void disconnect() throws DebugException {
        for (String n : installed.values()) {
            try {
                dbg.gdb().executeAllowError(new MiBreakDelete(n), Duration.ofSeconds(10));
            } catch (MiException e) {
                // detaching anyway
            }
        }
        installed.clear();
        terminated();
    }

    // --- breakpoints ---

    /**
     * Whether the platform still has {@code breakpoint}: a change notice can arrive after its removal (the
     * marker's attributes change while it is deleted), and re-inserting it then left a breakpoint in gdb that
     * no view shows and nothing removes (DebugRestartUiTest: the rank stopped again at "Breakpoint 3" and the
     * job never ended).
     */
    private static boolean registered(IBreakpoint breakpoint) {
        IMarker m = breakpoint.getMarker();
        return m != null && m.exists() && DebugPlugin.getDefault().getBreakpointManager().getBreakpoint(m) == breakpoint;
    }

    /* The three breakpoint notices run one at a time (the platform may send them from different threads): a
     * change (remove, then add) interleaved with a removal could otherwise re-insert what was just removed.
     * A lock of their own, held while an insert waits for gdb's answer: gdb's reader thread never takes it
     * (see the class comment on locks). */
    private final Object breakpointLock = new Object();

    @Override
    public void breakpointAdded(IBreakpoint breakpoint) {
        synchronized (breakpointLock) {
            addBreakpoint(breakpoint);
        }
    }

    private void addBreakpoint(IBreakpoint breakpoint) {
        if (!supportsBreakpoint(breakpoint) || terminated || !registered(breakpoint)) {
            return;
        }
        try {
            if (!breakpoint.isEnabled()) {
                return;
            }
            String number;
            if (breakpoint instanceof ManaWatchpoint wp) {
                number = wp.watch().insert(dbg.gdb());
            } else {
                String location;
                if (breakpoint instanceof ManaLineBreakpoint lb) {
                    location = lb.gdbLocation();
                } else if (breakpoint instanceof ManaFunctionBreakpoint fb) {
                    location = fb.function();
                } else {
                    return;
                }
                // gdb inserts breakpoints while the target runs too (mi-async)
                number = BreakInsert.at(location).withCondition(ManaDebugModel.condition(breakpoint)).insert(dbg.gdb());
            }
            installed.put(breakpoint, number);
            BreakpointProblems.clear(breakpoint, rank);
        } catch (MiException e) {
            // gdb's reason, on the breakpoint (its label) and in the Problems view
            BreakpointProblems.report(breakpoint, rank, e.reason());
        } catch (CoreException e) {
            BreakpointProblems.report(breakpoint, rank, e.getStatus().getMessage());
        }
    }

    @Override
    public void breakpointRemoved(IBreakpoint breakpoint, IMarkerDelta delta) {
        synchronized (breakpointLock) {
            removeBreakpoint(breakpoint);
        }
    }

    private void removeBreakpoint(IBreakpoint breakpoint) {
        BreakpointProblems.clear(breakpoint, rank);
        String n = installed.remove(breakpoint);
        if (n != null && !terminated) {
            try {
                dbg.gdb().executeAllowError(new MiBreakDelete(n), Duration.ofSeconds(10));
            } catch (MiException e) {
                DebugPlugin.log(e);
            }
        }
    }

    @Override
    public void breakpointChanged(IBreakpoint breakpoint, IMarkerDelta delta) {
        synchronized (breakpointLock) {
            removeBreakpoint(breakpoint);
            addBreakpoint(breakpoint);
        }
    }

    /** Breakpoints this target inserted, with gdb's numbers. */
    public Map<IBreakpoint, String> installedBreakpoints() {
        return Map.copyOf(installed);
    }

    // --- memory blocks: the Memory view ---

    @Override
    public boolean supportsStorageRetrieval() { return true; }

    @Override
    public IMemoryBlock getMemoryBlock(long startAddress, long length) throws DebugException {
        return new RankMemoryBlock(this, String.format("0x%x", startAddress), startAddress);
    }

    /**
     * A Memory view monitor at the address {@code expression} names in {@code context}'s frame (a pointer, an
     * array, {@code &var}, a number); the rank must be suspended.
     */
    @Override
    public IMemoryBlockExtension getExtendedMemoryBlock(String expression, Object context) throws DebugException {
        if (!suspended || terminated) {
            throw ManaDebugModel.debugError(new MiException(null, "the rank is running: suspend it to add a memory monitor"));
        }
        String thread = "1";
        int level = 0;
        if (context instanceof RankStackFrame f) {
            thread = ((RankThread) f.getThread()).gdbId();
            level = f.frame().level();
        } else if (context instanceof RankThread t) {
            thread = t.gdbId();
        } else if (lastStop != null && lastStop.threadId() != null) {
            thread = lastStop.threadId();
        }
        try {
            return new RankMemoryBlock(this, expression, Expressions.address(dbg.gdb(), thread, level, expression));
        } catch (MiException e) {
            throw ManaDebugModel.debugError(e);
        }
    }

    // --- the Disassembly view ---

    /**
     * The machine instructions around {@code address} (a frame's pc): the function that contains it, or the
     * instructions from it on where gdb knows no function there. The rank must be suspended (gdb reads a
     * running process's memory only when it stops). Long: call it off the UI thread.
     */
    public List<Disassembly.Instruction> disassemble(long address) throws DebugException {
        if (!suspended || terminated) {
            throw ManaDebugModel.debugError(new MiException(null, getName() + " is running: suspend it to disassemble"));
        }
        try {
            return Disassembly.around(dbg.gdb(), address);
        } catch (MiException e) {
            throw ManaDebugModel.debugError(e);
        }
    }

    // --- helpers for threads, frames, variables ---

    void run(String command) throws DebugException {
        try {
            dbg.gdb().execute(command);
        } catch (MiException e) {
            throw new DebugException(ManaDebugModel.error(e.getMessage(), e).getStatus());
        }
    }

    /** MI variable objects die with the stop they were made in. */
    private void deleteVarObjects() {
        List<String> names;
        synchronized (varObjects) {
            names = List.copyOf(varObjects);
            varObjects.clear();
        }
        for (String v : names) {
            try {
                dbg.gdb().executeAllowError(new MiVarDelete(v), Duration.ofSeconds(10));
            } catch (MiException e) {
                // it went with its frame
            }
        }
    }
}
