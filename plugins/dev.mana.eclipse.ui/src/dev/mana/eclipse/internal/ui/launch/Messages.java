package dev.mana.eclipse.internal.ui.launch;

import org.eclipse.osgi.util.NLS;

/**
 * The UI strings of the launch configuration tabs, the Run As shortcut and the stale-checkpoint question
 * ({@code messages.properties} beside this class), so a language fragment can translate them. Arguments go
 * through {@link NLS#bind}.
 */
public final class Messages extends NLS {
    private static final String BUNDLE_NAME = "dev.mana.eclipse.internal.ui.launch.messages";

    public static String ManaMainTab_name;
    public static String ManaMainTab_program;
    public static String ManaMainTab_programHint;
    public static String ManaMainTab_programBrowse;
    public static String ManaMainTab_arguments;
    public static String ManaMainTab_variables;
    public static String ManaMainTab_workingDirectory;
    public static String ManaMainTab_workingDirectoryHint;
    public static String ManaMainTab_workingDirectoryBrowse;
    public static String ManaMainTab_chooseProgram;
    public static String ManaMainTab_programMissing;
    public static String ManaMainTab_programNotExecutable;
    public static String ManaMainTab_workingDirectoryMissing;
    public static String ManaMpiTab_name;
    public static String ManaMpiTab_mpiGroup;
    public static String ManaMpiTab_ranks;
    public static String ManaMpiTab_implementation;
    public static String ManaMpiTab_automatic;
    public static String ManaMpiTab_launcher;
    public static String ManaMpiTab_mpirun;
    public static String ManaMpiTab_srun;
    public static String ManaMpiTab_launcherArguments;
    public static String ManaMpiTab_launcherArgumentsHint;
    public static String ManaMpiTab_coordinatorGroup;
    public static String ManaMpiTab_hostCoordinator;
    public static String ManaMpiTab_joinCoordinator;
    public static String ManaMpiTab_statusFile;
    public static String ManaMpiTab_statusFileHint;
    public static String ManaMpiTab_host;
    public static String ManaMpiTab_port;
    public static String ManaMpiTab_nameCoordinator;
    public static String ManaCheckpointTab_name;
    public static String ManaCheckpointTab_directory;
    public static String ManaCheckpointTab_directoryHint;
    public static String ManaCheckpointTab_directoryBrowse;
    public static String ManaCheckpointTab_checkpointsGroup;
    public static String ManaCheckpointTab_every;
    public static String ManaCheckpointTab_seconds;
    public static String ManaCheckpointTab_timing;
    public static String ManaCheckpointTab_restartGroup;
    public static String ManaCheckpointTab_restart;
    public static String ManaCheckpointTab_restartFrom;
    public static String ManaCheckpointTab_restartBrowse;
    public static String ManaCheckpointTab_found;
    public static String ManaCheckpointTab_noCheckpoint;
    public static String ManaCheckpointTab_cannotRestart;
    public static String ImageOptionsGroup_group;
    public static String ImageOptionsGroup_incremental;
    public static String ImageOptionsGroup_incrementalTip;
    public static String ImageOptionsGroup_forked;
    public static String ImageOptionsGroup_forkedTip;
    public static String ImageOptionsGroup_compression;
    public static String ImageOptionsGroup_compressionTip;
    public static String ImageOptionsGroup_off;
    public static String ImageOptionsGroup_fast;
    public static String ImageOptionsGroup_strong;
    public static String ImageOptionsGroup_launchOnly;
    public static String ImageOptionsGroup_forkedIgnored;
    public static String ManaEnvironmentTab_mana;
    public static String ManaEnvironmentTab_manaTip;
    public static String ManaEnvironmentTab_variable;
    public static String ManaEnvironmentTab_chooseMessage;
    public static String ManaEnvironmentTab_chooseTitle;
    public static String TabSupport_fileSystem;
    public static String TabSupport_browse;
    public static String TabSupport_variables;
    public static String StaleCheckpoint_title;
    public static String StaleCheckpoint_question;
    public static String StaleCheckpoint_cannotDelete;
    public static String ManaLaunchShortcut_title;
    public static String ManaLaunchShortcut_cannotCreate;

    public static String ManaSlurmTab_name;
    public static String ManaSlurmTab_enabled;
    public static String ManaSlurmTab_group;
    public static String ManaSlurmTab_submit;
    public static String ManaSlurmTab_sbatch;
    public static String ManaSlurmTab_sbatchTip;
    public static String ManaSlurmTab_srun;
    public static String ManaSlurmTab_srunTip;
    public static String ManaSlurmTab_partition;
    public static String ManaSlurmTab_partitionHint;
    public static String ManaSlurmTab_nodes;
    public static String ManaSlurmTab_tasksPerNode;
    public static String ManaSlurmTab_ranks;
    public static String ManaSlurmTab_timeLimit;
    public static String ManaSlurmTab_timeLimitHint;
    public static String ManaSlurmTab_nodeList;
    public static String ManaSlurmTab_nodeListHint;
    public static String ManaSlurmTab_arguments;
    public static String ManaSlurmTab_argumentsHint;
    public static String ManaSlurmTab_commandPrefix;
    public static String ManaSlurmTab_commandPrefixHint;
    public static String ManaSlurmTab_commandPrefixTip;

    static {
        NLS.initializeMessages(BUNDLE_NAME, Messages.class);
    }

    private Messages() {}
}
