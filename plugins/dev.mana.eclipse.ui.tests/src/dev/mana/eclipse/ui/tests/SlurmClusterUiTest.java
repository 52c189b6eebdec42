package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.mana.coordinator.RankState;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaJobs;
import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.core.SlurmSubmit;
import dev.mana.eclipse.internal.ui.actions.CheckpointJob;
import dev.mana.eclipse.internal.ui.actions.RestartDialog;
import dev.mana.eclipse.internal.ui.views.ManaJobView;
import dev.mana.eclipse.internal.ui.views.RankRow;

/**
 * A MANA MPI Job on a Slurm cluster, from the workbench, against the namespace cluster with real Slurm
 * ({@code cluster.sh --nodes 4 --slurm}, kept up for the test): the configuration's Slurm tab says sbatch on
 * node1,node2 with 2 tasks each, the Slurm commands run on the cluster's head through its {@code on head}
 * (the command prefix); the launch submits the plug-in's batch script; the MANA Job view shows the four
 * ranks RUNNING with their nodes (the coordinator's LIST); a periodic checkpoint (the Checkpoints tab's
 * interval, 2 s: the batch script's coordinator runs with -i 2) on every rank; Checkpoint Now (the command)
 * after it; Terminate (scancel);
 * Restart from Checkpoint... with "Restart on a new allocation" on node3,node4 placed 1+3 (tasks per node "1,3");
 * the restarted ranks RUNNING there, rank 0 on node3 and ranks 1-3 on node4; the stop file; the restarted job COMPLETED with the result of a native srun of the same iterations.
 * Both MPIs ({@code srun --mpi=pmix} for Open MPI, {@code --mpi=pmi2} for MPICH: the launch's own choice) and the
 * ring program of tests/mpi built for each.
 */
class SlurmClusterUiTest {

    @ParameterizedTest
    @EnumSource(value = MpiImplementation.class, names = { "OPEN_MPI", "MPICH" })
    void sbatchCheckpointCancelRestartOnOtherNodes(MpiImplementation mpi) throws Exception {
        onCluster(mpi, mpi.name(), SlurmClusterUiTest::run);
    }

    /** A scenario on the cluster: the cluster, the MPI, its ring program, the test's start (for the timings). */
    private interface Scenario {
        void run(NamespaceCluster cluster, MpiImplementation mpi, File ring, long t0) throws Exception;
    }

    /**
     * Runs {@code scenario} against a fresh namespace cluster of 4 nodes with the ring program of {@code mpi}; the
     * cluster's log joins a failure, and every job still running at the end is terminated (nothing of the test
     * outlives it on the cluster).
     */
    private static void onCluster(MpiImplementation mpi, String what, Scenario scenario) throws Exception {
        File root = new File(System.getProperty("mana.root"));
        File ring = new File(root, "core-native/build/tests/mpi/" + (mpi == MpiImplementation.OPEN_MPI ? "openmpi" : "mpich")
            + "/ring");
        if (!new File(root, "bin/mana_launch").canExecute() || !ring.canExecute()) {
            Cannot.skipOrFail("runtime", "the runtime and its MPI tests are not built (make build): no " + ring);
        }
        System.setProperty(ManaRuntime.RUNTIME_PROPERTY, root.getPath());
        InstanceScope.INSTANCE.getNode(ManaCore.PLUGIN_ID).putLong(ManaCore.PREF_POLL_MILLIS, 200);
        long t0 = System.nanoTime();
        try (NamespaceCluster cluster = NamespaceCluster.start(root, 4)) {
            try {
                scenario.run(cluster, mpi, ring, t0);
            } catch (AssertionError | Exception e) {
                throw new AssertionError(e.getMessage() + "\n---- cluster.sh\n" + cluster.log(), e);
            } finally {
                for (IManaJob j : ManaJobs.getJobs()) {
                    if (!j.isTerminated()) {
                        j.getLaunch().terminate(); // scancel, or the step's end
                    }
                }
            }
        }
        System.out.printf("SlurmClusterUiTest (%s): %.1f s with the cluster's start and end%n", what,
            (System.nanoTime() - t0) / 1e9);
    }

