package dev.mana.eclipse.core;

import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the launcher command of a MANA job, as the manual spells it:
 * {@code mpirun -n N mana_launch --ckptdir DIR -h HOST -p PORT PROGRAM ARGS}, or with
 * {@code mana_restart --restartdir DIR} for a restart, or {@code srun} instead of {@code mpirun}.
 * The checkpoint image options ({@code --incremental}, {@code --forked}, {@code --compress=LEVEL}) go to
 * mana_launch only.
 * Per-rank output is labelled by the launcher ({@code --tag-output}, {@code -prepend-rank},
 * {@code --label}); the console turns each label into a uniform {@code [rank N]} prefix.
 */
public final class ManaCommandBuilder {

    private final ManaJobSettings settings;
    private final File runtimeRoot;
    private final CoordinatorEndpoint coordinator;
    private String launcherExecutable;
    private Map<String, String> baseEnvironment = Map.of();
    private boolean root;
    private int cores = Runtime.getRuntime().availableProcessors();
    private String clusterStatusFile;

    /**
     * @param settings what to run; its MPI implementation must be resolved (not AUTO) for the
     *        implementation-specific flags, AUTO gets none
     * @param runtimeRoot the MANA runtime (holds bin/mana_launch and bin/mana_restart)
     * @param coordinator the coordinator the ranks join
     */
    public ManaCommandBuilder(ManaJobSettings settings, File runtimeRoot, CoordinatorEndpoint coordinator) {
        this.settings = settings;
        this.runtimeRoot = runtimeRoot;
        this.coordinator = coordinator;
    }

    /** mpirun or srun to run; default: the first of the implementation's names. */
    public ManaCommandBuilder launcherExecutable(String path) {
        this.launcherExecutable = path;
        return this;
    }

    /** The environment the IDE runs in (used when the configuration appends to it). */
    public ManaCommandBuilder baseEnvironment(Map<String, String> env) {
        this.baseEnvironment = env;
        return this;
    }

    /** Whether the job runs as root (Open MPI then needs its two consent variables). */
    public ManaCommandBuilder runAsRoot(boolean r) {
        this.root = r;
        return this;
    }

    /**
     * The ranks of an interactive step find their coordinator through this status file on the cluster
     * ({@code MANA_RC}: the coordinator {@link #coordinatorOnCluster} starts there), not at the endpoint given to
     * the constructor (which may be null then).
     */
    public ManaCommandBuilder clusterStatusFile(String path) {
        this.clusterStatusFile = path;
        return this;
    }

    /** Cores of this host; Open MPI needs --oversubscribe for more ranks than cores. */
    public ManaCommandBuilder cores(int n) {
        this.cores = n;
        return this;
    }

    /**
     * The launcher's command line: mpirun or srun, then mana_launch or mana_restart. On a Slurm cluster with
     * {@link SlurmSubmit#SRUN}: an srun step of the configured shape, through the command prefix. (A batch job is
     * {@link #sbatch} and {@link #batchScript}.)
     */
    public ManaCommand build() {
        List<String> cmd = new ArrayList<>();
        MpiImplementation mpi = settings.mpi();
        SlurmOptions slurm = settings.slurm();
        if (slurm != null) {
            cmd.addAll(slurm.commandPrefix());
            cmd.add(launcherExecutable != null ? launcherExecutable : "srun");
            cmd.addAll(slurmShape(slurm));
            cmd.addAll(srunMpi(slurm.arguments()));
            cmd.add("--label");
            cmd.addAll(slurm.arguments());
        } else if (settings.launcher() == MpiLauncher.SRUN) {
            cmd.add(launcherExecutable != null ? launcherExecutable : "srun");
            cmd.add("-n");
            cmd.add(Integer.toString(settings.ranks()));
            cmd.add("--label");
        } else {
            cmd.add(launcherExecutable != null ? launcherExecutable : mpi.mpirunNames().get(0));
            cmd.add("-n");
            cmd.add(Integer.toString(settings.ranks()));
            if (mpi == MpiImplementation.OPEN_MPI) {
                cmd.add("--tag-output");
                if (settings.ranks() > cores) {
                    cmd.add("--oversubscribe");
                }
            } else if (mpi == MpiImplementation.MPICH) {
                cmd.add("-prepend-rank");
            }
        }
        cmd.addAll(settings.launcherArguments());
        cmd.addAll(runtimeCommand(clusterStatusFile == null));
        return new ManaCommand(cmd, environment(true), settings.workingDirectory());
    }

