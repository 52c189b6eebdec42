package dev.mana.eclipse.internal.core;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.text.DateFormat;
import java.util.Date;
import java.util.HashMap;
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
        RuntimeCheck check = ManaRuntime.check(rt, s.mpi(), s.launcher(), ManaRuntime.pathOf(env));
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
        sm.subTask(s.joinCoordinator() ? "Joining the coordinator" : "Starting the coordinator");
        IManaCoordinator coordinator;
        try {
            coordinator = Coordinators.open(s, ManaCorePlugin.stateDir());
        } catch (IOException e) {
            throw new CoreException(Status.error("Cannot " + (s.joinCoordinator() ? "join" : "start")
                + " the MANA coordinator: " + e.getMessage(), e));
        }
        sm.worked(1);
        try {
            ManaJobSettings resolved = s.withMpi(check.mpi());
            ManaCommand cmd = new ManaCommandBuilder(resolved, rt, coordinator.endpoint())
                .launcherExecutable(check.launcherExecutable())
                .baseEnvironment(baseEnv)
                .runAsRoot(ManaRuntime.runningAsRoot())
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
            job.log("coordinator " + (coordinator.isHosted() ? "hosted by Eclipse at " : "joined at ")
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
