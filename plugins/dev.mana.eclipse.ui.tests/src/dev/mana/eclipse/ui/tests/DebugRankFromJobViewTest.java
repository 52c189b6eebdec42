package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.RankState;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaJobs;
import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.debug.RankDebugTarget;
import dev.mana.eclipse.debug.RankGroups;
import dev.mana.eclipse.debug.ui.DebugRankHandler;
import dev.mana.eclipse.debug.ui.ManaDebugModelPresentation;
import dev.mana.eclipse.internal.debug.ui.Messages;
import dev.mana.eclipse.internal.ui.views.ManaJobView;
import dev.mana.eclipse.internal.ui.views.RankRow;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.core.runtime.Adapters;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.model.IProcess;
import org.eclipse.debug.core.model.IStackFrame;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.jface.viewers.StructuredSelection;
import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Debug Rank from the MANA Job view: heat_mpi on 2 ranks (Open MPI, real mpirun) launched in Run mode; rank 1's
 * row selected in the job view and the view's Debug Rank command executed as its context menu does: gdb attaches
 * to the running rank, which appears in the job's launch as a target stopped where it was, inside main's calls
 * (its label says suspended); a second Debug Rank on it is refused (already debugged); resumed, the job runs to
 * its end with the result of an uninterrupted run.
 */
class DebugRankFromJobViewTest {
    private Path dir;
    private ILaunchConfiguration config;
    private IManaJob job;

    @AfterEach
    void cleanUp() throws Exception {
        if (job != null && !job.getLaunch().isTerminated()) {
            job.getLaunch().terminate();
        }
        if (job != null) {
            DebugPlugin.getDefault().getLaunchManager().removeLaunch(job.getLaunch());
        }
        if (config != null) {
            config.delete();
        }
        CheckpointedSplitApp.deleteTree(dir);
    }

    @Test
    void debugRankAttachesToTheSelectedRunningRank() throws Exception {
        File root = new File(System.getProperty("mana.root"));
        File program = new File(root, "core-native/build/examples/heat_mpi");
        if (!new File(root, "bin/mana_launch").canExecute() || !program.canExecute()) {
            Cannot.skipOrFail("runtime", "the runtime and its examples are not built (make build): no " + program);
        }
        System.setProperty(ManaRuntime.RUNTIME_PROPERTY, root.getPath());
        String args = "1500 10"; // runs for 15 s and more: the attach takes seconds on a loaded machine
        ProcessBuilder pb = new ProcessBuilder("mpirun.openmpi", "--oversubscribe", "-n", "2", program.getPath(), "1500", "0")
                .redirectErrorStream(true);
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        Process p = pb.start();
        String ref = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor());
        String expect = ref.lines().filter(l -> l.startsWith("heat done:")).findFirst().orElseThrow(() -> new AssertionError(ref));

        dir = Files.createTempDirectory("mana-debug-rank");
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
                .newInstance(null, "debug-rank-" + dir.getFileName());
        wc.setAttribute(ManaCore.ATTR_PROGRAM, program.getPath());
        wc.setAttribute(ManaCore.ATTR_ARGUMENTS, args);
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, dir.toString());
        wc.setAttribute(ManaCore.ATTR_RANKS, 2);
        wc.setAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, MpiImplementation.OPEN_MPI.name());
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, dir.resolve("ck").toString());
        config = wc.doSave();
        List<IManaJob> before = new ArrayList<>(ManaJobs.getJobs());
        Ui.sync(() -> DebugUITools.launch(config, ILaunchManager.RUN_MODE));
        job = ManaWorkbenchFlowTest.waitForNewJob(before);
        IWorkbenchPage page = Ui.sync(() -> PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage());
        ManaJobView view = Ui.sync(() -> (ManaJobView) page.showView(ManaJobView.ID));
        Ui.waitFor("2 ranks RUNNING in the view", 60_000, () -> view.getShownJob() == job && view.getRows().size() == 2
                && view.getRows().stream().allMatch(r -> r.state() == RankState.RUNNING));

        // rank 1's row selected; Debug Rank as the view's context menu runs it
        RankRow row = Ui.sync(() -> view.getRows().stream().filter(r -> r.rank() == 1).findFirst().orElseThrow());
        RankInfo info = Adapters.adapt(row, RankInfo.class);
        assertNull(DebugRankHandler.refusal(info, job.getLaunch()), "a running rank here can be debugged");
        Ui.sync(() -> {
            view.getSite().getSelectionProvider().setSelection(new StructuredSelection(row));
            page.activate(view);
        });
        ManaWorkbenchFlowTest.execute(DebugRankHandler.COMMAND);
        Ui.waitFor("rank 1 in the launch as a suspended target", 120_000,
                () -> RankGroups.ranks(job.getLaunch()).stream().anyMatch(t -> t.rank() == 1 && t.isSuspended()));
        RankDebugTarget target = RankGroups.ranks(job.getLaunch()).get(0);
        assertEquals("rank 1 (pid " + info.pid() + ")", target.getName());
        assertEquals(NLS.bind(Messages.Rank_suspended, target.getName()), ManaDebugModelPresentation.rankLabel(target));
        List<String> frames = new ArrayList<>();
        for (IStackFrame f : target.getThreads()[0].getStackFrames()) {
            frames.add(f.getName());
        }
        assertTrue(frames.stream().anyMatch(f -> f.startsWith("[upper] main")), "stopped inside main's calls: " + frames);
        assertEquals(NLS.bind(Messages.DebugRank_already, target.getName()), DebugRankHandler.refusal(info, job.getLaunch()));

        // resumed: the job runs to its end, as without the debugger
        target.resume();
        IProcess proc = job.getLaunch().getProcesses()[0];
        Ui.waitFor("the job to end", 120_000, proc::isTerminated);
        Ui.waitFor(() -> "\"" + expect + "\" in the console: " + ManaWorkbenchFlowTest.console(job.getLaunch()), 30_000,
                () -> ManaWorkbenchFlowTest.console(job.getLaunch()).contains(expect));
        Ui.waitFor("the target to terminate", 30_000, target::isTerminated);
    }
}