    /** A MANA MPI Job configuration of {@code ring} on the cluster: {@code submit} on node1,node2, 2 tasks each. */
    private static ILaunchConfigurationWorkingCopy configuration(NamespaceCluster cluster, MpiImplementation mpi, File ring,
            File work, SlurmSubmit submit) throws Exception {
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
            .newInstance(null, lm.generateLaunchConfigurationName("ring-" + submit.name().toLowerCase(Locale.ROOT) + "-"
                + mpi.name().toLowerCase(Locale.ROOT)));
        wc.setAttribute(ManaCore.ATTR_PROGRAM, ring.getPath());
        wc.setAttribute(ManaCore.ATTR_ARGUMENTS, "--stop-file " + new File(work, "stop").getPath());
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, work.getPath());
        wc.setAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, mpi.name());
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, new File(work, "ck").getPath());
        wc.setAttribute(ManaCore.ATTR_SLURM, true);
        wc.setAttribute(ManaCore.ATTR_SLURM_SUBMIT, submit.name());
        wc.setAttribute(ManaCore.ATTR_SLURM_NODES, 2);
        wc.setAttribute(ManaCore.ATTR_SLURM_TASKS_PER_NODE, 2);
        wc.setAttribute(ManaCore.ATTR_SLURM_NODE_LIST, "node1,node2");
        wc.setAttribute(ManaCore.ATTR_SLURM_COMMAND_PREFIX, String.join(" ", cluster.onHead()));
        // the cluster's Slurm and its shared HOME (the status files ~/.mana-slurm-ID.rc)
        wc.setAttribute(ILaunchManager.ATTR_ENVIRONMENT_VARIABLES, Map.of("SLURM_CONF", cluster.slurmConf.getPath(),
            "HOME", cluster.home().getPath()));
        return wc;
    }

    /** Runs the configuration (Run mode); its job. */
    private static IManaJob launch(ILaunchConfiguration config) throws Exception {
        List<IManaJob> before = ManaJobs.getJobs();
        Ui.sync(() -> DebugUITools.launch(config, ILaunchManager.RUN_MODE));
        return ManaWorkbenchFlowTest.waitForNewJob(before);
    }

    private static ManaJobView jobView() {
        return Ui.sync(() -> (ManaJobView) PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage()
            .showView(ManaJobView.ID));
    }

    /** Terminate, as from the Debug view (scancel for a batch job, the step's end for an interactive one). */
    private static void terminate(IManaJob job) {
        Ui.sync(() -> {
            try {
                job.getLaunch().terminate();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    /**
     * Restart from Checkpoint... with "Restart on a new allocation" on node3,node4 with {@code tasksPerNode} ("2", or
     * "1,3" for one rank on node3 and three on node4); the restarted job.
     */
    private static IManaJob restartOnNode3And4(IManaJob job, boolean tryAWrongShape, String tasksPerNode) throws Exception {
        List<IManaJob> before = ManaJobs.getJobs();
        Ui.sync(() -> {
            Shell window = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getShell();
            RestartDialog d = new RestartDialog(window, job);
            d.setBlockOnOpen(false);
            d.open();
            assertNotNull(d.awaitValidation(20_000), "the directory was checked");
            assertTrue(d.getValidation().isValid(), d.getValidation().problems().toString());
            assertTrue(d.newAllocationButton().isEnabled(), "a Slurm configuration offers a new allocation");
            d.newAllocationButton().setSelection(true);
            d.newAllocationButton().notifyListeners(org.eclipse.swt.SWT.Selection, new org.eclipse.swt.widgets.Event());
            if (tryAWrongShape) {
                // 3 x 2 is not the checkpoint's 4 ranks: refused, with why
                d.allocationTasksPerNodeText().setText("3");
                assertTrue(!d.pressRestart(), "Restart is disabled");
                assertTrue(String.valueOf(d.errorMessage()).contains("6 ranks"), d.errorMessage());
                // a placement of 1+2 on the 2 nodes: 3 ranks, refused the same way
                d.allocationTasksPerNodeText().setText("1,2");
                assertTrue(!d.pressRestart(), "Restart is disabled");
                assertTrue(String.valueOf(d.errorMessage()).contains("3 ranks"), d.errorMessage());
            }
            d.allocationTasksPerNodeText().setText(tasksPerNode);
            d.allocationNodeListText().setText("node3,node4");
            assertTrue(d.pressRestart());
            d.launch();
        });
        IManaJob restarted = ManaWorkbenchFlowTest.waitForNewJob(before);
        assertTrue(restarted.isRestart());
        return restarted;
    }

    /** The stop file; the restarted job ends well with the {@code ring done:} line of a native srun of as many iterations. */
    private static String stopAndCompareWithNative(NamespaceCluster cluster, MpiImplementation mpi, File ring, File work,
            IManaJob restarted) throws Exception {
        Files.writeString(new File(work, "stop").toPath(), "30\n");
        Ui.waitFor(() -> "the restarted job to end: " + ManaWorkbenchFlowTest.console(restarted.getLaunch()), 90_000,
            () -> restarted.getLaunch().isTerminated());
        String out = ManaWorkbenchFlowTest.console(restarted.getLaunch());
        assertEquals(0, restarted.getLaunch().getProcesses()[0].getExitValue(), out);
        assertTrue(!out.contains("[rank 0] ready"), "the program went on from its checkpoint, not from the start: " + out);
        Matcher m = Pattern.compile("\\[rank 0\\] (ring done: iters=(\\d+) .*)").matcher(out);
        assertTrue(m.find(), out);
        String[] srun = { "srun", "-K", mpi == MpiImplementation.OPEN_MPI ? "--mpi=pmix" : "--mpi=pmi2", "-N", "2",
            "--ntasks-per-node=2", "-w", "node1,node2", ring.getPath(), "--iters", m.group(2) };
        String native_;
        try {
            native_ = cluster.onHead(90, srun);
        } catch (AssertionError e) {
            if (!openMpiStartupCrash(mpi, String.valueOf(e.getMessage()))) {
                throw e;
            }
            System.out.println("SlurmClusterUiTest: the native run lost a rank to Open MPI's startup crash: once more");
            native_ = cluster.onHead(90, srun);
        }
        Matcher n = Pattern.compile("(ring done: iters=\\d+ .*)").matcher(native_);
        assertTrue(n.find(), native_);
        assertEquals(n.group(1).trim(), m.group(1).trim(), "the restarted job's result is the native one");
        return out;
    }

    private static void run(NamespaceCluster cluster, MpiImplementation mpi, File ring, long t0) throws Exception {
        File work = cluster.shared("ide-" + mpi.name().toLowerCase(Locale.ROOT));
        File ckpt = new File(work, "ck");
        ILaunchConfigurationWorkingCopy wc = configuration(cluster, mpi, ring, work, SlurmSubmit.SBATCH);
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_INTERVAL, 2); // periodic: the job's own coordinator, -i 2
        ILaunchConfiguration config = wc.doSave();
        if (mpi == MpiImplementation.MPICH) {
            Ui.screenshotLaunchDialog(config, null, null, "launch-dialog-slurm"); // Main, MPI, Slurm
        }

        // 1. launch: sbatch on node1,node2; the view shows every rank RUNNING on its node
        ManaJobView view = jobView();
        IManaJob job = runningOn(mpi, view, () -> launch(config), List.of("node1", "node1", "node2", "node2"));
        File script = new File(work, "mana-" + config.getName().replaceAll("[^A-Za-z0-9_.-]", "_") + "-launch.sbatch");
        assertTrue(script.isFile(), "the batch script is kept in the run's folder: " + script);
        String batch = Files.readString(script.toPath());
        assertTrue(batch.contains("#SBATCH --nodelist=node1,node2"), batch);
        assertTrue(batch.contains("mana_coordinator -p 0 -i 2 "), "the Checkpoints tab's interval: " + batch);
        String out0 = ManaWorkbenchFlowTest.console(job.getLaunch());
        assertTrue(out0.contains("[mana] Slurm job "), out0);
        System.out.printf("SlurmClusterUiTest: launched, 4 ranks RUNNING at %.1f s%n", (System.nanoTime() - t0) / 1e9);

        // 2. periodic checkpoints: the job's coordinator writes generation 1 on its own, on every rank
        Ui.waitFor(() -> "a periodic checkpoint (generation 1 on all 4 ranks) in " + ckpt + ": "
            + ManaWorkbenchFlowTest.console(job.getLaunch()), 60_000, () -> imagesOf(ckpt, 1) == 4);
        // then Checkpoint Now (the command, as from the toolbar): a later generation
        ManaWorkbenchFlowTest.execute("dev.mana.eclipse.ui.checkpoint");
        Job.getJobManager().join(CheckpointJob.FAMILY, null);
        assertNotNull(job.getLastCheckpoint(), "the checkpoint committed: " + ManaWorkbenchFlowTest.console(job.getLaunch()));
        assertTrue(job.getLastCheckpoint().generation() >= 2, "after the periodic one: " + job.getLastCheckpoint());

        // 3. Terminate: scancel, as the time limit would; the launch ends when Slurm says the job has
        terminate(job);
        Ui.waitFor("the cancelled job's launch to end", 60_000, () -> job.getLaunch().isTerminated());
        assertEquals(1, job.getLaunch().getProcesses()[0].getExitValue(), "a cancelled job did not COMPLETE");
        System.out.printf("SlurmClusterUiTest: checkpointed and cancelled at %.1f s%n", (System.nanoTime() - t0) / 1e9);

        // 4. Restart from Checkpoint... on a new allocation: node3, node4, placed 1+3 (tasks per node "1,3")
        boolean[] first = { true };
        IManaJob restarted = runningOn(mpi, view, () -> {
            IManaJob r = restartOnNode3And4(job, first[0], "1,3");
            first[0] = false;
            return r;
        }, List.of("node3", "node4", "node4", "node4"));
        System.out.printf("SlurmClusterUiTest: restarted, 4 ranks RUNNING on node3,node4 placed 1+3 at %.1f s%n",
            (System.nanoTime() - t0) / 1e9);

        // 5. stop after 30 more iterations; the job COMPLETES with the native result
        String out = stopAndCompareWithNative(cluster, mpi, ring, work, restarted);
        assertTrue(out.contains("mana_restart --restartdir " + ckpt.getPath()), "restarted by its batch script: " + out);
    }

    /**
     * The interactive submission (srun through the command prefix): the launch starts the step's coordinator on the
     * cluster's login node (the workbench's own host is not reachable from the nodes, as on most clusters) and the
     * ranks on node1,node2 find it through its status file; the view shows them RUNNING there; Checkpoint Now;
     * Terminate ends the step, and the coordinator's status file goes with it; Restart from Checkpoint... on a new
     * allocation, node3,node4, as an interactive step again; the native result. MPICH.
     */
    @Test
    void srunStepWithItsCoordinatorOnTheCluster() throws Exception {
        onCluster(MpiImplementation.MPICH, "srun step", SlurmClusterUiTest::runStep);
    }

    private static void runStep(NamespaceCluster cluster, MpiImplementation mpi, File ring, long t0) throws Exception {
        File work = cluster.shared("ide-srun");
        File ckpt = new File(work, "ck");
        ILaunchConfigurationWorkingCopy wc = configuration(cluster, mpi, ring, work, SlurmSubmit.SRUN);
        ILaunchConfiguration config = wc.doSave();

        // 1. launch: the coordinator on the login node, then the srun step on node1,node2
        IManaJob job = launch(config);
        ManaJobView view = jobView();
        assertTrue(awaitRanksOn(view, job, List.of("node1", "node1", "node2", "node2")),
            () -> "the step ended before its ranks ran: " + ManaWorkbenchFlowTest.console(job.getLaunch()));
        String out0 = ManaWorkbenchFlowTest.console(job.getLaunch());
        Matcher sf = Pattern.compile("coordinator started on the cluster, status file (\\S+),").matcher(out0);
        assertTrue(sf.find(), out0);
        File statusFile = new File(sf.group(1));
        assertTrue(statusFile.isFile(), "the coordinator's status file on the shared file system: " + statusFile);
        assertTrue(Files.readString(statusFile.toPath()).contains("Host: head"),
            "the coordinator runs on the login node: " + Files.readString(statusFile.toPath()));
        System.out.printf("SlurmClusterUiTest: srun step, 4 ranks RUNNING at %.1f s%n", (System.nanoTime() - t0) / 1e9);

        // 2. Checkpoint Now
        ManaWorkbenchFlowTest.execute("dev.mana.eclipse.ui.checkpoint");
        Job.getJobManager().join(CheckpointJob.FAMILY, null);
        assertNotNull(job.getLastCheckpoint(), "the checkpoint committed: " + ManaWorkbenchFlowTest.console(job.getLaunch()));
        assertEquals(4, imagesOf(ckpt, job.getLastCheckpoint().generation()));

        // 3. Terminate: the step ends, and its coordinator's status file with it
        terminate(job);
        Ui.waitFor("the step's launch to end", 60_000, () -> job.isTerminated());
        Ui.waitFor("the step's coordinator status file to go: " + statusFile, 30_000, () -> !statusFile.exists());
        System.out.printf("SlurmClusterUiTest: srun step checkpointed and terminated at %.1f s%n", (System.nanoTime() - t0) / 1e9);

        // 4. Restart from Checkpoint... on a new allocation, node3,node4: an interactive step again
        IManaJob restarted = restartOnNode3And4(job, false, "2");
        assertTrue(awaitRanksOn(view, restarted, List.of("node3", "node3", "node4", "node4")),
            () -> "the restarted step ended before its ranks ran: " + ManaWorkbenchFlowTest.console(restarted.getLaunch()));

        // 5. stop after 30 more iterations; the native result
        String out = stopAndCompareWithNative(cluster, mpi, ring, work, restarted);
        assertTrue(out.contains("coordinator started on the cluster"), out);
    }

    /** Starts a job (a launch or a restart). */
    private interface Start {
        IManaJob start() throws Exception;
    }

    /**
     * Starts a job and waits until the view shows its ranks RUNNING on {@code nodes}; once more when the job ended
     * first, lost to Open MPI's startup crash under {@code srun --mpi=pmix} (docs/cluster.md, "Open MPI's startup
     * crash": a native run dies of it too; core-native/tests/cluster/ompi_startup.sh retries it the same way).
     */
    private static IManaJob runningOn(MpiImplementation mpi, ManaJobView view, Start start, List<String> nodes)
            throws Exception {
        IManaJob job = start.start();
        if (awaitRanksOn(view, job, nodes)) {
            return job;
        }
        String out = ManaWorkbenchFlowTest.console(job.getLaunch());
        assertTrue(openMpiStartupCrash(mpi, out), "the job ended before its ranks ran on " + nodes + ": " + out);
        System.out.println("SlurmClusterUiTest: the job lost a rank to Open MPI's startup crash under srun: once more");
        job = start.start();
        IManaJob again = job;
        assertTrue(awaitRanksOn(view, job, nodes),
            () -> "the job submitted again ended before its ranks ran: " + ManaWorkbenchFlowTest.console(again.getLaunch()));
        return job;
    }

    /** Open MPI's own SIGSEGV report at address (nil) and Slurm's line for the task it killed (ompi_startup.sh). */
    private static boolean openMpiStartupCrash(MpiImplementation mpi, String out) {
        return mpi == MpiImplementation.OPEN_MPI && out.contains("Signal: Segmentation fault (11)")
            && out.contains("Failing at address: (nil)") && Pattern.compile("tasks? [0-9,-]+: Segmentation fault").matcher(out).find();
    }

    /**
     * Committed images of generation {@code gen} in the checkpoint directory ({@code ckpt_rank_N/*_genG.mana}),
     * or of a later one (a rank keeps only its newest).
     */
    private static int imagesOf(File ckpt, int gen) {
        int n = 0;
        File[] ranks = ckpt.listFiles((d, name) -> name.startsWith("ckpt_rank_"));
        for (File r : ranks == null ? new File[0] : ranks) {
            File[] images = r.listFiles((d, name) -> name.matches(".*_gen(\\d+)\\.mana")
                && Integer.parseInt(name.replaceAll(".*_gen(\\d+)\\.mana", "$1")) >= gen);
            n += images != null && images.length > 0 ? 1 : 0;
        }
        return n;
    }

    /**
     * Waits until the view shows {@code job}'s ranks RUNNING on these nodes (by rank): true; false when the job's launch
     * ended first.
     */
    private static boolean awaitRanksOn(ManaJobView view, IManaJob job, List<String> nodes) throws InterruptedException {
        Ui.waitFor(() -> "ranks RUNNING on " + nodes + " in the view: " + Ui.sync(() -> view.getSummaryText() + " "
            + view.getRows()) + "\n" + ManaWorkbenchFlowTest.console(job.getLaunch()), 60_000, () -> {
                if (job.getLaunch().isTerminated()) {
                    return true;
                }
                if (view.getShownJob() != job) {
                    return false;
                }
                List<RankRow> rows = view.getRows();
                if (rows.size() != nodes.size()) {
                    return false;
                }
                for (int r = 0; r < rows.size(); r++) {
                    if (rows.get(r).state() != RankState.RUNNING || !nodes.get(r).equals(view.getTableItemText(r, 1))) {
                        return false;
                    }
                }
                return true;
            });
        return !job.getLaunch().isTerminated();
    }
}
