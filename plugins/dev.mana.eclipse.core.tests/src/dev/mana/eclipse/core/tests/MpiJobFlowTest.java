package dev.mana.eclipse.core.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.model.IProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.RankState;
import dev.mana.eclipse.core.CheckpointDirectoryValidator;
import dev.mana.eclipse.core.CheckpointValidation;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaFormat;
import dev.mana.eclipse.core.ManaJobs;
import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.eclipse.core.MpiImplementation;

/**
 * The launch delegate end to end, headless: the runtime's MPI example heat_mpi on 2 ranks under the real
 * mpirun (Open MPI) and the repository's runtime (bin/, lib/ from make build), with the coordinator hosted
 * in-process: a checkpoint, checkpoint-and-stop, a refused relaunch, then a restart that finishes with
 * the result of an uninterrupted run; interval checkpoints; terminate and remove; a failed checkpoint.
 */
class MpiJobFlowTest {

    @TempDir
    static Path tmp;
    static String previousRuntime;

    /** The last line of an uninterrupted run of {@link #ARGS} without the runtime. */
    static String expect;
    static final String STEPS = "120";
    static final String ARGS = STEPS + " 40";

    @BeforeAll
    static void useTheRuntime() throws Exception {
        previousRuntime = System.getProperty(ManaRuntime.RUNTIME_PROPERTY);
        if (!openMpi()) {
            Cannot.skipOrFail("openmpi", "Open MPI is not installed (no mpirun.openmpi on PATH)");
        }
        if (!new File(root(), "bin/mana_launch").canExecute() || !example().canExecute()) {
            Cannot.skipOrFail("runtime", "the runtime and its examples are not built (make build): no " + example());
        }
        System.setProperty(ManaRuntime.RUNTIME_PROPERTY, root().getPath());
        ProcessBuilder pb = new ProcessBuilder("mpirun.openmpi", "--oversubscribe", "-n", "2", example().getPath(), STEPS, "0")
            .redirectErrorStream(true);
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        Process p = pb.start();
        String[] lines = new String(p.getInputStream().readAllBytes()).split("\n");
        assertEquals(0, p.waitFor());
        expect = lines[lines.length - 1].trim();
        assertTrue(expect.startsWith("heat done:"), expect);
    }

    static File root() {
        String p = System.getProperty("mana.root");
        assertNotNull(p, "the build passes -Dmana.root");
        return new File(p);
    }

    static File example() {
        return new File(root(), "core-native/build/examples/heat_mpi");
    }

    @AfterAll
    static void restore() {
        if (previousRuntime == null) {
            System.clearProperty(ManaRuntime.RUNTIME_PROPERTY);
        } else {
            System.setProperty(ManaRuntime.RUNTIME_PROPERTY, previousRuntime);
        }
    }

    static void waitFor(String what, long millis, BooleanSupplier cond) throws InterruptedException {
        long end = System.currentTimeMillis() + millis;
        while (!cond.getAsBoolean()) {
            if (System.currentTimeMillis() > end) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(100);
        }
    }

    static String console(ILaunch launch) {
        StringBuilder b = new StringBuilder();
        for (IProcess p : launch.getProcesses()) {
            b.append(p.getStreamsProxy().getOutputStreamMonitor().getContents());
            b.append(p.getStreamsProxy().getErrorStreamMonitor().getContents());
        }
        return b.toString();
    }

