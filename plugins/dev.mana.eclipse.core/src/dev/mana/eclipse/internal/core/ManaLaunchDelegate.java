package dev.mana.eclipse.internal.core;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.text.DateFormat;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.model.IProcess;
import org.eclipse.debug.core.model.LaunchConfigurationDelegate;

import dev.mana.eclipse.core.CheckpointDirectoryValidator;
import dev.mana.eclipse.core.CheckpointValidation;
import dev.mana.eclipse.core.IManaCoordinator;
import dev.mana.eclipse.core.ManaCommand;
import dev.mana.eclipse.core.ManaCommandBuilder;
import dev.mana.eclipse.core.ManaCore;
import dev.mana.eclipse.core.ManaJobSettings;
import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.eclipse.core.MpiLauncher;
import dev.mana.eclipse.core.RuntimeCheck;

/**
 * Launches a "MANA MPI Job": checks the runtime and the MPI, hosts (or joins) the coordinator, and runs
 * {@code mpirun -n N mana_launch ...} (or {@code mana_restart}) as one process whose console shows every
 * rank.
 */
public final class ManaLaunchDelegate extends LaunchConfigurationDelegate {

    /** Status code: the checkpoint directory already holds a checkpoint (a status handler may resolve it). */
    public static final int STALE_CHECKPOINT = 101;
    /**
     * Status code: the binary preflight of the program. The handler (dev.mana.eclipse.mpidiag) checks the
     * MPI functions the program imports and answers FALSE when the user cancels the launch.
     */
    public static final int PREFLIGHT = 102;