    /**
     * The coordinator of an interactive step on a Slurm cluster reached through the command prefix, started
     * where the prefix runs commands (the login node) before the step: {@code mana_coordinator -p 0 [-i N]
     * --status-file PATH}. It detaches, writes that file (host, port, secret; mode 0600), and exits once the
     * step's last rank has gone. The IDE's own host is seldom reachable from the compute nodes; the login node
     * is, as it is for a batch job's coordinator on the job's first node.
     */
    public ManaCommand coordinatorOnCluster() {
        SlurmOptions slurm = settings.slurm();
        if (slurm == null || clusterStatusFile == null) {
            throw new IllegalStateException("not an interactive Slurm step with a status file: " + settings.jobName());
        }
        List<String> cmd = new ArrayList<>(slurm.commandPrefix());
        cmd.add(new File(new File(runtimeRoot, "bin"), "mana_coordinator").getPath());
        cmd.add("-p");
        cmd.add("0");
        if (settings.checkpointInterval() > 0) {
            cmd.add("-i");
            cmd.add(Integer.toString(settings.checkpointInterval()));
        }
        cmd.add("--status-file");
        cmd.add(clusterStatusFile);
        return new ManaCommand(cmd, environment(false), settings.workingDirectory());
    }

    /**
     * mana_launch or mana_restart with their arguments; {@code withCoordinator}: {@code -h HOST -p PORT} of the
     * coordinator (a batch job's ranks find theirs through the status file the job's coordinator writes).
     */
    private List<String> runtimeCommand(boolean withCoordinator) {
        List<String> cmd = new ArrayList<>();
        File bin = new File(runtimeRoot, "bin");
        if (settings.restart()) {
            cmd.add(new File(bin, "mana_restart").getPath());
            if (settings.timing()) {
                cmd.add("--timing");
            }
            cmd.add("--restartdir");
            cmd.add(settings.restartDirectory().getPath());
            cmd.add("--ckptdir");
            cmd.add(settings.checkpointDirectory().getPath());
        } else {
            cmd.add(new File(bin, "mana_launch").getPath());
            if (settings.timing()) {
                cmd.add("--timing");
            }
            // launch only: a restarted job keeps the image options it was launched with (mana_restart has none)
            cmd.addAll(settings.images().launchFlags());
            cmd.add("--ckptdir");
            cmd.add(settings.checkpointDirectory().getPath());
        }
        if (withCoordinator) {
            cmd.add("-h");
            cmd.add(coordinator.host());
            cmd.add("-p");
            cmd.add(Integer.toString(coordinator.port()));
        }
        if (!settings.restart()) {
            cmd.add(settings.program().getPath());
            cmd.addAll(settings.arguments());
        }
        return cmd;
    }

    /** {@code -N}, {@code --ntasks-per-node}, and the partition, time limit and node list where given. */
    private static List<String> slurmShape(SlurmOptions slurm) {
        List<String> l = new ArrayList<>(List.of("-N", Integer.toString(slurm.nodes()),
            "--ntasks-per-node=" + slurm.tasksPerNode()));
        if (!slurm.partition().isEmpty()) {
            l.add("-p");
            l.add(slurm.partition());
        }
        if (!slurm.timeLimit().isEmpty()) {
            l.add("-t");
            l.add(slurm.timeLimit());
        }
        if (!slurm.nodeList().isEmpty()) {
            l.add("-w");
            l.add(slurm.nodeList());
        }
        return l;
    }

    /**
     * srun's PMI for the MPI: {@code --mpi=pmix} for Open MPI, {@code --mpi=pmi2} for MPICH (docs/cluster.md),
     * none when the user's arguments choose one (or the MPI is not known).
     */
    private List<String> srunMpi(List<String> userArgs) {
        if (userArgs.stream().anyMatch(a -> a.startsWith("--mpi"))
                || settings.launcherArguments().stream().anyMatch(a -> a.startsWith("--mpi"))) {
            return List.of();
        }
        return switch (settings.mpi()) {
            case OPEN_MPI -> List.of("--mpi=pmix");
            case MPICH -> List.of("--mpi=pmi2");
            default -> List.of();
        };
    }

