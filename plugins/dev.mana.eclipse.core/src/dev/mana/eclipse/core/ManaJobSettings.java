package dev.mana.eclipse.core;

import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.variables.IStringVariableManager;
import org.eclipse.core.variables.VariablesPlugin;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchManager;

/**
 * Everything a MANA job launch needs, read from a launch configuration with variables substituted.
 * Plain data, so the command line can be built and tested without a workbench.
 */
public record ManaJobSettings(
        File program,
        List<String> arguments,
        File workingDirectory,
        int ranks,
        MpiImplementation mpi,
        MpiLauncher launcher,
        List<String> launcherArguments,
        File checkpointDirectory,
        int checkpointInterval,
        boolean restart,
        File restartDirectory,
        boolean timing,
        CheckpointImages images,
        Map<String, String> environment,
        boolean appendEnvironment,
        boolean joinCoordinator,
        String coordinatorHost,
        int coordinatorPort,
        File coordinatorStatusFile,
        String jobName,
        SlurmOptions slurm) {

    /** Settings of a job that does not target a Slurm cluster ({@link #slurm()} null). */
    public ManaJobSettings(File program, List<String> arguments, File workingDirectory, int ranks, MpiImplementation mpi,
            MpiLauncher launcher, List<String> launcherArguments, File checkpointDirectory, int checkpointInterval,
            boolean restart, File restartDirectory, boolean timing, CheckpointImages images,
            Map<String, String> environment, boolean appendEnvironment, boolean joinCoordinator, String coordinatorHost,
            int coordinatorPort, File coordinatorStatusFile, String jobName) {
        this(program, arguments, workingDirectory, ranks, mpi, launcher, launcherArguments, checkpointDirectory,
            checkpointInterval, restart, restartDirectory, timing, images, environment, appendEnvironment, joinCoordinator,
            coordinatorHost, coordinatorPort, coordinatorStatusFile, jobName, null);
    }

    public ManaJobSettings {
        arguments = List.copyOf(arguments);
        launcherArguments = List.copyOf(launcherArguments);
        environment = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(environment));
        // null: the image options are off, as for a configuration without their attributes
        images = images == null ? CheckpointImages.DEFAULT : images;
    }

    /** Reads a launch configuration; variables such as ${workspace_loc} are substituted. */
    public static ManaJobSettings from(ILaunchConfiguration cfg) throws CoreException {
        String programText = subst(cfg.getAttribute(ManaCore.ATTR_PROGRAM, "")).trim();
        if (programText.isEmpty()) {
            throw error("No program given: choose the MPI program on the Main tab.");
        }
        String wdText = subst(cfg.getAttribute(ManaCore.ATTR_WORKING_DIRECTORY, "")).trim();
        File program = new File(programText);
        File wd;
        if (!wdText.isEmpty()) {
            wd = new File(wdText);
        } else if (program.isAbsolute() && program.getParentFile() != null) {
            wd = program.getParentFile();
        } else {
            wd = new File(System.getProperty("user.dir"));
        }
        if (!program.isAbsolute()) {
            program = new File(wd, programText);
        }
        String ck = subst(cfg.getAttribute(ManaCore.ATTR_CHECKPOINT_DIRECTORY, "")).trim();
        File ckptDir = ck.isEmpty() ? wd : absolute(wd, ck);
        String rd = subst(cfg.getAttribute(ManaCore.ATTR_RESTART_DIRECTORY, "")).trim();
        File restartDir = rd.isEmpty() ? ckptDir : absolute(wd, rd);
        Map<String, String> env = new LinkedHashMap<>();
        Map<String, String> cfgEnv = cfg.getAttribute(ILaunchManager.ATTR_ENVIRONMENT_VARIABLES, (Map<String, String>) null);
        if (cfgEnv != null) {
            for (Map.Entry<String, String> e : cfgEnv.entrySet()) {
                env.put(e.getKey(), subst(e.getValue()));
            }
        }
        String statusFile = subst(cfg.getAttribute(ManaCore.ATTR_COORDINATOR_STATUS_FILE, "")).trim();
        SlurmOptions slurm = SlurmOptions.from(cfg);
        if (slurm != null && !slurm.problems().isEmpty()) {
            throw error("The Slurm options of " + cfg.getName() + " are wrong:\n" + String.join("\n", slurm.problems()));
        }
        return new ManaJobSettings(
            program,
            split(subst(cfg.getAttribute(ManaCore.ATTR_ARGUMENTS, ""))),
            wd,
            // on a Slurm cluster the allocation's shape says how many ranks
            slurm != null ? slurm.ranks() : Math.max(1, cfg.getAttribute(ManaCore.ATTR_RANKS, ManaCore.DEFAULT_RANKS)),
            MpiImplementation.fromName(cfg.getAttribute(ManaCore.ATTR_MPI_IMPLEMENTATION, MpiImplementation.AUTO.name())),
            MpiLauncher.fromName(cfg.getAttribute(ManaCore.ATTR_LAUNCHER, MpiLauncher.MPIRUN.name())),
            split(subst(cfg.getAttribute(ManaCore.ATTR_LAUNCHER_ARGUMENTS, ""))),
            ckptDir,
            Math.max(0, cfg.getAttribute(ManaCore.ATTR_CHECKPOINT_INTERVAL, 0)),
            cfg.getAttribute(ManaCore.ATTR_RESTART, false),
            restartDir,
            cfg.getAttribute(ManaCore.ATTR_TIMING, false),
            CheckpointImages.from(cfg),
            env,
            cfg.getAttribute(ILaunchManager.ATTR_APPEND_ENVIRONMENT_VARIABLES, true),
            cfg.getAttribute(ManaCore.ATTR_JOIN_COORDINATOR, false),
            cfg.getAttribute(ManaCore.ATTR_COORDINATOR_HOST, "localhost"),
            cfg.getAttribute(ManaCore.ATTR_COORDINATOR_PORT, ManaCore.DEFAULT_COORDINATOR_PORT),
            statusFile.isEmpty() ? null : new File(statusFile),
            cfg.getName(),
            slurm);
    }

    /** The same settings, restarting from {@code dir}. */
    public ManaJobSettings withRestart(File dir) {
        return new ManaJobSettings(program, arguments, workingDirectory, ranks, mpi, launcher, launcherArguments,
            checkpointDirectory, checkpointInterval, true, dir, timing, images, environment, appendEnvironment,
            joinCoordinator, coordinatorHost, coordinatorPort, coordinatorStatusFile, jobName, slurm);
    }

    /**
     * The same settings on another Slurm allocation (a restart elsewhere): the ranks follow its shape.
     */
    public ManaJobSettings withSlurm(SlurmOptions s) {
        return new ManaJobSettings(program, arguments, workingDirectory, s != null ? s.ranks() : ranks, mpi, launcher,
            launcherArguments, checkpointDirectory, checkpointInterval, restart, restartDirectory, timing, images,
            environment, appendEnvironment, joinCoordinator, coordinatorHost, coordinatorPort, coordinatorStatusFile,
            jobName, s);
    }

    /** Whether the job is a Slurm batch job (sbatch): its coordinator runs in the job, not in the IDE. */
    public boolean slurmBatch() {
        return slurm != null && slurm.submit() == SlurmSubmit.SBATCH;
    }

    /** The same settings with another MPI implementation (after {@link MpiImplementation#AUTO} is resolved). */
    public ManaJobSettings withMpi(MpiImplementation m) {
        return new ManaJobSettings(program, arguments, workingDirectory, ranks, m, launcher, launcherArguments,
            checkpointDirectory, checkpointInterval, restart, restartDirectory, timing, images, environment, appendEnvironment,
            joinCoordinator, coordinatorHost, coordinatorPort, coordinatorStatusFile, jobName, slurm);
    }

    private static File absolute(File base, String path) {
        File f = new File(path);
        return f.isAbsolute() ? f : new File(base, path);
    }

    private static String subst(String s) throws CoreException {
        if (s == null || s.isEmpty()) {
            return "";
        }
        IStringVariableManager m = VariablesPlugin.getDefault().getStringVariableManager();
        return m.performStringSubstitution(s);
    }

    /** Splits an argument string as the platform does (quotes group, no shell expansion). */
    public static List<String> split(String s) {
        if (s == null || s.isBlank()) {
            return List.of();
        }
        return new ArrayList<>(List.of(DebugPlugin.parseArguments(s)));
    }

    private static CoreException error(String msg) {
        return new CoreException(Status.error(msg));
    }

    static IStatus ok() {
        return Status.OK_STATUS;
    }
}
