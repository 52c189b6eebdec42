package dev.mana.eclipse.debug.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.debug.BreakpointProblems;
import dev.mana.eclipse.debug.ManaDebugModel;
import dev.mana.eclipse.debug.ManaLineBreakpoint;
import dev.mana.eclipse.debug.ManaSourceLookupDirector;
import dev.mana.eclipse.debug.PathMappingSourceContainer;
import dev.mana.eclipse.debug.ManaWatchpoint;
import dev.mana.eclipse.debug.RankDebugTarget;
import dev.mana.eclipse.debug.RankStackFrame;
import dev.mana.eclipse.debug.RankThread;
import dev.mana.eclipse.debug.RankWatchExpressionDelegate;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.IDebugEventSetListener;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.Launch;
import org.eclipse.debug.core.model.IBreakpoint;
import org.eclipse.debug.core.model.IMemoryBlockExtension;
import org.eclipse.debug.core.model.IRegister;
import org.eclipse.debug.core.model.IRegisterGroup;
import org.eclipse.debug.core.model.IVariable;
import org.eclipse.debug.core.model.IWatchExpressionResult;
import org.eclipse.debug.core.model.MemoryByte;
import org.eclipse.debug.core.sourcelookup.ISourceContainer;
import org.eclipse.debug.core.sourcelookup.containers.LocalFileStorage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a CDT user reaches for, on a rank restarted by the real runtime and debugged by the real gdb
 * (headless): Step Over at the restart pause releases it (the rank runs to the conditional breakpoint, it
 * does not step in the pause loop), a breakpoint gdb refuses is a problem marker with gdb's reason, watch
 * expressions, register groups, a memory block read and written, changed values highlighted, a variable
 * set, an instruction step, Run to Line, a watchpoint; then disconnect, after which the rank ends with the
 * result of an uninterrupted run. A second test suspends a running rank, steps it by instruction while other
 * threads hold the target or read its threads and registers (each stop still reported: gdb's reader thread
 * waits for no lock a gdb caller holds), resumes it and terminates it.
 */
@Timeout(300)
class DebuggerDepthTest {
    private final BlockingQueue<DebugEvent> events = new LinkedBlockingQueue<>();
    private final IDebugEventSetListener listener = set -> events.addAll(Arrays.asList(set));
    private CheckpointedProgram prog;
    private RestartedRank rank;
    private IProject project;

    @AfterEach
    void cleanUp() throws Exception {
        ManaDebugModel.setInstructionStepping(false);
        DebugPlugin.getDefault().removeDebugEventListener(listener);
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoints(
                DebugPlugin.getDefault().getBreakpointManager().getBreakpoints(), true);
        if (rank != null) {
            rank.close();
        }
        if (project != null) {
            project.delete(false, true, null);
        }
        if (prog != null) {
            prog.close();
        }
    }

    DebugEvent awaitEvent(Predicate<DebugEvent> match, String what) throws InterruptedException {
        return awaitEvent(match, what, 60);
    }