    /** The Slurm job name of a batch job: the configuration's name, with what sbatch would split replaced. */
    public static String slurmJobName(String name) {
        String n = name.replaceAll("[^A-Za-z0-9_.-]", "_");
        return n.isEmpty() ? "mana" : n;
    }

    /**
     * The output file pattern of a batch job ({@code %j} is the job id): {@code mana-NAME-%j.out} in the working
     * directory; every rank's labelled lines and the batch script's own go there.
     */
    public File batchOutputPattern() {
        return new File(settings.workingDirectory(), "mana-" + slurmJobName(settings.jobName()) + "-%j.out");
    }

    /** The output file of batch job {@code jobId}. */
    public File batchOutput(String jobId) {
        return new File(batchOutputPattern().getPath().replace("%j", jobId));
    }

    /**
     * The batch script of a Slurm batch job (the settings' {@link SlurmOptions}): its {@code #SBATCH} lines say
     * the allocation; it starts the coordinator on the job's first node (status file
     * {@code ~/.mana-slurm-$SLURM_JOB_ID.rc}), waits for that file, then runs the ranks with {@code srun} and
     * mana_launch or mana_restart (which find the coordinator through that file).
     */
    public String batchScript() {
        SlurmOptions slurm = settings.slurm();
        if (slurm == null) {
            throw new IllegalStateException("not a Slurm job: " + settings.jobName());
        }
        File bin = new File(runtimeRoot, "bin");
        StringBuilder b = new StringBuilder();
        b.append("#!/bin/bash\n");
        b.append("# MANA job '").append(settings.jobName().replace('\n', ' ')).append("': ")
            .append(settings.restart() ? "restart from " + settings.restartDirectory() : "launch of " + settings.program())
            .append("\n# written by the Eclipse plug-in dev.mana.eclipse.core; submitted with sbatch --parsable")
            .append(slurm.arguments().isEmpty() ? "" : " " + ManaCommand.shellLine(slurm.arguments()))
            .append(" THIS-FILE\n");
        b.append("#SBATCH --job-name=").append(slurmJobName(settings.jobName())).append('\n');
        b.append("#SBATCH --nodes=").append(slurm.nodes()).append('\n');
        b.append("#SBATCH --ntasks-per-node=").append(slurm.tasksPerNode());
        b.append(slurm.placement().isEmpty() ? "\n" : "    # the most of placement " + slurm.tasksPerNodeText() + ": every node can take its share\n");
        if (!slurm.partition().isEmpty()) {
            b.append("#SBATCH --partition=").append(slurm.partition()).append('\n');
        }
        if (!slurm.timeLimit().isEmpty()) {
            b.append("#SBATCH --time=").append(slurm.timeLimit()).append('\n');
        }
        if (!slurm.nodeList().isEmpty()) {
            b.append("#SBATCH --nodelist=").append(slurm.nodeList()).append('\n');
        }
        b.append("#SBATCH --output=").append(batchOutputPattern().getPath()).append('\n');
        b.append("#SBATCH --chdir=").append(settings.workingDirectory().getPath()).append('\n');
        b.append("set -u\n");
        b.append("# the coordinator, on the job's first node (here): it detaches, writes\n");
        b.append("# ~/.mana-slurm-$SLURM_JOB_ID.rc and exits once the job's last rank has gone\n");
        List<String> coord = new ArrayList<>(List.of(new File(bin, "mana_coordinator").getPath(), "-p", "0"));
        if (settings.checkpointInterval() > 0) {
            coord.add("-i");
            coord.add(Integer.toString(settings.checkpointInterval()));
        }
        b.append(ManaCommand.shellLine(coord)).append(" || exit 1\n");
        b.append("rc=$HOME/.mana-slurm-$SLURM_JOB_ID.rc\n");
        b.append("n=600\n");
        b.append("until grep -q '^Secret:' \"$rc\" 2>/dev/null; do\n");
        b.append("    n=$((n - 1)); [ $n -gt 0 ] || { echo \"mana: no coordinator status file $rc after 30 s\" >&2; exit 1; }\n");
        b.append("    sleep 0.05\n");
        b.append("done\n");
        b.append("echo \"mana: coordinator of job $SLURM_JOB_ID on $(hostname) ($rc)\"\n");
        List<String> srun = new ArrayList<>(List.of("srun"));
        if (!slurm.placement().isEmpty()) {
            placement(b, slurm);
            srun.addAll(List.of("-n", Integer.toString(slurm.ranks()), "-m", "arbitrary"));
        }
        srun.addAll(srunMpi(List.of()));
        srun.add("--label");
        srun.addAll(settings.launcherArguments());
        srun.addAll(runtimeCommand(false));
        b.append("exec ").append(ManaCommand.shellLine(srun)).append('\n');
        return b.toString();
    }

