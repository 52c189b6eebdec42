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

    /** Cores of this host; Open MPI needs --oversubscribe for more ranks than cores. */
    public ManaCommandBuilder cores(int n) {
        this.cores = n;
        return this;
    }

    public ManaCommand build() {
        List<String> cmd = new ArrayList<>();
        MpiImplementation mpi = settings.mpi();
        if (settings.launcher() == MpiLauncher.SRUN) {
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
        cmd.add("-h");
        cmd.add(coordinator.host());
        cmd.add("-p");
        cmd.add(Integer.toString(coordinator.port()));
        if (!settings.restart()) {
            cmd.add(settings.program().getPath());
            cmd.addAll(settings.arguments());
        }
        return new ManaCommand(cmd, environment(), settings.workingDirectory());
    }

    private Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        if (settings.appendEnvironment()) {
            env.putAll(baseEnvironment);
        }
        env.putAll(settings.environment());
        env.put("MANA_COORD_HOST", coordinator.host());
        env.put("MANA_COORD_PORT", Integer.toString(coordinator.port()));
        if (coordinator.statusFile() != null) {
            env.put("MANA_RC", coordinator.statusFile().getPath());
        }
        env.put("MANA_JOB", settings.jobName());
        env.put("MANA_RANKS", Integer.toString(settings.ranks()));
        env.put("DMTCP_CHECKPOINT_DIR", settings.checkpointDirectory().getPath());
        if (settings.timing()) {
            env.put("MANA_TIMING", "1");
        }
        if (settings.mpi() == MpiImplementation.OPEN_MPI && settings.launcher() == MpiLauncher.MPIRUN && root) {
            env.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
            env.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        }
        return env;
    }
}
