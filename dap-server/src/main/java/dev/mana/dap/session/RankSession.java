package dev.mana.dap.session;

import dev.mana.gdb.mi.CliExecution;
import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.command.CliKill;
import dev.mana.gdb.mi.command.MiCommand;
import dev.mana.gdb.mi.command.MiExecContinue;
import dev.mana.gdb.mi.command.MiExecFinish;
import dev.mana.gdb.mi.command.MiExecInterrupt;
import dev.mana.gdb.mi.command.MiExecNext;
import dev.mana.gdb.mi.command.MiExecNextInstruction;
import dev.mana.gdb.mi.command.MiExecStep;
import dev.mana.gdb.mi.command.MiExecStepInstruction;
import dev.mana.gdb.mi.command.MiThreadInfo;
import dev.mana.gdb.split.RankDebugger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.eclipse.lsp4j.debug.Breakpoint;
import org.eclipse.lsp4j.debug.BreakpointEventArguments;
import org.eclipse.lsp4j.debug.BreakpointEventArgumentsReason;
import org.eclipse.lsp4j.debug.ContinuedEventArguments;
import org.eclipse.lsp4j.debug.EvaluateArgumentsContext;
import org.eclipse.lsp4j.debug.EvaluateResponse;
import org.eclipse.lsp4j.debug.ExitedEventArguments;
import org.eclipse.lsp4j.debug.FunctionBreakpoint;
import org.eclipse.lsp4j.debug.OutputEventArguments;
import org.eclipse.lsp4j.debug.Scope;
import org.eclipse.lsp4j.debug.SetVariableResponse;
import org.eclipse.lsp4j.debug.SourceBreakpoint;
import org.eclipse.lsp4j.debug.StackTraceResponse;
import org.eclipse.lsp4j.debug.SteppingGranularity;
import org.eclipse.lsp4j.debug.StoppedEventArguments;
import org.eclipse.lsp4j.debug.StoppedEventArgumentsReason;
import org.eclipse.lsp4j.debug.TerminatedEventArguments;
import org.eclipse.lsp4j.debug.Thread;
import org.eclipse.lsp4j.debug.ThreadEventArguments;
import org.eclipse.lsp4j.debug.ThreadEventArgumentsReason;
import org.eclipse.lsp4j.debug.Variable;
import org.eclipse.lsp4j.debug.services.IDebugProtocolClient;

/**
 * One debuggee: a rank with gdb attached, seen through DAP. Turns requests into GDB/MI commands and
 * gdb's async records into DAP events.
 *
 * <p>What the client inspects while the rank is stopped is {@link StopInspector}'s; this class decides
 * when the rank runs and what the client is told.
 *
 * <p>Everything runs on one worker thread (the server's): requests, and gdb's events, which the reader
 * thread of {@link GdbMi} only posts there. So this state and the inspector's tables need no locks, the client sees events
 * and responses in the order gdb produced them, and no gdb command is ever sent from gdb's reader
 * thread (which would wait on itself).
 *
 * <p>The restart pause: a rank restarted with {@code MANA_RESTART_PAUSE} spins in the lower half until
 * {@code mana_restart_pause_wait} is cleared. The first resume of any kind clears it and continues: a
 * step there would only step through the pause loop (the trap the Eclipse target fell into).
 */