    DebugEvent awaitEvent(Predicate<DebugEvent> match, String what, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            DebugEvent e = events.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            assertNotNull(e, "no " + what + " within " + seconds + " s");
            if (match.test(e)) {
                return e;
            }
        }
    }

    /** The next suspend of a thread of {@code target}; its detail must be {@code detail}. */
    RankThread awaitSuspend(RankDebugTarget target, int detail, String what) throws InterruptedException {
        return awaitSuspend(target, detail, what, 60);
    }

    RankThread awaitSuspend(RankDebugTarget target, int detail, String what, int seconds) throws InterruptedException {
        DebugEvent e = awaitEvent(x -> x.getKind() == DebugEvent.SUSPEND && x.getSource() instanceof RankThread t
                && t.getDebugTarget() == target, what, seconds);
        assertEquals(detail, e.getDetail(), what + ": suspend detail");
        return (RankThread) e.getSource();
    }

    private RankDebugTarget attach() throws Exception {
        return attach(java.util.Map.of());
    }

    private RankDebugTarget attach(java.util.Map<String, String> env) throws Exception {
        rank = new RestartedRank(prog, env);
        DebugPlugin.getDefault().addDebugEventListener(listener);
        ILaunch launch = new Launch(null, ILaunchManager.DEBUG_MODE, null);
        DebugPlugin.getDefault().getLaunchManager().addLaunch(launch);
        RankDebugTarget target = RankDebugTarget.attach(launch, 0, rank.pid, rank.image);
        assertTrue(target.isSuspended());
        assertTrue(target.isPausePending(), "waits in its restart pause");
        return target;
    }

    private IFile projectFile(String name) throws Exception {
        if (project == null) {
            IWorkspace ws = ResourcesPlugin.getWorkspace();
            project = ws.getRoot().getProject("depth-" + prog.dir.getFileName());
            IProjectDescription desc = ws.newProjectDescription(project.getName());
            desc.setLocation(IPath.fromOSString(prog.dir.toString()));
            project.create(desc, null);
            project.open(null);
        }
        project.refreshLocal(IResource.DEPTH_ONE, null);
        IFile f = project.getFile(name);
        assertTrue(f.exists(), name);
        return f;
    }

    private static IVariable named(IVariable[] vars, String name) throws Exception {
        for (IVariable v : vars) {
            if (v.getName().equals(name)) {
                return v;
            }
        }
        throw new AssertionError("no variable " + name + " in " + Arrays.toString(vars));
    }

    private static String eval(RankStackFrame frame, String expression) {
        IWatchExpressionResult r = RankWatchExpressionDelegate.evaluate(expression, frame);
        assertFalse(r.hasErrors(), () -> expression + ": " + Arrays.toString(r.getErrorMessages()));
        try {
            return r.getValue().getValueString();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void depthOnARestartedRank() throws Exception {
        prog = CheckpointedProgram.make(1000); // outlives the checkpoint request on a loaded machine
        Files.writeString(prog.dir.resolve("other.c"), "int other;\n");
        IFile app = projectFile("splitapp.c");
        IFile other = projectFile("other.c");
        ManaLineBreakpoint bp = new ManaLineBreakpoint(app, 20); // after_step's body
        ManaDebugModel.setCondition(bp, "i % 7 == 3");
        ManaLineBreakpoint refused = new ManaLineBreakpoint(other, 1); // not a source of the program
        DebugPlugin.getDefault().getBreakpointManager().addBreakpoints(new IBreakpoint[] {bp, refused});
        assertEquals("i % 7 == 3", ManaDebugModel.condition(bp));

        RankDebugTarget target = attach();
        assertTrue(target.installedBreakpoints().containsKey(bp));
        assertFalse(target.installedBreakpoints().containsKey(refused));
        String why = BreakpointProblems.describe(refused);
        assertNotNull(why, "the refused breakpoint says why");
        assertTrue(why.startsWith("rank 0: No source file named"), why);
        Job.getJobManager().join(BreakpointProblems.FAMILY, null);
        IMarker[] problems = other.findMarkers(ManaDebugModel.BREAKPOINT_PROBLEM, false, IResource.DEPTH_ZERO);
        assertEquals(1, problems.length);
        assertEquals(IMarker.SEVERITY_ERROR, problems[0].getAttribute(IMarker.SEVERITY, -1));
        assertEquals(1, problems[0].getAttribute(IMarker.LINE_NUMBER, -1));
        assertTrue(problems[0].getAttribute(IMarker.MESSAGE, "").contains("not inserted in rank 0: No source file named"),
                problems[0].getAttribute(IMarker.MESSAGE, ""));

        // Step Over at the restart pause releases it: the rank runs to the conditional breakpoint
        RankThread first = (RankThread) target.getThreads()[0];
        first.stepOver();
        RankThread thread = awaitSuspend(target, DebugEvent.BREAKPOINT, "the conditional breakpoint after Step Over");
        assertFalse(target.isPausePending());
        assertArrayEquals(new IBreakpoint[] {bp}, thread.getBreakpoints());
        RankStackFrame top = (RankStackFrame) thread.getTopStackFrame();
        assertEquals("[upper] after_step at splitapp.c:20", top.getName());
        long i = Long.parseLong(named(top.getVariables(), "i").getValue().getValueString());
        assertEquals(3, i % 7, "stopped where the condition holds: i = " + i);

        // source lookup: a path mapping finds the sources where they are now; without one, the compile path
        java.nio.file.Path moved = Files.createDirectories(prog.dir.resolve("moved"));
        Files.copy(prog.dir.resolve("splitapp.c"), moved.resolve("splitapp.c"));
        PathMappingSourceContainer mapping = new PathMappingSourceContainer(prog.dir + "/", moved.toString());
        assertEquals(moved + "/src/x.c", mapping.map(prog.dir + "/src/x.c"));
        assertEquals(null, mapping.map(prog.dir + "2/x.c"), "whole segments only");
        ManaSourceLookupDirector director = new ManaSourceLookupDirector();
        director.initializeParticipants();
        director.setSourceContainers(new ISourceContainer[] {mapping});
        assertEquals(new LocalFileStorage(moved.resolve("splitapp.c").toFile()), director.getSourceElement(top));
        ManaSourceLookupDirector again = new ManaSourceLookupDirector();
        again.initializeFromMemento(director.getMemento());
        assertArrayEquals(new ISourceContainer[] {mapping}, again.getSourceContainers(), "kept in the configuration");
        ManaSourceLookupDirector plain = new ManaSourceLookupDirector();
        plain.initializeParticipants();
        plain.setSourceContainers(new ISourceContainer[0]);
        assertEquals(app, plain.getSourceElement(top), "the compile path, as the workspace file");

        // watch expressions: gdb evaluates in the frame; its message when it cannot
        assertEquals(Long.toString(2 * i), eval(top, "i * 2"));
        IWatchExpressionResult bad = RankWatchExpressionDelegate.evaluate("no_such_symbol", top);
        assertTrue(bad.hasErrors());
        assertTrue(bad.getErrorMessages()[0].contains("No symbol \"no_such_symbol\""), bad.getErrorMessages()[0]);

        // registers: gdb's groups; rip is the frame's pc
        assertTrue(top.hasRegisterGroups());
        List<String> groups = Arrays.stream(top.getRegisterGroups()).map(g -> {
            try {
                return g.getName();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }).toList();
        assertTrue(groups.containsAll(List.of("general", "float", "system")), groups.toString());
        IRegisterGroup general = top.getRegisterGroups()[groups.indexOf("general")];
        IRegister rip = (IRegister) named(general.getRegisters(), "rip");
        assertEquals(top.frame().address(), Long.decode(rip.getValue().getValueString()));
        assertEquals(general, rip.getRegisterGroup());

        // memory: iteration's bytes, a write seen by the program's own variable, then put back
        assertTrue(target.supportsStorageRetrieval());
        IMemoryBlockExtension mem = target.getExtendedMemoryBlock("&iteration", top);
        MemoryByte[] bytes = mem.getBytesFromOffset(java.math.BigInteger.ZERO, 8);
        byte[] raw = new byte[8];
        for (int k = 0; k < 8; k++) {
            assertTrue(bytes[k].isReadable());
            raw[k] = bytes[k].getValue();
        }
        assertEquals(Long.parseLong(eval(top, "iteration")), ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).getLong());
        byte[] another = raw.clone();
        another[0] ^= 0x5a; // another value, whatever iteration was
        mem.setValue(java.math.BigInteger.ZERO, another);
        assertEquals(Long.toString(ByteBuffer.wrap(another).order(ByteOrder.LITTLE_ENDIAN).getLong()), eval(top, "iteration"));
        MemoryByte[] after = mem.getBytesFromOffset(java.math.BigInteger.ZERO, 8);
        assertTrue(after[0].isChanged() && after[0].isHistoryKnown(), "a byte that changed since the last read says so");
        mem.setValue(java.math.BigInteger.ZERO, raw);

        // changed values: a step over computes mixed; i stays
        IVariable[] before = top.getVariables();
        named(before, "mixed").getValue().getValueString();
        thread.stepOver();
        thread = awaitSuspend(target, DebugEvent.STEP_END, "the step over line 20");
        top = (RankStackFrame) thread.getTopStackFrame();
        assertEquals(21, top.getLineNumber());
        IVariable[] now = top.getVariables();
        IVariable mixed = named(now, "mixed");
        assertTrue(mixed.hasValueChanged(), "mixed was computed by the step");
        assertFalse(named(now, "i").hasValueChanged(), "i did not change");

        // a variable set: gdb reads the new value back; put back so the result stays the native one
        String mixedValue = mixed.getValue().getValueString();
        assertTrue(mixed.supportsValueModification());
        mixed.setValue("12345");
        assertEquals("12345", eval(top, "mixed"));
        assertEquals("12345", mixed.getValue().getValueString());
        mixed.setValue(mixedValue);
        assertEquals(mixedValue, eval(top, "mixed"));

        // one machine instruction: same function, another pc
        ManaDebugModel.setInstructionStepping(true);
        long pc = top.frame().address();
        thread.stepOver();
        thread = awaitSuspend(target, DebugEvent.STEP_END, "an instruction step");
        RankStackFrame stepped = (RankStackFrame) thread.getTopStackFrame();
        assertEquals("after_step", stepped.frame().function());
        assertNotEquals(pc, stepped.frame().address());
        ManaDebugModel.setInstructionStepping(false);

        // Run to Line: main's usleep line, reported as the end of a step
        thread.runToLine(prog.dir.resolve("splitapp.c").toString(), 47);
        thread = awaitSuspend(target, DebugEvent.STEP_END, "run to line 47");
        assertEquals("[upper] main at splitapp.c:47", thread.getTopStackFrame().getName());
        assertEquals(0, thread.getBreakpoints().length, "Run to Line's breakpoint is not the user's");

        // a watchpoint on iteration: the next loop's write stops the rank
        // software watchpoints (as a user types in the rank's gdb console): the test VMs' hypervisor accepts the
        // debug registers but never delivers their traps, so a hardware watchpoint would never fire here
        target.debugger().gdb().execute("-gdb-set can-use-hw-watchpoints 0");
        ManaWatchpoint wp = new ManaWatchpoint("iteration", false, true);
        DebugPlugin.getDefault().getBreakpointManager().addBreakpoint(wp);
        assertTrue(target.installedBreakpoints().containsKey(wp));
        long it = Long.parseLong(eval((RankStackFrame) thread.getTopStackFrame(), "iteration"));
        target.resume();
        thread = awaitSuspend(target, DebugEvent.BREAKPOINT, "the watchpoint");
        assertArrayEquals(new IBreakpoint[] {wp}, thread.getBreakpoints());
        assertEquals(Long.toString(it + 1), eval((RankStackFrame) thread.getTopStackFrame(), "iteration"));

        // removing the refused breakpoint removes its problem; disconnect: the rank runs on to its native result
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoints(
                DebugPlugin.getDefault().getBreakpointManager().getBreakpoints(), true);
        Job.getJobManager().join(BreakpointProblems.FAMILY, null);
        assertEquals(0, other.findMarkers(ManaDebugModel.BREAKPOINT_PROBLEM, false, IResource.DEPTH_ZERO).length);
        assertTrue(target.installedBreakpoints().isEmpty());
        target.disconnect();
        awaitEvent(e -> e.getKind() == DebugEvent.TERMINATE && e.getSource() == target, "terminate after disconnect");
        assertEquals(0, rank.awaitExit(120));
        assertTrue(rank.printed(prog.nativeResult), rank.output() + " vs " + prog.nativeResult);
    }

    /**
     * The released restore sleeps half a second first (the lower half's test hook): a Suspend that came before the
     * restore's end would stop the rank there, one thread in the pause loop, every time. The target reports the
     * rank running only once the restore has ended (Resume), as the gdb console's {@code continue} does
     * ({@link #aSuspendRightAfterTheConsolesContinueStopsTheProgram}).
     */
    static final java.util.Map<String, String> SLOW_RESTORE = java.util.Map.of("MANA_TEST_RESTORE_SLOW_MS", "500");

    @Test
    void aSuspendRightAfterTheConsolesContinueStopsTheProgram() throws Exception {
        prog = CheckpointedProgram.make(100_000); // 10 ms a step: runs until terminated
        RankDebugTarget target = attach(SLOW_RESTORE);
        target.console().getStreamsProxy().write("continue\n"); // releases the pause, then gdb's continue
        awaitEvent(e -> e.getKind() == DebugEvent.RESUME && e.getSource() == target, "resume");
        assertFalse(target.isPausePending());
        target.suspend();
        awaitEvent(e -> e.getKind() == DebugEvent.SUSPEND && (e.getSource() == target
                || e.getSource() instanceof RankThread t && t.getDebugTarget() == target), "suspend");
        assertTrue(target.getThreads().length >= 2, "main and the ticker thread, not the restore's one: "
                + Arrays.toString(target.getThreads()));
        for (var t : target.getThreads()) {
            for (var f : t.getStackFrames()) {
                assertFalse(f.getName().contains("lh_restart_pause"), t.getName() + " in the restart pause");
            }
        }
        target.terminate();
        awaitEvent(e -> e.getKind() == DebugEvent.TERMINATE && e.getSource() == target, "terminate");
    }

    @Test
    void suspendResumeAndTerminateARunningRank() throws Exception {
        prog = CheckpointedProgram.make(100_000); // 10 ms a step: runs until terminated
        RankDebugTarget target = attach(SLOW_RESTORE);
        target.resume(); // releases the pause
        awaitEvent(e -> e.getKind() == DebugEvent.RESUME && e.getSource() == target, "resume");
        assertFalse(target.isSuspended());
        assertTrue(target.canSuspend());

        target.suspend();
        awaitEvent(e -> e.getKind() == DebugEvent.SUSPEND && (e.getSource() == target
                || e.getSource() instanceof RankThread t && t.getDebugTarget() == target), "suspend");
        assertTrue(target.isSuspended());
        assertTrue(target.getThreads().length >= 2, "main and the ticker thread");
        boolean inMain = false;
        for (var t : target.getThreads()) {
            for (var f : t.getStackFrames()) {
                inMain |= f.getName().startsWith("[upper] main at splitapp.c:");
            }
        }
        assertTrue(inMain, "a thread's stack goes through the program's main");

        // A caller that holds the target while it waits for gdb (getThreads did, across -thread-list-ids) when
        // gdb reports a stop: the reader thread, the only one that delivers gdb's answers, must not wait for
        // the caller. It did (thread(id) was synchronized on the target), so each waited for the other until
        // gdb's 30 s time-out: DisassemblyViewTest's Step Into Instruction came back only after 30 s.
        RankThread stepping = (RankThread) target.getThreads()[0];
        events.clear();
        synchronized (target) {
            stepping.stepInstruction(false);
            awaitSuspend(target, DebugEvent.STEP_END, "stop of an instruction step while the target is held", 10);
        }
        assertTrue(target.isSuspended());
        // the same through the real callers: threads and register groups read in a loop by another thread all
        // along 20 instruction steps; every stop is reported within 10 s
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        Thread reader = new Thread(() -> {
            while (!stop.get()) {
                try {
                    for (var t : target.getThreads()) {
                        var top = t.getTopStackFrame();
                        if (top != null) {
                            top.getRegisterGroups();
                        }
                    }
                    reads.incrementAndGet();
                } catch (Exception e) {
                    // the rank ran between the two calls: gdb refuses, as the views see it too
                }
            }
        }, "reads the target");
        reader.start();
        try {
            for (int i = 0; i < 20; i++) {
                events.clear();
                stepping.stepInstruction(false);
                awaitSuspend(target, DebugEvent.STEP_END, "stop of instruction step " + (i + 1), 10);
            }
        } finally {
            stop.set(true);
            reader.join(30_000);
        }
        assertFalse(reader.isAlive(), "the reading thread ended");
        assertTrue(reads.get() > 0, "the other thread read the target");

        target.resume();
        awaitEvent(e -> e.getKind() == DebugEvent.RESUME && e.getSource() == target, "second resume");
        target.terminate();
        awaitEvent(e -> e.getKind() == DebugEvent.TERMINATE && e.getSource() == target, "terminate");
        assertTrue(target.isTerminated());
        assertNotEquals(0, rank.awaitExit(60), "the rank was killed");
        assertFalse(ProcessHandle.of(rank.pid).map(ProcessHandle::isAlive).orElse(false), "rank pid " + rank.pid);
    }
}
