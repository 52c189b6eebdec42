package dev.mana.eclipse.debug;

import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.mi.MiException;
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
import java.util.concurrent.ConcurrentHashMap;
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
 */
public final class RankDebugTarget extends DebugElement implements IDebugTarget {
    private final ILaunch launch;
    private final int rank;
    private final RankDebugger dbg;
    private final Map<IBreakpoint, String> installed = new ConcurrentHashMap<>();
    private final Map<String, RankThread> threads = new LinkedHashMap<>();
    private volatile boolean suspended = true;
    private volatile boolean terminated;
    private volatile GdbEvent.Stopped lastStop;
    /** The rank still waits in its restart pause: the next resume clears mana_restart_pause_wait first. */
    private volatile boolean pausePending;
    final List<String> varObjects = new ArrayList<>();
    /** The rank's gdb console: a process of the launch, so the Console view gives it a console of its own. */
    private GdbConsoleProcess console;

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
                RankDebugger.waitForPause(pid, pauseLevel, Duration.ofSeconds(60), GdbMi.Options.defaults());
            }
            d = RankDebugger.attach(pid, img, GdbMi.Options.defaults());
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
     * Launch-time debugging: attaches to a launched rank waiting in its launch pause ({@code MANA_LAUNCH_PAUSE=1}),
     * runs it to its program's {@code main} with both halves' symbols, inserts the model's enabled breakpoints
     * and adds the target, suspended at {@code main}, to {@code launch}. Long: call it from a Job.
     */
    public static RankDebugTarget attachAtLaunch(ILaunch launch, int rank, long pid) throws CoreException {
        RankDebugger d;
        try {
            d = RankDebugger.attachAtLaunch(pid, Duration.ofSeconds(120), GdbMi.Options.defaults());
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

    /** Clears {@code mana_restart_pause_wait} without resuming (a {@code continue} typed into the gdb console). */
    void releasePauseOnly() throws DebugException {
        run("-gdb-set var mana_restart_pause_wait = 0");
        pausePending = false;
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
            lastStop = s;
            suspended = true;
            int detail = switch (s.reason() == null ? "" : s.reason()) {
                case "breakpoint-hit" -> DebugEvent.BREAKPOINT;
                case "end-stepping-range", "function-finished" -> DebugEvent.STEP_END;
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
        } else if (e instanceof GdbEvent.Running) {
            suspended = false;
            fireResumeEvent(DebugEvent.UNSPECIFIED);
        } else if (e instanceof GdbEvent.ThreadChanged || e instanceof GdbEvent.GdbExited) {
            if (e instanceof GdbEvent.GdbExited) {
                terminated();
            } else {
                fireChangeEvent(DebugEvent.CONTENT);
            }
        }
    }

    private synchronized RankThread thread(String id) {
        if (id == null) {
            return null;
        }
        return threads.computeIfAbsent(id, k -> new RankThread(this, k));
    }

    private void terminated() {
        if (terminated) {
            return;
        }
        terminated = true;
        suspended = false;
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpointListener(this);
        // not on gdb's reader thread: closing waits for gdb
        Thread closer = new Thread(dbg::close, "close gdb of rank " + rank);
        closer.setDaemon(true);
        closer.start();
        fireTerminateEvent();
        if (console != null) {
            console.fireTerminated();
        }
    }

    @Override
    public String getName() {
        return "rank " + rank + " (pid " + dbg.pid() + ")";
    }

    @Override
    public synchronized IThread[] getThreads() throws DebugException {
        if (terminated || !suspended) {
            return threads.values().toArray(new IThread[0]);
        }
        try {
            List<String> ids = dbg.threadIds();
            threads.keySet().retainAll(ids);
            for (String id : ids) {
                thread(id);
            }
        } catch (MiException e) {
            throw new DebugException(ManaDebugModel.error(e.getMessage(), e).getStatus());
        }
        return threads.values().toArray(new IThread[0]);
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
        deleteVarObjects();
        if (pausePending) {
            run("-gdb-set var mana_restart_pause_wait = 0");
            pausePending = false;
        }
        run("-exec-continue");
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
        if (!suspended) {
            suspend();
        }
        try {
            dbg.gdb().executeAllowError("kill", Duration.ofSeconds(10));
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
                dbg.gdb().executeAllowError("-break-delete " + n, Duration.ofSeconds(10));
            } catch (MiException e) {
                // detaching anyway
            }
        }
        installed.clear();
        terminated();
    }

    // --- breakpoints ---

    @Override
    public void breakpointAdded(IBreakpoint breakpoint) {
        if (!supportsBreakpoint(breakpoint) || terminated) {
            return;
        }
        try {
            if (!breakpoint.isEnabled()) {
                return;
            }
            String location;
            if (breakpoint instanceof ManaLineBreakpoint lb) {
                location = lb.gdbLocation();
            } else if (breakpoint instanceof ManaFunctionBreakpoint fb) {
                location = fb.function();
            } else {
                return;
            }
            // gdb inserts breakpoints while the target runs too (mi-async)
            installed.put(breakpoint, dbg.insertBreakpoint(location));
        } catch (CoreException | MiException e) {
            DebugPlugin.log(e);
        }
    }

    @Override
    public void breakpointRemoved(IBreakpoint breakpoint, IMarkerDelta delta) {
        String n = installed.remove(breakpoint);
        if (n != null && !terminated) {
            try {
                dbg.gdb().executeAllowError("-break-delete " + n, Duration.ofSeconds(10));
            } catch (MiException e) {
                DebugPlugin.log(e);
            }
        }
    }

    @Override
    public void breakpointChanged(IBreakpoint breakpoint, IMarkerDelta delta) {
        breakpointRemoved(breakpoint, delta);
        breakpointAdded(breakpoint);
    }

    /** Breakpoints this target inserted, with gdb's numbers. */
    public Map<IBreakpoint, String> installedBreakpoints() {
        return Map.copyOf(installed);
    }

    // --- memory blocks: not supported ---

    @Override
    public boolean supportsStorageRetrieval() { return false; }

    @Override
    public IMemoryBlock getMemoryBlock(long startAddress, long length) throws DebugException {
        return null;
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
                dbg.gdb().executeAllowError("-var-delete " + v, Duration.ofSeconds(10));
            } catch (MiException e) {
                // it went with its frame
            }
        }
    }
}
