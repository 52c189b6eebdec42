package dev.mana.eclipse.core;

import java.util.List;

/**
 * The environment variables MANA reads, with their meaning, as the manual describes them. The launch
 * configuration's Environment tab offers them.
 *
 * @param name the variable
 * @param defaultValue a value that switches it on, offered when it is added
 * @param description what it does
 */
public record ManaEnvironmentVariable(String name, String defaultValue, String description) {

    public static final List<ManaEnvironmentVariable> ALL = List.of(
        new ManaEnvironmentVariable("MANA_DEBUG", "1",
            "Print additional diagnostic messages to stderr (useful for bug reports)."),
        new ManaEnvironmentVariable("MANA_TIMING", "1",
            "Print elapsed times of launch, exit, checkpoint and restart events to stderr."),
        new ManaEnvironmentVariable("MANA_QUIET", "1",
            "Suppress most runtime output."),
        new ManaEnvironmentVariable("MANA_RESTART_PAUSE", "1",
            "Pause restart at a level 1-7 so gdb can attach (DMTCP_RESTART_PAUSE is an alias)."),
        new ManaEnvironmentVariable("DMTCP_RESTART_PAUSE", "1",
            "Alias of MANA_RESTART_PAUSE, for MANA users."),
        new ManaEnvironmentVariable("MANA_LAUNCH_PAUSE", "1",
            "Pause during launch so gdb can attach (DMTCP_LAUNCH_PAUSE is an alias)."),
        new ManaEnvironmentVariable("MANA_SEGV_DEBUG_LOOP", "1",
            "On SIGSEGV in the runtime, spin instead of dumping core, so gdb can attach to the live process."),
        new ManaEnvironmentVariable("MANA_P2P_LOG", "1",
            "Log the order of point-to-point calls for deterministic replay (set at launch)."),
        new ManaEnvironmentVariable("MANA_P2P_REPLAY", "1",
            "Replay a logged point-to-point order (set at launch and at restart)."),
        new ManaEnvironmentVariable("MANA_USE_ALLREDUCE_REPRODUCIBLE", "1",
            "Reduce MPI_Allreduce in a fixed order so results are bit-identical across launch and restart."),
        new ManaEnvironmentVariable("MANA_JOB", "",
            "Job name at the coordinator (set by the IDE to the launch configuration's name)."),
        new ManaEnvironmentVariable("MANA_COORD_HOST", "",
            "Coordinator host (set by the IDE; overrides the status file)."),
        new ManaEnvironmentVariable("MANA_COORD_PORT", "",
            "Coordinator port (set by the IDE; overrides the status file)."),
        new ManaEnvironmentVariable("MANA_RC", "",
            "Coordinator status file to read instead of ~/.mana.rc."),
        new ManaEnvironmentVariable("DMTCP_CHECKPOINT_DIR", "",
            "Checkpoint directory (same as --ckptdir)."),
        new ManaEnvironmentVariable("DMTCP_TMPDIR", "",
            "Directory for temporary files."));

    /** The variable of that name, or null. */
    public static ManaEnvironmentVariable find(String name) {
        for (ManaEnvironmentVariable v : ALL) {
            if (v.name.equals(name)) {
                return v;
            }
        }
        return null;
    }
}
