package dev.mana.eclipse.core;

import java.util.List;

/**
 * The environment variables the runtime reads (docs/commands.md), with their meaning; the launch
 * configuration's Environment tab offers them. Only variables something reads: a test checks each name
 * against the runtime's sources.
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
        new ManaEnvironmentVariable("MANA_RESTART_PAUSE", "2",
            "Pause restart at a level 1-4 so gdb can attach (DMTCP_RESTART_PAUSE is an alias)."),
        new ManaEnvironmentVariable("DMTCP_RESTART_PAUSE", "2",
            "Alias of MANA_RESTART_PAUSE, for MANA users."),
        new ManaEnvironmentVariable("MANA_LAUNCH_PAUSE", "1",
            "Pause each rank at launch, before the program is loaded, so gdb can attach (DMTCP_LAUNCH_PAUSE is an alias)."),
        new ManaEnvironmentVariable("DMTCP_LAUNCH_PAUSE", "1",
            "Alias of MANA_LAUNCH_PAUSE, for MANA users."),
        new ManaEnvironmentVariable("MANA_SAVE_FILES_MAX", "64M",
            "Bytes of the files the program writes in place (a database) each image may carry (K, M, G; 0: none)."),
        new ManaEnvironmentVariable("MANA_RESTART_FORCE_FILES", "1",
            "At restart: put back files that changed after the checkpoint even when they are too large to be saved."),
        new ManaEnvironmentVariable("MANA_DIRECT_IO", "1",
            "Write image payloads with O_DIRECT (faster for large images on some disks)."),
        new ManaEnvironmentVariable("MANA_PREFLIGHT", "1",
            "Before launching, refuse a program that imports MPI functions the runtime cannot checkpoint."),
        new ManaEnvironmentVariable("MANA_JOB", "",
            "Job name at the coordinator (set by the IDE to the launch configuration's name)."),
        new ManaEnvironmentVariable("MANA_COORD_HOST", "",
            "Coordinator host (set by the IDE; overrides the status file)."),
        new ManaEnvironmentVariable("MANA_COORD_PORT", "",
            "Coordinator port (set by the IDE; overrides the status file)."),
        new ManaEnvironmentVariable("MANA_RC", "",
            "Coordinator status file to read instead of ~/.mana.rc."),
        new ManaEnvironmentVariable("DMTCP_CHECKPOINT_DIR", "",
            "Checkpoint directory (same as --ckptdir)."));

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