public final class RankSession implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Debuggee debuggee;
    private final RankDebugger dbg;
    private final GdbMi gdb;
    private final IDebugProtocolClient client;
    private final Executor worker;
    private final Breakpoints breakpoints;
    private final StopInspector inspector;
    private final Consumer<GdbEvent> listener = this::post;

    private boolean restartPauseHeld;
    /** The client asked for a pause: the SIGINT stop that follows is reported as "pause". */
    private boolean pauseRequested;
    /** The rank runs because the client asked: its {@code *running} needs no continued event. */
    private boolean runningByRequest;
    /** Stops the adapter made itself to insert breakpoints; the client never sees them. */
    private int silentStops;
    private int lastThread = 1;
    private boolean exited;
    /** terminate was asked: an exit without a status is that SIGKILL's. */
    private boolean killRequested;
    private boolean terminatedSent;
    private boolean closed;

    /**
     * @param lineBase 1 when the client counts lines from 1 (DAP's default), 0 when from 0
     */
    public RankSession(Debuggee debuggee, IDebugProtocolClient client, Executor worker, int lineBase) {
        this.debuggee = debuggee;
        this.dbg = debuggee.debugger();
        this.gdb = dbg.gdb();
        this.client = client;
        this.worker = worker;
        this.restartPauseHeld = debuggee.restartPauseHeld();
        this.breakpoints = new Breakpoints(gdb, lineBase);
        this.inspector = new StopInspector(gdb, dbg.process(), lineBase);
    }

    /** Starts listening to gdb; call on the worker thread once the client may receive events. */
    public void start() {
        gdb.addListener(listener);
        output("console", debuggee.summary());
    }

    public int rank() {
        return debuggee.rank();
    }

    public long pid() {
        return dbg.pid();
    }

    /** Whether the rank still waits in its restart pause (nothing resumed it yet). */
    public boolean restartPauseHeld() {
        return restartPauseHeld;
    }

    // ---- gdb's events, posted to the worker ------------------------------------------------------

    private void post(GdbEvent e) {
        try {
            worker.execute(() -> onEvent(e));
        } catch (RejectedExecutionException ex) {
            // the server is shutting down: nobody to tell
        }
    }

    private void onEvent(GdbEvent e) {
        if (closed) {
            return;
        }
        if (e instanceof GdbEvent.Stopped s) {
            onStopped(s);
        } else if (e instanceof GdbEvent.Running r) {
            onRunning(r);
        } else if (e instanceof GdbEvent.ThreadChanged t) {
            ThreadEventArguments a = new ThreadEventArguments();
            a.setReason(t.created() ? ThreadEventArgumentsReason.STARTED : ThreadEventArgumentsReason.EXITED);
            a.setThreadId(Integer.parseInt(t.threadId()));
            client.thread(a);
        } else if (e instanceof GdbEvent.Other o && "breakpoint-modified".equals(o.record().asyncClass())) {
            Breakpoint b = breakpoints.modified(o.record().results().getTuple("bkpt"));
            if (b != null) {
                BreakpointEventArguments a = new BreakpointEventArguments();
                a.setReason(BreakpointEventArgumentsReason.CHANGED);
                a.setBreakpoint(b);
                client.breakpoint(a);
            }
        } else if (e instanceof GdbEvent.ProcessChanged pc && !pc.started()) {
            // the only exit report when gdb itself killed a stopped rank (terminate): no *stopped then
            int code = killRequested ? 128 + 9 : 0;
            if (pc.exitCode() != null) {
                try {
                    code = Integer.parseInt(pc.exitCode(), 8);
                } catch (NumberFormatException ex) {
                    // keep the guess above
                }
            }
            onExit(code);
        } else if (e instanceof GdbEvent.GdbExited x) {
            if (!terminatedSent) {
                output("console", "mana-dap: gdb exited (status " + x.status() + ")\n");
                sendTerminated();
            }
        }
    }

    private void onStopped(GdbEvent.Stopped s) {
        if (silentStops > 0 && !s.isExit()) {
            silentStops--; // the adapter's own interrupt (whileStopped): the rank runs on already
            return;
        }
        runningByRequest = false;
        if (s.isExit()) {
            onExit(MiToDap.exitCode(s));
            return;
        }
        invalidate();
        Integer bp = MiToDap.hitBreakpoint(s);
        StoppedEventArguments a = new StoppedEventArguments();
        a.setReason(MiToDap.stopReason(s, pauseRequested, breakpoints.isFunction(bp)));
        pauseRequested = false;
        a.setDescription(MiToDap.stopDescription(s));
        if (s.threadId() != null && s.threadId().matches("\\d+")) {
            lastThread = Integer.parseInt(s.threadId());
        }
        a.setThreadId(lastThread);
        a.setAllThreadsStopped(true); // all-stop: gdb stops every thread of the rank
        if (bp != null) {
            a.setHitBreakpointIds(new Integer[] {bp});
        }
        client.stopped(a);
    }

    private void onRunning(GdbEvent.Running r) {
        if (runningByRequest) {
            return; // DAP: no continued event for a resume the client asked for
        }
        invalidate();
        // something else resumed the rank (a command typed in the debug console)
        ContinuedEventArguments a = new ContinuedEventArguments();
        boolean all = r.threadId() == null || r.threadId().equals("all");
        a.setThreadId(all ? lastThread : Integer.parseInt(r.threadId()));
        a.setAllThreadsContinued(all);
        client.continued(a);
        runningByRequest = true; // once per resume: gdb may report each thread
    }

    private void onExit(int exitCode) {
        if (exited) {
            return;
        }
        exited = true;
        restartPauseHeld = false;
        invalidate();
        ExitedEventArguments a = new ExitedEventArguments();
        a.setExitCode(exitCode);
        client.exited(a);
        // the rank's last lines may still be in the pipe: "terminated" after them, off the worker
        java.lang.Thread t = new java.lang.Thread(() -> {
            for (OutputPump p : debuggee.pumps()) {
                try {
                    p.awaitEnd(Duration.ofSeconds(5));
                } catch (InterruptedException e) {
                    java.lang.Thread.currentThread().interrupt();
                    break;
                }
            }
            try {
                worker.execute(() -> {
                    if (!closed) {
                        sendTerminated();
                    }
                });
            } catch (RejectedExecutionException e) {
                // the server is shutting down
            }
        }, "mana-dap-exit");
        t.setDaemon(true);
        t.start();
    }

    /** Sent once: after the exit (and its output), a terminate, or gdb's own end. */
    private void sendTerminated() {
        if (!terminatedSent) {
            terminatedSent = true;
            client.terminated(new TerminatedEventArguments());
        }
    }

    /** Drops what the client may refer to from the last stop: DAP ids die at a resume. */
    private void invalidate() {
        inspector.clear(!gdb.isRunning() && !exited);
    }

    void output(String category, String text) {
        OutputEventArguments a = new OutputEventArguments();
        a.setCategory(category);
        a.setOutput(text);
        client.output(a);
    }

    // ---- configuration ----------------------------------------------------------------------------

    public List<Breakpoint> setBreakpoints(String path, SourceBreakpoint[] wanted) throws MiException {
        return whileStopped(() -> breakpoints.setSource(path, wanted));
    }

    public List<Breakpoint> setFunctionBreakpoints(FunctionBreakpoint[] wanted) throws MiException {
        return whileStopped(() -> breakpoints.setFunctions(wanted));
    }

    /**
     * Releases the restart pause and lets the restore run to its end under gdb, the rank still stopped for
     * the client ({@link RankDebugger#releaseToUserCode}: to {@code lh_restart_pause} at level 4, every
     * thread back); the resume that follows runs the program itself. Released with a plain continue, the rank
     * was reported running while the restore went on for milliseconds: a pause then stopped it inside the
     * restore, one thread in the pause loop. The stop at level 4 is the adapter's own: the client never sees
     * it, nor the running before it.
     */
    private void finishRestore() throws MiException {
        runningByRequest = true;
        GdbEvent.Stopped s = dbg.releaseToUserCode(Duration.ofSeconds(60));
        restartPauseHeld = false;
        if (s != null) {
            silentStops++; // its event is queued behind this call: onStopped drops it
        }
    }

    /** A gdb call that needs the rank stopped. */
    @FunctionalInterface
    private interface StoppedCall<T> {
        T call() throws MiException;
    }

    /**
     * Runs {@code c} with the rank stopped. In all-stop mode gdb writes breakpoints into the process only
     * when it resumes it, so one set while the rank runs would wait for a stop that may never come: the
     * rank is interrupted, the breakpoints go in, and it runs on, all unseen by the client. If the rank
     * stopped for a reason of its own meanwhile (a breakpoint hit as the interrupt went out), that stop
     * is the client's and the rank stays stopped.
     */
    private <T> T whileStopped(StoppedCall<T> c) throws MiException {
        if (exited || !gdb.isRunning()) {
            return c.call();
        }
        CompletableFuture<GdbEvent.Stopped> stop = gdb.expect(GdbEvent.Stopped.class, x -> true);
        gdb.execute(MiExecInterrupt.all(), TIMEOUT);
        GdbEvent.Stopped s = gdb.await(stop, TIMEOUT, "a stop to insert breakpoints");
        boolean ours = "signal-received".equals(s.reason())
                && "SIGINT".equals(s.record().results().getString("signal-name"));
        if (!ours) {
            return c.call();
        }
        silentStops++; // its event is queued behind this call: onStopped drops it
        try {
            return c.call();
        } finally {
            runningByRequest = true;
            gdb.execute(new MiExecContinue(), TIMEOUT);
        }
    }

    /**
     * The client has sent its breakpoints: the rank goes (releasing its restart pause), or, with
     * {@code stopOnEntry}, is shown stopped where it is (the pause in the lower half, or {@code main}).
     */
    public void configurationDone(boolean stopOnEntry) throws MiException {
        if (exited) {
            return;
        }
        if (stopOnEntry) {
            StoppedEventArguments a = new StoppedEventArguments();
            a.setReason(StoppedEventArgumentsReason.ENTRY);
            a.setDescription(restartPauseHeld ? "restart pause (the first continue or step releases it)" : null);
            List<Thread> ts = threads();
            lastThread = ts.isEmpty() ? lastThread : ts.get(0).getId();
            a.setThreadId(lastThread);
            a.setAllThreadsStopped(true);
            client.stopped(a);
        } else {
            resume(new MiExecContinue());
        }
    }

    // ---- execution control ------------------------------------------------------------------------

    public void continueAll() throws MiException {
        resume(new MiExecContinue());
    }

    public void next(int thread, SteppingGranularity g) throws MiException {
        String t = Integer.toString(thread);
        resume(g == SteppingGranularity.INSTRUCTION ? new MiExecNextInstruction(t) : new MiExecNext(t));
    }

    public void stepIn(int thread, SteppingGranularity g) throws MiException {
        String t = Integer.toString(thread);
        resume(g == SteppingGranularity.INSTRUCTION ? new MiExecStepInstruction(t) : new MiExecStep(t));
    }

    public void stepOut(int thread) throws MiException {
        resume(new MiExecFinish(Integer.toString(thread)));
    }

    private void resume(MiCommand<?> command) throws MiException {
        requireAlive();
        if (restartPauseHeld) {
            // stepping inside the pause loop only spins there: release the pause and let the rank go
            finishRestore();
            command = new MiExecContinue();
        }
        invalidate();
        runningByRequest = true;
        try {
            gdb.execute(command, TIMEOUT);
        } catch (MiException e) {
            runningByRequest = false;
            throw e;
        }
    }

    public void pause() throws MiException {
        requireAlive();
        if (!gdb.isRunning()) {
            return; // stopped already: DAP asks nothing more
        }
        pauseRequested = true;
        gdb.execute(MiExecInterrupt.all(), TIMEOUT);
    }

    // ---- inspection -------------------------------------------------------------------------------

    public List<Thread> threads() throws MiException {
        List<Thread> out = new ArrayList<>();
        if (exited) {
            return out;
        }
        for (MiTuple t : gdb.run(new MiThreadInfo(), TIMEOUT)) {
            out.add(MiToDap.thread(t));
        }
        return out;
    }

    public StackTraceResponse stackTrace(int thread, Integer startFrame, Integer levels) throws MiException {
        requireStopped();
        return inspector.stackTrace(thread, startFrame, levels);
    }

    public List<Scope> scopes(int frameId) throws MiException {
        return inspector.scopes(frameId);
    }

    public List<Variable> variables(int reference, Integer start, Integer count) throws MiException {
        requireStopped();
        return inspector.variables(reference, start, count);
    }

    public SetVariableResponse setVariable(int reference, String name, String value) throws MiException {
        requireStopped();
        return inspector.setVariable(reference, name, value);
    }

    /**
     * An expression in a frame. In the debug console ({@code repl}) it is gdb's
     * {@code -data-evaluate-expression}: evaluated once (side effects happen once) and printed as gdb
     * prints it; {@code -exec CMD} runs a gdb command there. For watches and hovers it is a variable
     * object, so a structure can be expanded like a local.
     */
    public EvaluateResponse evaluate(String expression, Integer frameId, String context) throws MiException {
        requireAlive();
        boolean repl = EvaluateArgumentsContext.REPL.equals(context);
        if (repl && expression.startsWith("-exec ")) {
            String cmd = expression.substring(6).trim();
            if (CliExecution.isExecution(cmd)) {
                if (restartPauseHeld) {
                    // as any resume: the pause loop would only spin, and a step from where the restore
                    // ends would step through the runtime's resume: the rank continues
                    finishRestore();
                    if (!CliExecution.isContinue(cmd)) {
                        output("console", "mana-dap: the restart pause is released; the rank continues (`"
                                + cmd + "` would step through the runtime's restore)\n");
                        cmd = "continue";
                    }
                }
                // in the background: run from the console, gdb would answer nothing (not even a pause)
                // until the rank stops again
                cmd = CliExecution.inBackground(cmd);
            }
            return inspector.console(cmd, frameId);
        }
        if (repl) {
            return inspector.value(expression, frameId);
        }
        requireStopped();
        return inspector.watch(expression, frameId);
    }

    private void requireAlive() throws MiException {
        if (exited || closed) {
            throw new MiException(null, "the rank has exited");
        }
    }

    private void requireStopped() throws MiException {
        requireAlive();
        if (gdb.isRunning()) {
            throw new MiException(null, "the rank is running (pause it first)");
        }
    }

    // ---- the end ----------------------------------------------------------------------------------

    /**
     * Kills the rank, and the command the adapter started around it ({@code mpirun} takes the job down).
     * A running rank gets SIGKILL (it works under ptrace too); a stopped one is killed by gdb. gdb then
     * reports the exit, which sends exited and terminated.
     */
    public void terminate() throws MiException {
        if (exited || closed) {
            sendTerminated();
            return;
        }
        killRequested = true;
        if (gdb.isRunning()) {
            ProcessHandle.of(dbg.pid()).ifPresent(ProcessHandle::destroyForcibly);
        } else {
            // a stopped tracee's death goes unseen until gdb waits for it: let gdb kill it instead
            gdb.execute(new CliKill(), TIMEOUT);
        }
        RankStarter.kill(debuggee.started());
    }

    /**
     * Ends the session. Without {@code terminate}, gdb detaches and the rank runs on; a rank still in its
     * restart pause is released first, else it would wait there for a debugger that is gone.
     */
    public void disconnect(boolean terminate) {
        if (closed) {
            return;
        }
        if (terminate && !exited) {
            try {
                terminate();
            } catch (MiException e) {
                output("console", "mana-dap: could not kill the rank: " + e.getMessage() + "\n");
            }
        } else if (!exited && restartPauseHeld && !gdb.isRunning()) {
            try {
                dbg.releasePause();
                restartPauseHeld = false;
            } catch (MiException e) {
                output("console", "mana-dap: could not release the restart pause: " + e.getMessage() + "\n");
            }
        }
        close();
    }

    /** Detaches gdb (the rank runs on unless it was killed) and closes the image; no events after this. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        gdb.removeListener(listener);
        dbg.close();
        if (debuggee.image() != null) {
            try {
                debuggee.image().close();
            } catch (RuntimeException e) {
                // nothing to do about a file that would not close
            }
        }
    }
}