    @Override
    public void launch(ILaunchConfiguration cfg, String mode, ILaunch launch, IProgressMonitor monitor)
            throws CoreException {
        SubMonitor sm = SubMonitor.convert(monitor, "Launching " + cfg.getName(), 4);
        ManaJobSettings s = ManaJobSettings.from(cfg);
        Map<String, String> baseEnv = new HashMap<>(DebugPlugin.getDefault().getLaunchManager().getNativeEnvironmentCasePreserved());
        Map<String, String> env = new HashMap<>(s.appendEnvironment() ? baseEnv : Map.of());
        env.putAll(s.environment());
        sm.subTask("Checking the MANA runtime");
        File rt = ManaRuntime.locate();
        RuntimeCheck check = s.slurm() == null
            ? ManaRuntime.check(rt, s.mpi(), s.launcher(), ManaRuntime.pathOf(env))
            : slurmCheck(ManaRuntime.check(rt, s.mpi(), MpiLauncher.SRUN, ManaRuntime.pathOf(env)), s);
        if (!check.isOk()) {
            throw new CoreException(new Status(IStatus.ERROR, ManaCore.PLUGIN_ID,
                "Cannot launch " + cfg.getName() + ":\n" + String.join("\n", check.errors())));
        }
        if (!s.restart() && !s.program().isFile()) {
            throw new CoreException(Status.error("The program " + s.program() + " does not exist."));
        }
        if (s.restart()) {
            CheckpointValidation v = CheckpointDirectoryValidator.validate(s.restartDirectory(), s.ranks());
            if (!v.isValid()) {
                throw new CoreException(Status.error("Cannot restart " + cfg.getName() + " from "
                    + s.restartDirectory() + ":\n" + String.join("\n", v.problems())));
            }
        } else if (CheckpointDirectoryValidator.hasCheckpoint(s.checkpointDirectory())) {
            IStatus stale = new Status(IStatus.ERROR, ManaCore.PLUGIN_ID, STALE_CHECKPOINT,
                "The checkpoint directory " + s.checkpointDirectory() + " already holds a checkpoint (ckpt_rank_*), "
                    + "and MANA refuses to overwrite it. Restart from it (Run > Restart from Checkpoint...), "
                    + "or delete the ckpt_rank_* folders, or choose another checkpoint directory.", null);
            Object answer = null;
            var handler = DebugPlugin.getDefault().getStatusHandler(stale);
            if (handler != null) {
                answer = handler.handleStatus(stale, s.checkpointDirectory());
            }
            if (!Boolean.TRUE.equals(answer)) {
                throw new CoreException(stale);
            }
        }
        if (!s.restart()) {
            IStatus preflight = new Status(IStatus.INFO, ManaCore.PLUGIN_ID, PREFLIGHT,
                "MPI preflight of " + s.program(), null);
            var handler = DebugPlugin.getDefault().getStatusHandler(preflight);
            if (handler != null && Boolean.FALSE.equals(handler.handleStatus(preflight, s.program()))) {
                monitor.setCanceled(true); // the launch framework removes a cancelled launch
                return;
            }
        }
        mkdirPrivate(s.checkpointDirectory());
        sm.worked(1);
        if (s.slurmBatch()) {
            launchBatch(cfg, s.withMpi(check.mpi()), check, rt, baseEnv, launch, sm);
            return;
        }
        // An interactive step on a cluster reached through the command prefix: its coordinator runs on the
        // cluster's login node (the compute nodes seldom reach this host), found through its status file there.
        String clusterStatus = s.slurm() != null && !s.slurm().commandPrefix().isEmpty() && !s.joinCoordinator()
            ? new File(s.workingDirectory(), ".mana-srun-" + ManaCommandBuilder.slurmJobName(s.jobName()) + "-"
                + Long.toHexString(System.nanoTime()) + ".rc").getPath()
            : null;
        sm.subTask(s.joinCoordinator() ? "Joining the coordinator"
            : clusterStatus != null ? "Starting the coordinator on the cluster" : "Starting the coordinator");
        IManaCoordinator coordinator;
        try {
            coordinator = clusterStatus != null ? startOnCluster(s, rt, baseEnv, clusterStatus)
                : Coordinators.open(s, ManaCorePlugin.stateDir());
        } catch (IOException e) {
            throw new CoreException(Status.error("Cannot " + (s.joinCoordinator() ? "join" : "start")
                + " the MANA coordinator" + (clusterStatus != null ? " on the cluster" : "") + ": " + e.getMessage(), e));
        }
        sm.worked(1);
        try {
            ManaJobSettings resolved = s.withMpi(check.mpi());
            ManaCommand cmd = new ManaCommandBuilder(resolved, rt, coordinator.endpoint())
                // on a Slurm cluster the cluster's srun (through the command prefix where there is one)
                .launcherExecutable(s.slurm() != null ? null : check.launcherExecutable())
                .baseEnvironment(baseEnv)
                .runAsRoot(ManaRuntime.runningAsRoot())
                .clusterStatusFile(clusterStatus)
                .build();
            sm.subTask("Starting " + cmd.commandLine().get(0));
            Process p = DebugPlugin.exec(cmd.commandLine().toArray(String[]::new), cmd.workingDirectory(),
                cmd.environmentArray());
            if (p == null) {
                throw new CoreException(Status.error("Could not start " + cmd.commandLine().get(0)));
            }
            Map<String, String> attrs = new HashMap<>();
            attrs.put(IProcess.ATTR_PROCESS_TYPE, ManaCore.PROCESS_TYPE);
            attrs.put(IProcess.ATTR_CMDLINE, cmd.toShellString());
            String label = (s.restart() ? "mana_restart " : "mana_launch ") + s.program().getName() + " ("
                + s.ranks() + (s.ranks() == 1 ? " rank, " : " ranks, ") + DateFormat.getDateTimeInstance(DateFormat.MEDIUM,
                DateFormat.MEDIUM).format(new Date()) + ")";
            ManaProcess proc = new ManaProcess(launch, p, label, attrs);
            ManaJob job = new ManaJob(launch, resolved, coordinator, proc,
                ManaRuntime.preferences().getLong(ManaCore.PREF_POLL_MILLIS, 500));
            job.log(clusterStatus != null
                ? "coordinator started on the cluster, status file " + clusterStatus + ", job '" + coordinator.job() + "'"
                : "coordinator " + (coordinator.isHosted() ? "hosted by Eclipse at " : "joined at ")
                    + coordinator.endpoint() + ", job '" + coordinator.job() + "'");
            for (String w : check.warnings()) {
                job.log("warning: " + w);
            }
            job.log("$ " + cmd.toShellString());
            job.start();
            JobRegistry.add(job);
            sm.worked(2);
        } catch (CoreException | RuntimeException e) {
            coordinator.close();
            throw e;
        }
    }

    /**
     * Starts an interactive step's coordinator where the command prefix runs commands ({@link
     * ManaCommandBuilder#coordinatorOnCluster}); it detaches once it is listening.
     */
    private static SlurmJobCoordinator startOnCluster(ManaJobSettings s, File rt, Map<String, String> baseEnv,
            String statusPath) throws IOException {
        ManaCommand start = new ManaCommandBuilder(s, rt, null)
            .baseEnvironment(baseEnv)
            .runAsRoot(ManaRuntime.runningAsRoot())
            .clusterStatusFile(statusPath)
            .coordinatorOnCluster();
        SlurmCommands commands = new SlurmCommands(s.slurm().commandPrefix(), start.environment(), start.workingDirectory());
        commands.runAsIs(start.commandLine());
        return SlurmJobCoordinator.onCluster(commands, statusPath, s.jobName(),
            new File(ManaCorePlugin.stateDir(), "srun-" + Long.toHexString(System.nanoTime()) + ".rc"));
    }

    /**
     * The runtime check of a Slurm job: srun must be here unless the Slurm commands run through a prefix
     * (then they run on the cluster, whose PATH is not this one).
     */
    private static RuntimeCheck slurmCheck(RuntimeCheck c, ManaJobSettings s) {
        if (s.slurm().commandPrefix().isEmpty()) {
            return c;
        }
        List<String> errors = c.errors().stream().filter(e -> !e.startsWith("srun is not on the PATH")).toList();
        return new RuntimeCheck(c.runtimeRoot(), c.mpi(), null, errors, c.warnings());
    }