    /**
     * A placement with different tasks per node (1+3): the batch script lists one host per rank, the allocation's
     * nodes in their order each as often as the placement says, in a node-local file that {@code srun -m arbitrary}
     * reads through {@code SLURM_HOSTFILE}; the allocation's own tasks per node (the placement's most) is unset, or
     * srun would hold it against the step's rank count.
     */
    private static void placement(StringBuilder b, SlurmOptions slurm) {
        b.append("# placement ").append(slurm.tasksPerNodeText())
            .append(": the allocation's nodes in order take these ranks (srun -m arbitrary)\n");
        b.append("place=(").append(String.join(" ", slurm.placement().stream().map(String::valueOf).toList())).append(")\n");
        b.append("hosts=${TMPDIR:-/tmp}/mana-slurm-$SLURM_JOB_ID.hosts\n");
        b.append("i=0\n");
        b.append("for h in $(scontrol show hostnames \"$SLURM_JOB_NODELIST\"); do\n");
        b.append("    for ((k = 0; k < ${place[i]}; k++)); do echo \"$h\"; done\n");
        b.append("    i=$((i + 1))\n");
        b.append("done > \"$hosts\" || { echo \"mana: cannot write $hosts\" >&2; exit 1; }\n");
        b.append("[ \"$i\" = ").append(slurm.placement().size())
            .append(" ] || { echo \"mana: the allocation has $i node(s), the placement ").append(slurm.placement().size())
            .append("\" >&2; exit 1; }\n");
        b.append("export SLURM_HOSTFILE=$hosts\n");
        b.append("unset SLURM_NTASKS_PER_NODE\n");
    }

    /**
     * The submission of a batch job: {@code sbatch --parsable [the Slurm group's arguments] SCRIPT}, through the
     * command prefix, with the job's environment (sbatch exports it to the job); it prints the job id.
     */
    public ManaCommand sbatch(File script) {
        SlurmOptions slurm = settings.slurm();
        List<String> cmd = new ArrayList<>(slurm.commandPrefix());
        cmd.add(launcherExecutable != null ? launcherExecutable : "sbatch");
        cmd.add("--parsable");
        cmd.addAll(slurm.arguments());
        cmd.add(script.getPath());
        return new ManaCommand(cmd, environment(false), settings.workingDirectory());
    }

    /**
     * The launcher's environment; {@code withCoordinator}: the IDE's coordinator's host, port and status file
     * (a batch job has its own coordinator, which its ranks find by the job id).
     */
    private Map<String, String> environment(boolean withCoordinator) {
        Map<String, String> env = new LinkedHashMap<>();
        if (settings.appendEnvironment()) {
            env.putAll(baseEnvironment);
        }
        env.putAll(settings.environment());
        if (withCoordinator && clusterStatusFile != null) {
            env.remove("MANA_COORD_HOST");
            env.remove("MANA_COORD_PORT");
            env.remove("MANA_COORD_SECRET");
            env.put("MANA_RC", clusterStatusFile);
        } else if (withCoordinator) {
            env.put("MANA_COORD_HOST", coordinator.host());
            env.put("MANA_COORD_PORT", Integer.toString(coordinator.port()));
            if (coordinator.statusFile() != null) {
                env.put("MANA_RC", coordinator.statusFile().getPath());
            }
        } else {
            // names of the IDE's own coordinator or another job's, if the IDE's environment has them
            env.remove("MANA_COORD_HOST");
            env.remove("MANA_COORD_PORT");
            env.remove("MANA_COORD_SECRET");
            env.remove("MANA_RC");
        }
        env.put("MANA_JOB", settings.jobName());
        env.put("MANA_RANKS", Integer.toString(settings.ranks()));
        env.put("DMTCP_CHECKPOINT_DIR", settings.checkpointDirectory().getPath());
        if (settings.timing()) {
            env.put("MANA_TIMING", "1");
        }
        if (settings.mpi() == MpiImplementation.OPEN_MPI && root
                && (settings.launcher() == MpiLauncher.MPIRUN || settings.slurm() != null)) {
            env.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
            env.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        }
        return env;
    }
}
