package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaJobs;
import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.debug.RankDebugTarget;
import dev.mana.eclipse.debug.RankGroups;
import dev.mana.eclipse.debug.RankStackFrame;
import dev.mana.eclipse.debug.ui.AllRanksHandler;
import dev.mana.eclipse.debug.ui.ManaDebugModelPresentation;
import dev.mana.eclipse.internal.debug.ui.Messages;
import org.eclipse.debug.ui.IDebugUIConstants;
import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.IPerspectiveDescriptor;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PlatformUI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.IDebugEventSetListener;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.model.IProcess;
import org.eclipse.debug.core.model.IStackFrame;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Four ranks as a group in the workbench, on each MPI (real mpirun): the runtime's MPI heat example on 4 ranks
 * launched in Debug mode with ranks {@code 0-3} (a rank set) gives four targets suspended at {@code main}, all
 * four in the Debug view. Rank 1 resumed alone runs into MPI and stays there (it waits for the three suspended
 * ranks): {@link RankGroups#waitsFor} names ranks 0, 2 and 3, and its label in the Debug view says so
 * (screenshot debug-4-ranks.png, Open MPI). Checkpoint Now while ranks are suspended is refused with a message
 * naming them, and the job goes on untouched. Suspend All Ranks stops rank 1 where it waits: in an MPI call,
 * called from main. Resume All Ranks runs all four to the end with the result of an uninterrupted run.
 *
 * <p>The same four ranks restarted under the debugger: the job launched in Run mode, checkpointed and stopped
 * once all four run; Debug from Checkpoint... (the restart dialog's Debug variant) with ranks {@code 0-3}
 * restarts it (real mpirun again) with all four suspended at their restart pause, all four in the Debug view;
 * rank 1 released alone waits for 0, 2 and 3 at its next collective, its label says so; Resume All Ranks
 * releases the other three and the job ends with the uninterrupted result.
 */
@org.junit.jupiter.api.Timeout(400)
class FourRanksDebugUiTest {
    private final BlockingQueue<DebugEvent> events = new LinkedBlockingQueue<>();
    private final IDebugEventSetListener listener = set -> events.addAll(Arrays.asList(set));
    private ILaunch launch;
    /** The Run mode launch that is checkpointed and stopped before the restart under the debugger. */
    private ILaunch runLaunch;
    private org.eclipse.debug.core.ILaunchConfiguration config;
    private Path dir;
    private IPerspectiveDescriptor perspectiveBefore;

    @AfterEach
    void cleanUp() throws Exception {
        DebugPlugin.getDefault().removeDebugEventListener(listener);
        if (launch != null && !launch.isTerminated()) {
            launch.terminate();
        }
        if (launch != null) {
            DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
        }
        if (runLaunch != null) {
            if (!runLaunch.isTerminated()) {
                runLaunch.terminate();
            }
            DebugPlugin.getDefault().getLaunchManager().removeLaunch(runLaunch);
        }
        if (config != null) {
            config.delete();
        }
        Ui.sync(() -> {
            if (perspectiveBefore != null) {
                PlatformUI.getWorkbench().getWorkbenchWindows()[0].getActivePage().setPerspective(perspectiveBefore);
            }
        });
        CheckpointedSplitApp.deleteTree(dir);
    }

    static Path root() {
        return Path.of(System.getProperty("mana.root")).toAbsolutePath().normalize();
    }

    DebugEvent awaitEvent(Predicate<DebugEvent> match, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            DebugEvent e = events.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            assertNotNull(e, "no " + what + " within 120 s");
            if (match.test(e)) {
                return e;
            }
        }
    }

    static String nativeResult(MpiImplementation mpi, Path example) throws Exception {
        return nativeResult(mpi, example, "6");
    }

    /** The result line of heat_mpi on 4 ranks, {@code steps} steps, run by mpirun alone. */
    static String nativeResult(MpiImplementation mpi, Path example, String steps) throws Exception {
        String mpirun = mpi == MpiImplementation.OPEN_MPI ? "mpirun.openmpi" : "mpirun.mpich";
        List<String> cmd = new ArrayList<>(List.of(mpirun));
        if (mpi == MpiImplementation.OPEN_MPI) {
            cmd.add("--oversubscribe");
        }
        cmd.addAll(List.of("-n", "4", example.toString(), steps, "0"));
        ProcessBuilder ref = new ProcessBuilder(cmd).redirectErrorStream(true);
        ref.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        ref.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        Process p = ref.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        return out.lines().filter(l -> l.startsWith("heat done:")).findFirst().orElseThrow(() -> new AssertionError(out));
    }

    /**
     * heat_mpi for {@code mpi} (the build's links the default MPI, Open MPI; for MPICH it is built here with
     * mpicc.mpich into {@link #dir}, which this makes).
     */
    private Path heatExample(MpiImplementation mpi, String dirPrefix) throws Exception {
        Path built = root().resolve("core-native/build/examples/heat_mpi");
        if (!Files.isExecutable(built)) {
            Cannot.skipOrFail("runtime", "the runtime and its examples are not built (make build): no " + built);
        }
        System.setProperty(ManaRuntime.RUNTIME_PROPERTY, root().toString());
        dir = Files.createTempDirectory(dirPrefix);
        if (mpi != MpiImplementation.MPICH) {
            return built;
        }
        Path example = dir.resolve("heat_mpi");
        Process cc = new ProcessBuilder("mpicc.mpich", "-O2", "-o", example.toString(),
                root().resolve("core-native/examples/heat_mpi.c").toString())
                .redirectErrorStream(true).start();
        String ccOut = new String(cc.getInputStream().readAllBytes());
        assertTrue(cc.waitFor(120, TimeUnit.SECONDS) && cc.exitValue() == 0, "mpicc.mpich: " + ccOut);
        return example;
    }

    @ParameterizedTest
    @EnumSource(value = MpiImplementation.class, names = {"OPEN_MPI", "MPICH"})
    void fourRanksResumedAloneSuspendedAndResumedTogether(MpiImplementation mpi) throws Exception {
        Path example = heatExample(mpi, "mana-rank-groups");
        String want = nativeResult(mpi, example);

        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
                .newInstance(null, "rank-groups-" + mpi);
        wc.setAttribute(ManaCore.ATTR_PROGRAM, example.toString());
        wc.setAttribute(ManaCore.ATTR_ARGUMENTS, "6 0");
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, dir.toString());
        wc.setAttribute(ManaCore.ATTR_RANKS, 4);
        wc.setAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, mpi.name());
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, dir.resolve("ck").toString());
        wc.setAttribute(ManaCore.ATTR_DEBUG_RANKS, "0-3");

        IWorkbenchWindow window = Ui.sync(() -> PlatformUI.getWorkbench().getWorkbenchWindows()[0]);
        IWorkbenchPage page = Ui.sync(window::getActivePage);
        perspectiveBefore = Ui.sync(page::getPerspective);
        Ui.sync(() -> {
            try {
                PlatformUI.getWorkbench().showPerspective(IDebugUIConstants.ID_DEBUG_PERSPECTIVE, window);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        Ui.sync(() -> window.getShell().setBounds(0, 0, 1280, 900)); // the screenshot shows the whole Debug view
        DebugPlugin.getDefault().addDebugEventListener(listener);
        launch = wc.launch(ILaunchManager.DEBUG_MODE, null);
        List<RankDebugTarget> targets = new ArrayList<>();
        while (targets.size() < 4) {
            DebugEvent created = awaitEvent(e -> e.getKind() == DebugEvent.CREATE && e.getSource() instanceof RankDebugTarget,
                    "debug target " + targets.size());
            targets.add((RankDebugTarget) created.getSource());
        }
        List<RankDebugTarget> ranks = RankGroups.ranks(launch);
        assertEquals(List.of(0, 1, 2, 3), ranks.stream().map(RankDebugTarget::rank).toList());
        for (RankDebugTarget t : ranks) {
            assertTrue(t.isSuspended(), t.getName());
            assertTrue(RankGroups.waitsFor(t).isEmpty(), "a suspended rank waits for nobody");
        }

        // rank 1 released alone: it runs into MPI and waits there for the suspended three
        RankDebugTarget one = ranks.get(1);
        one.resume();
        awaitEvent(e -> e.getKind() == DebugEvent.RESUME && e.getSource() == one, "rank 1 to run");
        assertEquals(List.of(0, 2, 3), RankGroups.waitsFor(one));
        String stall = NLS.bind(Messages.Rank_waitsFor, one.getName(), "0, 2, 3");
        assertEquals(stall, ManaDebugModelPresentation.rankLabel(one));
        org.eclipse.debug.ui.IDebugView debugView =
                (org.eclipse.debug.ui.IDebugView) Ui.sync(() -> page.showView(IDebugUIConstants.ID_DEBUG_VIEW));
        Ui.waitFor(() -> "the four ranks and rank 1's stall in the Debug view: " + debugViewText(debugView), 30_000, () -> {
            String text = debugViewText(debugView);
            return text.contains(stall) && ranks.stream().allMatch(t -> text.contains(t.getName()));
        });
        if (mpi == MpiImplementation.OPEN_MPI) {
            // the threads' frames come from gdb in the background: the picture waits (bounded) for their labels
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (debugViewText(debugView).contains("\n\n") && System.nanoTime() < until) {
                Thread.sleep(100);
            }
            Ui.sync(() -> DisassemblyViewTest.maximizedScreenshot(page, debugView, "debug-4-ranks"));
        }

        // Checkpoint Now while ranks are suspended in the debugger: refused, naming them; nothing else happens
        IManaJob job = ManaJobs.forLaunch(launch);
        assertNotNull(job, "the launch's MANA job");
        CoreException refused = assertThrows(CoreException.class, () -> job.checkpoint(false, null));
        String why = refused.getStatus().getMessage();
        assertTrue(why.contains("refused") && why.contains("suspended in the debugger"), why);
        for (int r : List.of(0, 2, 3)) {
            assertTrue(why.contains(ranks.get(r).getName()), why);
        }
        assertTrue(!why.contains(one.getName()), "rank 1 runs: " + why);
        assertTrue(!launch.getProcesses()[0].isTerminated(), "the job goes on");

        // Suspend All: rank 1 stops where it waits, in an MPI call (the upper half's wrapper or the MPI library)
        assertTrue(RankGroups.canSuspendAll(launch));
        Job suspendAll = new AllRanksHandler.Suspend().run(launch);
        suspendAll.join(30_000, null);
        assertTrue(suspendAll.getResult() != null && suspendAll.getResult().isOK(), String.valueOf(suspendAll.getResult()));
        awaitEvent(e -> e.getKind() == DebugEvent.SUSPEND && e.getSource() instanceof org.eclipse.debug.core.model.IDebugElement d
                && d.getDebugTarget() == one, "rank 1 to stop");
        assertTrue(one.isSuspended());
        List<String> frames = new ArrayList<>();
        boolean inMpi = false;
        for (IStackFrame f : one.getThreads()[0].getStackFrames()) {
            frames.add(f.getName());
            // the runtime's MPI library of the upper half (core-native/src/mpi: MPI_Sendrecv's wrapper waits in
            // post_and_wait), or the real MPI below it
            RankStackFrame rf = (RankStackFrame) f;
            inMpi |= rf.half() == dev.mana.inspector.Half.LOWER || f.getName().contains("MPI")
                    || rf.getSourcePath() != null && rf.getSourcePath().contains("/src/mpi/");
        }
        assertTrue(inMpi, "rank 1 waits in MPI: " + frames);
        assertTrue(frames.stream().anyMatch(f -> f.startsWith("[upper] main")), "called from main: " + frames);
        assertTrue(RankGroups.waitsFor(one).isEmpty());

        // Resume All: the job runs to its end with the uninterrupted result
        assertTrue(!RankGroups.canSuspendAll(launch) && RankGroups.canResumeAll(launch));
        Job resumeAll = new AllRanksHandler.Resume().run(launch);
        resumeAll.join(30_000, null);
        assertTrue(resumeAll.getResult() != null && resumeAll.getResult().isOK(), String.valueOf(resumeAll.getResult()));
        IProcess proc = launch.getProcesses()[0];
        Ui.waitFor("the job to end", 120_000, proc::isTerminated);
        // the job's console (the workbench's console takes the output: the stream monitor keeps none)
        Ui.waitFor(() -> "\"" + want + "\" in the console: " + ManaWorkbenchFlowTest.console(launch), 30_000,
                () -> ManaWorkbenchFlowTest.console(launch).contains(want));
    }

    @ParameterizedTest
    @EnumSource(value = MpiImplementation.class, names = {"OPEN_MPI", "MPICH"})
    void fourRanksRestartedUnderTheDebugger(MpiImplementation mpi) throws Exception {
        Path example = heatExample(mpi, "mana-rank-restart");
        // every rank holds before its last step until the hold file exists (TEST_HOLD_FILE): the job still
        // runs when its checkpoint is asked for, on any machine; few steps, since a step of MPICH's four
        // busy-polling ranks on a loaded two-core machine takes a second
        String want = nativeResult(mpi, example, "8");
        Path hold = dir.resolve("hold");
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
                .newInstance(null, "restart-4-ranks-" + mpi);
        wc.setAttribute(ManaCore.ATTR_PROGRAM, example.toString());
        wc.setAttribute(ManaCore.ATTR_ARGUMENTS, "8 100");
        wc.setAttribute(ILaunchManager.ATTR_ENVIRONMENT_VARIABLES, java.util.Map.of("TEST_HOLD_FILE", hold.toString()));
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, dir.toString());
        wc.setAttribute(ManaCore.ATTR_RANKS, 4);
        wc.setAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, mpi.name());
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, dir.resolve("ck").toString());
        config = wc.doSave();

        // Run mode; once the four ranks run: checkpoint and stop
        List<IManaJob> before = new ArrayList<>(ManaJobs.getJobs());
        runLaunch = config.launch(ILaunchManager.RUN_MODE, null);
        IManaJob job = ManaWorkbenchFlowTest.waitForNewJob(before);
        Ui.waitFor(() -> "4 ranks RUNNING (now " + job.getRanks() + ")", 120_000, () -> job.getRanks().size() == 4
                && job.getRanks().stream().allMatch(r -> r.state() == dev.mana.coordinator.RankState.RUNNING));
        dev.mana.coordinator.CheckpointResult ck = job.checkpoint(true, null);
        assertTrue(ck.ok() && ck.ranks() == 4, String.valueOf(ck));
        Ui.waitFor("the checkpointed job to stop", 60_000, runLaunch::isTerminated);
        String out1 = ManaWorkbenchFlowTest.console(runLaunch);
        assertTrue(!out1.contains(want), "stopped before its end: " + out1);

        // Debug from Checkpoint...: ranks 0-3 at the restart pause (level 2, the dialog's default)
        IWorkbenchWindow window = Ui.sync(() -> PlatformUI.getWorkbench().getWorkbenchWindows()[0]);
        IWorkbenchPage page = Ui.sync(window::getActivePage);
        perspectiveBefore = Ui.sync(page::getPerspective);
        Ui.sync(() -> {
            try {
                PlatformUI.getWorkbench().showPerspective(IDebugUIConstants.ID_DEBUG_PERSPECTIVE, window);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        DebugPlugin.getDefault().addDebugEventListener(listener);
        Ui.sync(() -> {
            dev.mana.eclipse.internal.ui.actions.RestartDialog d = new dev.mana.eclipse.internal.ui.actions.RestartDialog(
                    window.getShell(), job, dir.resolve("ck").toFile(), true);
            d.setBlockOnOpen(false);
            d.open();
            assertNotNull(d.debugButton(), "the Debug group (the MANA debugger is installed)");
            assertTrue(d.debugButton().getSelection());
            assertNotNull(d.awaitValidation(10_000), "the directory was checked");
            assertTrue(d.getValidation().isValid(), d.getValidation().problems().toString());
            d.debugRanksText().setText("0-3");
            assertEquals(null, d.getErrorMessage());
            assertTrue(d.pressRestart());
            assertEquals(ILaunchManager.DEBUG_MODE, d.launchMode());
            d.launch();
        });
        List<RankDebugTarget> targets = new ArrayList<>();
        while (targets.size() < 4) {
            DebugEvent created = awaitEvent(e -> e.getKind() == DebugEvent.CREATE && e.getSource() instanceof RankDebugTarget,
                    "restarted rank's debug target " + targets.size());
            targets.add((RankDebugTarget) created.getSource());
        }
        launch = targets.get(0).getLaunch();
        List<RankDebugTarget> ranks = RankGroups.ranks(launch);
        assertEquals(List.of(0, 1, 2, 3), ranks.stream().map(RankDebugTarget::rank).sorted().toList());
        ranks = new ArrayList<>(ranks);
        ranks.sort(java.util.Comparator.comparingInt(RankDebugTarget::rank));
        for (RankDebugTarget t : ranks) {
            assertTrue(t.isSuspended() && t.isPausePending(), t.getName() + " waits in its restart pause");
            assertEquals(NLS.bind(Messages.Rank_atRestartPause, t.getName()), ManaDebugModelPresentation.rankLabel(t));
        }
        org.eclipse.debug.ui.IDebugView debugView =
                (org.eclipse.debug.ui.IDebugView) Ui.sync(() -> page.showView(IDebugUIConstants.ID_DEBUG_VIEW));
        List<RankDebugTarget> all = ranks;
        Ui.waitFor(() -> "the four restarted ranks in the Debug view: " + debugViewText(debugView), 30_000,
                () -> all.stream().allMatch(t -> debugViewText(debugView).contains(t.getName())));

        // rank 1 released alone: at its next collective it waits for the three still in their pause
        RankDebugTarget one = ranks.get(1);
        one.resume();
        awaitEvent(e -> e.getKind() == DebugEvent.RESUME && e.getSource() == one, "rank 1 to run");
        assertTrue(!one.isPausePending());
        assertEquals(List.of(0, 2, 3), RankGroups.waitsFor(one));
        String stall = NLS.bind(Messages.Rank_waitsFor, one.getName(), "0, 2, 3");
        assertEquals(stall, ManaDebugModelPresentation.rankLabel(one));
        Ui.waitFor(() -> "rank 1's stall in the Debug view: " + debugViewText(debugView), 30_000,
                () -> debugViewText(debugView).contains(stall));

        // Resume All Ranks releases the other three: the job ends with the uninterrupted result
        assertTrue(RankGroups.canResumeAll(launch));
        Job resumeAll = new AllRanksHandler.Resume().run(launch);
        resumeAll.join(60_000, null);
        assertTrue(resumeAll.getResult() != null && resumeAll.getResult().isOK(), String.valueOf(resumeAll.getResult()));
        for (RankDebugTarget t : ranks) {
            assertTrue(!t.isPausePending(), t.getName() + " released");
        }
        java.nio.file.Files.createFile(hold);      // the ranks' last step
        IProcess proc = launch.getProcesses()[0];
        Ui.waitFor("the restarted job to end", 180_000, proc::isTerminated);
        Ui.waitFor(() -> "\"" + want + "\" in the console: " + ManaWorkbenchFlowTest.console(launch), 30_000,
                () -> ManaWorkbenchFlowTest.console(launch).contains(want));
    }

    /** The Debug view's labels, every level expanded as the view shows it (call from any thread). */
    static String debugViewText(org.eclipse.debug.ui.IDebugView view) {
        return Ui.sync(() -> {
            StringBuilder b = new StringBuilder();
            if (view.getViewer().getControl() instanceof org.eclipse.swt.widgets.Tree tree) {
                append(tree.getItems(), b);
            }
            return b.toString();
        });
    }

    private static void append(org.eclipse.swt.widgets.TreeItem[] items, StringBuilder b) {
        for (org.eclipse.swt.widgets.TreeItem i : items) {
            b.append(i.getText()).append('\n');
            append(i.getItems(), b);
        }
    }
}