    /**
     * A Slurm batch job: the batch script written into the working directory (it stays there, for a look or
     * a submission by hand), sbatch through the command prefix, then a process that follows the job's state
     * and output, and the coordinator the job's script starts (found through its status file once it runs).
     */
    private static void launchBatch(ILaunchConfiguration cfg, ManaJobSettings s, RuntimeCheck check, File rt,
            Map<String, String> baseEnv, ILaunch launch, SubMonitor sm) throws CoreException {
        ManaCommandBuilder b = new ManaCommandBuilder(s, rt, null)
            .baseEnvironment(baseEnv)
            .runAsRoot(ManaRuntime.runningAsRoot());
        File script = new File(s.workingDirectory(),
            "mana-" + ManaCommandBuilder.slurmJobName(s.jobName()) + (s.restart() ? "-restart" : "-launch") + ".sbatch");
        String text = b.batchScript();
        try {
            Files.writeString(script.toPath(), text);
            script.setExecutable(true, true);
        } catch (IOException e) {
            throw new CoreException(Status.error("Cannot write the batch script " + script + ": " + e.getMessage(), e));
        }
        ManaCommand sbatch = b.sbatch(script);
        SlurmCommands commands = new SlurmCommands(s.slurm().commandPrefix(), sbatch.environment(),
            sbatch.workingDirectory());
        sm.subTask("Submitting " + script.getName());
        String jobId;
        try {
            String out = commands.runAsIs(sbatch.commandLine()).strip();
            jobId = out.contains(";") ? out.substring(0, out.indexOf(';')) : out;
            if (!jobId.matches("\\d+")) {
                throw new IOException("sbatch answered '" + out + "', not a job id");
            }
        } catch (IOException e) {
            throw new CoreException(Status.error("Cannot submit " + cfg.getName() + " to Slurm: " + e.getMessage(), e));
        }
        SlurmJobCoordinator coordinator = new SlurmJobCoordinator(commands, !s.slurm().commandPrefix().isEmpty(), jobId,
            s.jobName(), new File(ManaCorePlugin.stateDir(), "slurm-" + jobId + "-" + Long.toHexString(System.nanoTime())
                + ".rc"));
        try {
            SlurmBatchProcess p = new SlurmBatchProcess(commands, jobId, b.batchOutput(jobId));
            Map<String, String> attrs = new HashMap<>();
            attrs.put(IProcess.ATTR_PROCESS_TYPE, ManaCore.PROCESS_TYPE);
            attrs.put(IProcess.ATTR_CMDLINE, sbatch.toShellString());
            attrs.put(ATTR_SLURM_JOB_ID, jobId);
            String label = (s.restart() ? "mana_restart " : "mana_launch ") + s.program().getName() + " (Slurm job "
                + jobId + ", " + (s.slurm().placement().isEmpty() ? s.slurm().nodes() + " x " + s.slurm().tasksPerNode()
                    + " ranks, " : s.slurm().ranks() + " ranks placed " + s.slurm().tasksPerNodeText() + ", ")
                + DateFormat.getDateTimeInstance(DateFormat.MEDIUM, DateFormat.MEDIUM).format(new Date()) + ")";
            ManaProcess proc = new ManaProcess(launch, p, label, attrs);
            ManaJob job = new ManaJob(launch, s, coordinator, proc,
                ManaRuntime.preferences().getLong(ManaCore.PREF_POLL_MILLIS, 500));
            for (String w : check.warnings()) {
                job.log("warning: " + w);
            }
            job.log("batch script " + script + ":");
            text.lines().forEach(l -> job.log("| " + l));
            job.log("$ " + sbatch.toShellString());
            job.log("Slurm job " + jobId + " submitted; output " + b.batchOutput(jobId));
            job.start();
            JobRegistry.add(job);
            sm.worked(3);
        } catch (IOException | RuntimeException e) {
            coordinator.close();
            try {
                commands.cancel(jobId);
            } catch (IOException e2) {
                e.addSuppressed(e2);
            }
            throw new CoreException(Status.error("Cannot follow Slurm job " + jobId + ": " + e.getMessage(), e));
        }
    }

    /** {@link IProcess} attribute: the Slurm job id of a batch job's process. */
    public static final String ATTR_SLURM_JOB_ID = ManaCore.PLUGIN_ID + ".slurmJobId";

    private static void mkdirPrivate(File dir) throws CoreException {
        try {
            if (!dir.isDirectory()) {
                Files.createDirectories(dir.toPath(),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
        } catch (IOException e) {
            throw new CoreException(Status.error("Cannot create the checkpoint directory " + dir + ": " + e.getMessage(), e));
        }
    }

    @Override
    public boolean buildForLaunch(ILaunchConfiguration configuration, String mode, IProgressMonitor monitor) {
        return false; // the program is built outside MANA (make, mpicc); nothing to build in the workspace
    }
}
