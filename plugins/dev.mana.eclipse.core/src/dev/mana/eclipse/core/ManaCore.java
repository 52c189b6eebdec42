package dev.mana.eclipse.core;

/**
 * Identifiers and launch configuration attributes of the MANA launch model.
 * <p>
 * A "MANA MPI Job" launch configuration runs {@code mpirun -n N mana_launch PROGRAM ARGS} (or
 * {@code srun}, or {@code mana_restart} when restarting) against a coordinator that the IDE hosts
 * or joins. The attribute names below are API: other plug-ins may create such configurations.
 * </p>
 */
public final class ManaCore {
    public static final String PLUGIN_ID = "dev.mana.eclipse.core";

    /** The launch configuration type "MANA MPI Job". */
    public static final String LAUNCH_CONFIGURATION_TYPE = "dev.mana.eclipse.core.launchConfigurationType";
    /** {@link org.eclipse.debug.core.model.IProcess#ATTR_PROCESS_TYPE} of the process of a MANA job. */
    public static final String PROCESS_TYPE = "dev.mana.job";

    private static final String P = PLUGIN_ID + ".";
    /** String: the program (absolute path, or relative to the working directory; variables allowed). */
    public static final String ATTR_PROGRAM = P + "program";
    /** String: the program's arguments (variables allowed; split like a shell would, without expansion). */
    public static final String ATTR_ARGUMENTS = P + "arguments";
    /** String: working directory (variables allowed); empty means the program's directory. */
    public static final String ATTR_WORKING_DIRECTORY = P + "workingDirectory";
    /** int: number of MPI ranks. */
    public static final String ATTR_RANKS = P + "ranks";
    /** String: an {@link MpiImplementation} name. */
    public static final String ATTR_MPI_IMPLEMENTATION = P + "mpiImplementation";
    /** String: an {@link MpiLauncher} name. */
    public static final String ATTR_LAUNCHER = P + "launcher";
    /** String: extra arguments for mpirun/srun. */
    public static final String ATTR_LAUNCHER_ARGUMENTS = P + "launcherArguments";
    /** String: checkpoint directory (variables allowed); empty means the working directory. */
    public static final String ATTR_CHECKPOINT_DIRECTORY = P + "checkpointDirectory";
    /** int: seconds between automatic checkpoints; 0 = none. */
    public static final String ATTR_CHECKPOINT_INTERVAL = P + "checkpointInterval";
    /** boolean: join a coordinator that is already running instead of hosting one in the IDE. */
    public static final String ATTR_JOIN_COORDINATOR = P + "joinCoordinator";
    /** String: host of the coordinator to join. */
    public static final String ATTR_COORDINATOR_HOST = P + "coordinatorHost";
    /** int: port of the coordinator to join. */
    public static final String ATTR_COORDINATOR_PORT = P + "coordinatorPort";
    /** String: status file (.mana.rc) of the coordinator to join; read for host, port and secret. */
    public static final String ATTR_COORDINATOR_STATUS_FILE = P + "coordinatorStatusFile";
    /** boolean: restart from a checkpoint ({@code mana_restart}) instead of launching the program. */
    public static final String ATTR_RESTART = P + "restart";
    /** String: the checkpoint directory to restart from; empty means the checkpoint directory. */
    public static final String ATTR_RESTART_DIRECTORY = P + "restartDirectory";
    /** boolean: pass --timing to mana_launch/mana_restart. */
    public static final String ATTR_TIMING = P + "timing";
    /** boolean: incremental checkpoint images ({@code mana_launch --incremental}); default false. */
    public static final String ATTR_INCREMENTAL = P + "incremental";
    /** boolean: forked checkpoints ({@code mana_launch --forked}); default false; no effect with incremental. */
    public static final String ATTR_FORKED = P + "forked";
    /** String: image compression, an {@link ImageCompression} value: "off" (default), "fast" or "strong". */
    public static final String ATTR_COMPRESS = P + "compress";

    /** boolean: run the job on a Slurm cluster ({@link SlurmOptions}); default false (mpirun/srun as {@link #ATTR_LAUNCHER} says). */
    public static final String ATTR_SLURM = P + "slurm";
    /** String: a {@link SlurmSubmit} name: an interactive {@code srun} step or an {@code sbatch} batch job (default). */
    public static final String ATTR_SLURM_SUBMIT = P + "slurmSubmit";
    /** String: the Slurm partition ({@code -p}); empty = the cluster's default. */
    public static final String ATTR_SLURM_PARTITION = P + "slurmPartition";
    /** int: nodes ({@code -N}); the job has nodes &times; tasks per node ranks. */
    public static final String ATTR_SLURM_NODES = P + "slurmNodes";
    /** int: tasks (ranks) per node ({@code --ntasks-per-node}). */
    public static final String ATTR_SLURM_TASKS_PER_NODE = P + "slurmTasksPerNode";
    /**
     * String: the tasks on each node in order when they differ, e.g. {@code "1,3"} (a batch job's ranks placed
     * through {@code srun -m arbitrary}); empty (default) = {@link #ATTR_SLURM_TASKS_PER_NODE} on every node.
     */
    public static final String ATTR_SLURM_PLACEMENT = P + "slurmPlacement";
    /** String: time limit ({@code -t}: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS); empty = the partition's. */
    public static final String ATTR_SLURM_TIME_LIMIT = P + "slurmTimeLimit";
    /** String: nodes to run on ({@code -w}, e.g. {@code node[1-2]} or {@code node3,node4}); empty = any. */
    public static final String ATTR_SLURM_NODE_LIST = P + "slurmNodeList";
    /** String: extra arguments of {@code sbatch} (batch) or {@code srun} (interactive). */
    public static final String ATTR_SLURM_ARGUMENTS = P + "slurmArguments";
    /**
     * String: a command that runs the Slurm commands (and reaches the job's coordinator) where the cluster is,
     * e.g. a wrapper that logs in to the login node; it gets the command as separate arguments. Empty = here.
     */
    public static final String ATTR_SLURM_COMMAND_PREFIX = P + "slurmCommandPrefix";

    /** int: restart pause level of the debugged ranks in Debug mode (2-4; default 2). Read by dev.mana.eclipse.debug. */
    public static final String ATTR_DEBUG_PAUSE_LEVEL = "dev.mana.eclipse.debug.pauseLevel";
    /** String: the ranks to debug in Debug mode, e.g. "0" (default) or "0,3" ({@link DebugRanks}). */
    public static final String ATTR_DEBUG_RANKS = "dev.mana.eclipse.debug.ranks";

    public static final int DEFAULT_RANKS = 2;
    public static final int DEFAULT_COORDINATOR_PORT = 7779;

    /** Preference: an installed MANA runtime (folder holding bin/ and lib/); empty = the bundled one. */
    public static final String PREF_RUNTIME_LOCATION = "runtimeLocation";
    /** Preference: seconds between job view refreshes (milliseconds). */
    public static final String PREF_POLL_MILLIS = "pollMillis";
    /** Preference: the gdb that debugs ranks (a path or a name on the PATH); empty = {@code gdb} on the PATH. */
    public static final String PREF_GDB_PATH = "gdbPath";

    private ManaCore() {}
}
