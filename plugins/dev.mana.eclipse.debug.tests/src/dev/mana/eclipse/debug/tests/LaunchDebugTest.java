package dev.mana.eclipse.debug.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.debug.ManaFunctionBreakpoint;
import dev.mana.eclipse.debug.RankDebugTarget;
import dev.mana.eclipse.debug.RankThread;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
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
 * Launch-time debugging: a "MANA MPI Job" configuration (not a restart) of the runtime's MPI heat example
 * on 2 ranks (Open MPI) launched in Debug mode with both ranks to debug: every rank starts in its launch
 * pause, each becomes a target {@code rank N (pid P)} suspended at its program's {@code main} with the
 * model's function breakpoint ({@code MPI_Gather}) inserted; Resume on both runs them into
 * {@code MPI_Gather} of the upper half; without the breakpoint the job ends with the result of an
 * uninterrupted run.
 */
@Timeout(240)
class LaunchDebugTest {
    private final BlockingQueue<DebugEvent> events = new LinkedBlockingQueue<>();
    private final IDebugEventSetListener listener = set -> events.addAll(Arrays.asList(set));
    private ILaunch launch;
    private Path dir;

    @AfterEach
    void cleanUp() throws Exception {
        DebugPlugin.getDefault().removeDebugEventListener(listener);
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoints(
                DebugPlugin.getDefault().getBreakpointManager().getBreakpoints(), true);
        if (launch != null && !launch.isTerminated()) {
            launch.terminate();
        }
        if (dir != null) {
            CheckpointedProgram.deleteTree(dir);
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
    void debugModeLaunchStopsEveryRankAtMain() throws Exception {
        Path example = CheckpointedProgram.root().resolve("core-native/build/examples/heat_mpi");
        if (!Files.isExecutable(example)) {
            Cannot.skipOrFail("runtime", "the runtime and its examples are not built (make build): no " + example);
        }
        System.setProperty(ManaRuntime.RUNTIME_PROPERTY, CheckpointedProgram.root().toString());
        dir = Files.createTempDirectory("mana-launch-debug");
        // the reference: an uninterrupted run, no runtime
        ProcessBuilder ref = new ProcessBuilder("mpirun.openmpi", "--oversubscribe", "-n", "2", example.toString(), "6", "0")
                .redirectErrorStream(true);
        ref.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        ref.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        Process p = ref.start();
        String refOut = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        String want = refOut.lines().filter(l -> l.startsWith("heat done:")).findFirst().orElseThrow();

        ManaFunctionBreakpoint gather = new ManaFunctionBreakpoint("MPI_Gather");
        DebugPlugin.getDefault().getBreakpointManager().addBreakpoint(gather);
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
                .newInstance(null, "launch-debug");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, example.toString());
        wc.setAttribute(ManaCore.ATTR_ARGUMENTS, "6 0");
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, dir.toString());
        wc.setAttribute(ManaCore.ATTR_RANKS, 2);
        wc.setAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, MpiImplementation.OPEN_MPI.name());
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, dir.resolve("ck").toString());
        wc.setAttribute(ManaCore.ATTR_DEBUG_RANKS, "0,1");

        DebugPlugin.getDefault().addDebugEventListener(listener);
        launch = wc.launch(ILaunchManager.DEBUG_MODE, null);
        List<RankDebugTarget> targets = new ArrayList<>();
        while (targets.size() < 2) {
            DebugEvent created = awaitEvent(e -> e.getKind() == DebugEvent.CREATE && e.getSource() instanceof RankDebugTarget,
                    "debug target " + targets.size());
            targets.add((RankDebugTarget) created.getSource());
        }
        Set<Integer> ranks = new TreeSet<>();
        for (RankDebugTarget t : targets) {
            ranks.add(t.rank());
            assertTrue(t.getName().matches("rank " + t.rank() + " \\(pid \\d+\\)"), t.getName());
            assertTrue(t.isSuspended());
            assertFalse(t.isPausePending(), "a launched rank has no restart pause to release");
            assertTrue(t.installedBreakpoints().containsKey(gather));
            IStackFrame top = t.getThreads()[0].getTopStackFrame();
            assertTrue(top.getName().startsWith("[upper] main at heat_mpi.c:"), top.getName());
            assertEquals("gdb: " + t.getName(), t.getProcess().getLabel());
        }
        assertEquals(Set.of(0, 1), ranks);

        for (RankDebugTarget t : targets) {
            t.resume();
        }
        for (int i = 0; i < 2; i++) {
            DebugEvent hit = awaitEvent(e -> e.getKind() == DebugEvent.SUSPEND && e.getDetail() == DebugEvent.BREAKPOINT
                    && e.getSource() instanceof RankThread, "MPI_Gather breakpoint " + i);
            IStackFrame top = ((RankThread) hit.getSource()).getTopStackFrame();
            // the runtime's MPI library of the upper half (its wrapper may carry the PMPI_ name)
            assertTrue(top.getName().startsWith("[upper] ") && top.getName().contains("MPI_Gather"), top.getName());
        }

        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoint(gather, true);
        for (RankDebugTarget t : targets) {
            t.resume();
        }
        IProcess proc = launch.getProcesses()[0];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!proc.isTerminated() && System.nanoTime() < deadline) {
            awaitEvent(e -> e.getKind() == DebugEvent.TERMINATE, "job end");
        }
        assertTrue(proc.isTerminated());
        String out = proc.getStreamsProxy().getOutputStreamMonitor().getContents();
        assertTrue(out.contains(want), out);
    }
}
