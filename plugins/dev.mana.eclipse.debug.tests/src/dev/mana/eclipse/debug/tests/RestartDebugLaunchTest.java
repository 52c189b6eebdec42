package dev.mana.eclipse.debug.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.eclipse.debug.ManaDebugLaunchDelegate;
import dev.mana.eclipse.debug.ManaLineBreakpoint;
import dev.mana.eclipse.debug.RankDebugTarget;
import dev.mana.eclipse.debug.RankThread;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.IPath;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.IDebugEventSetListener;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.model.IProcess;
import org.eclipse.debug.core.model.IStackFrame;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Debug mode of the "MANA MPI Job" launch type on a restart configuration: the type's run delegate
 * restarts the job (real runtime, mpirun, coordinator hosted by Eclipse) with MANA_RESTART_PAUSE=3, the
 * debug delegate's Job attaches a target to rank 0 at its pause with the workspace breakpoint inserted;
 * Resume releases the pause, the breakpoint right after the checkpoint point is hit, and the job ends
 * with the result of an uninterrupted run.
 */
@Timeout(240)
class RestartDebugLaunchTest {
    private final BlockingQueue<DebugEvent> events = new LinkedBlockingQueue<>();
    private final IDebugEventSetListener listener = set -> events.addAll(Arrays.asList(set));
    private CheckpointedProgram prog;
    private ILaunch launch;

    @AfterEach
    void cleanUp() throws Exception {
        DebugPlugin.getDefault().removeDebugEventListener(listener);
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoints(
                DebugPlugin.getDefault().getBreakpointManager().getBreakpoints(), true);
        if (launch != null && !launch.isTerminated()) {
            launch.terminate();
        }
        if (prog != null) {
            prog.close();
        }
    }

    DebugEvent awaitEvent(Predicate<DebugEvent> match, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            DebugEvent e = events.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            assertNotNull(e, "no " + what + " within 90 s");
            if (match.test(e)) {
                return e;
            }
        }
    }

    @Test
    void debugModeRestartsPausedAndStopsAtTheBreakpoint() throws Exception {
        // 600 steps of 10 ms: the launched run must outlive the checkpoint request (two mana_status JVM starts,
        // seconds on a loaded machine); with 150 it had ended first ("0 of 1 ranks registered")
        prog = CheckpointedProgram.make(600);
        System.setProperty(ManaRuntime.RUNTIME_PROPERTY, CheckpointedProgram.root().toString());

        IWorkspace ws = ResourcesPlugin.getWorkspace();
        IProject project = ws.getRoot().getProject("restart-debug-" + prog.dir.getFileName());
        IProjectDescription desc = ws.newProjectDescription(project.getName());
        desc.setLocation(IPath.fromOSString(prog.dir.toString()));
        project.create(desc, null);
        project.open(null);
        IFile file = project.getFile("splitapp.c");
        ManaLineBreakpoint bp = new ManaLineBreakpoint(file, 20);
        DebugPlugin.getDefault().getBreakpointManager().addBreakpoint(bp);

        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
                .newInstance(null, "restart-debug");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, prog.app.toString());
        wc.setAttribute(ManaCore.ATTR_ARGUMENTS, "600 10000");
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, prog.dir.toString());
        wc.setAttribute(ManaCore.ATTR_RANKS, 1);
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, prog.ckpt.toString());
        wc.setAttribute(ManaCore.ATTR_RESTART, true);
        wc.setAttribute(ManaCore.ATTR_RESTART_DIRECTORY, prog.ckpt.toString());
        wc.setAttribute(ManaDebugLaunchDelegate.ATTR_PAUSE_LEVEL, 3);
        wc.setAttribute(ManaDebugLaunchDelegate.ATTR_DEBUG_RANKS, "0");

        DebugPlugin.getDefault().addDebugEventListener(listener);
        launch = wc.launch(ILaunchManager.DEBUG_MODE, null);
        DebugEvent created = awaitEvent(e -> e.getKind() == DebugEvent.CREATE && e.getSource() instanceof RankDebugTarget,
                "debug target");
        RankDebugTarget target = (RankDebugTarget) created.getSource();
        assertTrue(target.getName().startsWith("rank 0 (pid "), target.getName());
        assertTrue(List.of(launch.getDebugTargets()).contains(target));
        assertTrue(target.isSuspended());
        assertTrue(target.isPausePending(), "waits in its restart pause");
        assertEquals(3, target.debugger().pauseLevel());
        assertTrue(target.installedBreakpoints().containsKey(bp));

        target.resume(); // releases the pause
        DebugEvent hit = awaitEvent(e -> e.getKind() == DebugEvent.SUSPEND && e.getDetail() == DebugEvent.BREAKPOINT
                && e.getSource() instanceof RankThread, "breakpoint suspend");
        IStackFrame top = ((RankThread) hit.getSource()).getTopStackFrame();
        assertEquals("[upper] after_step at splitapp.c:20", top.getName());

        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoint(bp, true);
        target.resume();
        awaitEvent(e -> e.getKind() == DebugEvent.TERMINATE && e.getSource() == target, "target terminate");
        IProcess proc = launch.getProcesses()[0];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!proc.isTerminated() && System.nanoTime() < deadline) {
            awaitEvent(e -> e.getKind() == DebugEvent.TERMINATE, "process end");
        }
        assertTrue(proc.isTerminated());
        String out = proc.getStreamsProxy().getOutputStreamMonitor().getContents();
        String value = prog.nativeResult.substring("result ".length());
        assertTrue(out.contains("result " + value), out);
        project.delete(false, true, null);
    }
}