    static ILaunchConfigurationWorkingCopy config(String name, File ckpt, java.util.Map<String, String> env)
            throws CoreException {
        ILaunchConfigurationWorkingCopy wc = DebugPlugin.getDefault().getLaunchManager()
            .getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE).newInstance(null, name);
        wc.setAttribute(ManaCore.ATTR_PROGRAM, example().getPath());
        wc.setAttribute(ManaCore.ATTR_ARGUMENTS, "2000 40");
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, tmp.toString());
        wc.setAttribute(ManaCore.ATTR_RANKS, 2);
        wc.setAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, MpiImplementation.OPEN_MPI.name());
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, ckpt.getPath());
        wc.setAttribute(ILaunchManager.ATTR_ENVIRONMENT_VARIABLES, env);
        return wc;
    }

    static boolean openMpi() {
        return ManaRuntime.which("mpirun.openmpi", System.getenv("PATH")) != null;
    }

    /** The configuration's interval makes the hosted coordinator checkpoint by itself. */
    @Test
    void intervalCheckpoints() throws Exception {
        File ckpt = tmp.resolve("ck-interval").toFile();
        ILaunchConfigurationWorkingCopy wc = config("interval", ckpt, java.util.Map.of());
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_INTERVAL, 2);
        ILaunch launch = wc.launch(ILaunchManager.RUN_MODE, new NullProgressMonitor());
        IManaJob job = ManaJobs.forLaunch(launch);
        try {
            waitFor("an automatic checkpoint", 60_000, () -> job.getStatus() != null && job.getStatus().generation() >= 1);
            assertEquals(2, job.getStatus().intervalSeconds());
            waitFor("its images", 10_000, () -> CheckpointDirectoryValidator.validate(ckpt, 2).isValid());
        } finally {
            launch.terminate();
        }
    }

    /**
     * The Checkpoints tab's image options reach the runtime: a job launched with forked checkpoints and fast
     * compression writes each rank's image from a forked writer while the program runs (the ranks' --timing
     * line says so) and the image is compressed ({@code lower-half --check} counts its zstd regions).
     */
    @Test
    void forkedCompressedImages() throws Exception {
        File ckpt = tmp.resolve("ck-images").toFile();
        ILaunchConfigurationWorkingCopy wc = config("images", ckpt, java.util.Map.of());
        wc.setAttribute(ManaCore.ATTR_FORKED, true);
        wc.setAttribute(ManaCore.ATTR_COMPRESS, "fast");
        wc.setAttribute(ManaCore.ATTR_TIMING, true);
        ILaunch launch = wc.launch(ILaunchManager.RUN_MODE, new NullProgressMonitor());
        IManaJob job = ManaJobs.forLaunch(launch);
        try {
            waitFor("2 ranks RUNNING", 60_000, () -> job.getRanks().size() == 2
                && job.getRanks().stream().allMatch(r -> r.state() == RankState.RUNNING));
            assertTrue(console(launch).contains("mana_launch --timing --forked --compress=fast --ckptdir"), console(launch));
            CheckpointResult r = job.checkpoint(false, null);
            assertTrue(r.ok(), r.message());
            for (int rank = 0; rank < 2; rank++) {
                String line = "[rank " + rank + "] mana: timing: checkpoint: forked writer, program running";
                waitFor("rank " + rank + "'s forked write in the console", 10_000, () -> console(launch).contains(line));
                File image = new File(ckpt, "ckpt_rank_" + rank + "/ckpt_heat_mpi_gen1.mana");
                Process check = new ProcessBuilder(new File(root(), "bin/lower-half").getPath(), "--check",
                    image.getPath()).redirectErrorStream(true).start();
                String out = new String(check.getInputStream().readAllBytes());
                assertEquals(0, check.waitFor(), out);
                assertTrue(out.contains("regions compressed to"), out);
            }
        } finally {
            launch.terminate();
        }
    }

    /** Terminate kills every rank (through the coordinator, then mpirun); Remove forgets the job. */
    @Test
    void terminateAndRemove() throws Exception {
        ILaunch launch = config("terminate", tmp.resolve("ck-terminate").toFile(), java.util.Map.of())
            .launch(ILaunchManager.RUN_MODE, new NullProgressMonitor());
        IManaJob job = ManaJobs.forLaunch(launch);
        waitFor("2 ranks", 60_000, () -> job.getRanks().size() == 2);
        List<Integer> pids = job.getRanks().stream().map(RankInfo::pid).toList();
        assertTrue(launch.canTerminate());
        launch.terminate();
        waitFor("the launch to end", 20_000, launch::isTerminated);
        waitFor("every rank process to end", 20_000,
            () -> pids.stream().noneMatch(p -> ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false)));
        waitFor("the job to end", 10_000, job::isTerminated);
        assertTrue(ManaJobs.getJobs().contains(job));
        DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
        assertFalse(ManaJobs.getJobs().contains(job), "Remove forgets the job");
    }

    /**
     * A rank that cannot write its image fails the checkpoint with its reason; the previous one stays the
     * latest and the job goes on. Rank 1's next image file is made impossible to create (a directory holds
     * its name: open(2) fails with EISDIR, also for root).
     */
    @Test
    void failedCheckpointKeepsThePreviousOne() throws Exception {
        File ckpt = tmp.resolve("ck-fail").toFile();
        ILaunch launch = config("fail", ckpt, java.util.Map.of()).launch(ILaunchManager.RUN_MODE, new NullProgressMonitor());
        IManaJob job = ManaJobs.forLaunch(launch);
        try {
            waitFor("2 ranks RUNNING", 60_000, () -> job.getRanks().size() == 2
                && job.getRanks().stream().allMatch(r -> r.state() == RankState.RUNNING));
            CheckpointResult first = job.checkpoint(false, null);
            assertTrue(first.ok(), first.message());
            File blocker = new File(ckpt, "ckpt_rank_1/ckpt_heat_mpi_gen2.mana.tmp");
            assertTrue(blocker.mkdir());
            CheckpointResult second = job.checkpoint(false, null);
            assertFalse(second.ok());
            assertTrue(ManaFormat.summary(second).startsWith("Checkpoint failed: "), ManaFormat.summary(second));
            assertTrue(second.message().toLowerCase(java.util.Locale.ROOT).contains("directory"), second.message());
            assertTrue(blocker.delete());
            // rank 0 deletes its partial image when it gets the abort (after the result)
            waitFor("the aborted images to be removed", 10_000,
                () -> CheckpointDirectoryValidator.validate(ckpt, 2).isValid());
            CheckpointValidation v = CheckpointDirectoryValidator.validate(ckpt, 2);
            assertEquals(1, v.generation(), "the previous checkpoint stays the latest");
            assertEquals(1, job.getLastCheckpoint().generation());
            assertFalse(launch.isTerminated(), "the job goes on");
        } finally {
            launch.terminate();
        }
    }

    @Test
    void launchCheckpointStopRestart() throws Exception {
        ILaunchManager lm = DebugPlugin.getDefault().getLaunchManager();
        File ckpt = tmp.resolve("ckpt").toFile();
        ILaunchConfigurationWorkingCopy wc = lm.getLaunchConfigurationType(ManaCore.LAUNCH_CONFIGURATION_TYPE)
            .newInstance(null, "heat-flow");
        wc.setAttribute(ManaCore.ATTR_PROGRAM, example().getPath());
        wc.setAttribute(ManaCore.ATTR_ARGUMENTS, ARGS);
        wc.setAttribute(ManaCore.ATTR_WORKING_DIRECTORY, tmp.toString());
        wc.setAttribute(ManaCore.ATTR_RANKS, 2);
        wc.setAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, MpiImplementation.OPEN_MPI.name());
        wc.setAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, ckpt.getPath());

        ILaunch launch = wc.launch(ILaunchManager.RUN_MODE, new NullProgressMonitor());
        IManaJob job = ManaJobs.forLaunch(launch);
        assertNotNull(job);
        assertTrue(job.getCoordinator().isHosted());
        assertEquals(ManaCore.PROCESS_TYPE, launch.getProcesses()[0].getAttribute(IProcess.ATTR_PROCESS_TYPE));
        waitFor("2 ranks RUNNING", 60_000, () -> job.getRanks().size() == 2
            && job.getRanks().stream().allMatch(r -> r.state() == RankState.RUNNING));
        RankInfo r1 = job.getRanks().get(1);
        assertEquals(1, r1.rank());
        assertTrue(r1.pid() > 0);
        waitFor("some progress", 30_000, () -> console(launch).contains("[rank 0] heat step   5/" + STEPS));

        List<CheckpointProgress> progress = new CopyOnWriteArrayList<>();
        CheckpointResult first = job.checkpoint(false, progress::add);
        assertTrue(first.ok(), first.message());
        assertEquals(1, first.generation());
        assertEquals(2, first.ranks());
        assertTrue(first.totalBytes() >= 2 * 1024 * 1024, ManaFormat.summary(first));
        assertTrue(progress.stream().anyMatch(p -> p.state() == RankState.COMMITTED && p.reached() == 2), progress.toString());
        CheckpointValidation v = CheckpointDirectoryValidator.validate(ckpt, 2);
        assertTrue(v.isValid(), v.problems().toString());
        assertEquals(1, v.generation());
        waitFor("the status shows the checkpoint", 10_000,
            () -> job.getStatus() != null && job.getStatus().generation() == 1);

        CheckpointResult second = job.checkpoint(true, null);
        assertTrue(second.ok(), second.message());
        assertEquals(2, second.generation());
        waitFor("the job to stop", 30_000, launch::isTerminated);
        String out1 = console(launch);
        assertTrue(out1.contains("[mana] Checkpoint 2 written: 2 ranks"), out1);
        assertFalse(out1.contains("heat done:"), "stopped before the end: " + out1);
        assertEquals(2, CheckpointDirectoryValidator.validate(ckpt, 2).generation());

        // a second plain launch is refused: the directory holds a checkpoint
        CoreException refused = null;
        try {
            wc.launch(ILaunchManager.RUN_MODE, new NullProgressMonitor());
        } catch (CoreException e) {
            refused = e;
        }
        assertNotNull(refused);
        assertTrue(refused.getMessage().contains("already holds a checkpoint"), refused.getMessage());

        ILaunchConfigurationWorkingCopy restart = wc.copy("heat-flow-restart");
        restart.setAttribute(ManaCore.ATTR_RESTART, true);
        ILaunch again = restart.launch(ILaunchManager.RUN_MODE, new NullProgressMonitor());
        IManaJob job2 = ManaJobs.forLaunch(again);
        assertTrue(job2.isRestart());
        waitFor("the restarted job to finish", 90_000, again::isTerminated);
        String out2 = console(again);
        assertTrue(out2.contains("[rank 0] " + expect), out2);
        assertEquals(0, again.getProcesses()[0].getExitValue(), out2);
        waitFor("the job to be seen terminated", 10_000, job2::isTerminated);
    }
}
