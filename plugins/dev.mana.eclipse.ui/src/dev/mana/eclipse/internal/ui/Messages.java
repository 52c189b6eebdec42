package dev.mana.eclipse.internal.ui;

import org.eclipse.osgi.util.NLS;

/**
 * The UI strings of the plug-in ({@code messages.properties} beside this class), so a language fragment
 * can translate them without touching the code. Arguments go through {@link NLS#bind}.
 */
public final class Messages extends NLS {
    private static final String BUNDLE_NAME = "dev.mana.eclipse.internal.ui.messages";

    public static String RestartDialog_shellTitle;
    public static String RestartDialog_title;
    public static String RestartDialog_configuration;
    public static String RestartDialog_directory;
    public static String RestartDialog_browse;
    public static String RestartDialog_browseMessage;
    public static String RestartDialog_columnRank;
    public static String RestartDialog_columnImage;
    public static String RestartDialog_columnSize;
    public static String RestartDialog_columnWritten;
    public static String RestartDialog_inspect;
    public static String RestartDialog_inspectTip;
    public static String RestartDialog_slurmGroup;
    public static String RestartDialog_newAllocation;
    public static String RestartDialog_newAllocationTip;
    public static String RestartDialog_allocNodes;
    public static String RestartDialog_allocTasksPerNode;
    public static String RestartDialog_allocTasksPerNodeTip;
    public static String RestartDialog_allocPlacementBatchOnly;
    public static String RestartDialog_allocNodeList;
    public static String RestartDialog_allocNodeListHint;
    public static String RestartDialog_allocRanks;
    public static String RestartDialog_debugGroup;
    public static String RestartDialog_debugCheck;
    public static String RestartDialog_debugRanks;
    public static String RestartDialog_debugRanksTip;
    public static String RestartDialog_pauseLevel;
    public static String RestartDialog_pauseLevelTip;
    public static String RestartDialog_debugButton;
    public static String RestartDialog_restartButton;
    public static String RestartDialog_noConfiguration;
    public static String RestartDialog_checking;
    public static String RestartDialog_checkJob;
    public static String RestartDialog_restartFrom;
    public static String RestartDialog_debugFrom;
    public static String RestartDialog_debugRanksWait;
    public static String RestartDialog_restartCopy;
    public static String ManaJobView_job;
    public static String ManaJobView_restartSuffix;
    public static String ManaJobView_endedSuffix;
    public static String ManaJobView_noJob;
    public static String ManaJobView_stateEnded;
    public static String ManaJobView_stateCheckpointing;
    public static String ManaJobView_stateStarting;
    public static String ManaJobView_stateRunning;
    public static String ManaJobView_stateProgress;
    public static String ManaJobView_summary;
    public static String ManaJobView_hostedAt;
    public static String ManaJobView_at;
    public static String ManaJobView_interval;
    public static String ManaJobView_lastRestarted;
    public static String ManaJobView_last;
    public static String ManaJobView_lastSeen;
    public static String ManaJobView_lastNone;
    public static String ManaJobView_unprotected;
    public static String ManaJobView_unprotectedTip;
    public static String ManaJobView_columnRank;
    public static String ManaJobView_columnHost;
    public static String ManaJobView_columnPid;
    public static String ManaJobView_columnState;
    public static String ManaJobView_columnGeneration;
    public static String ManaJobView_columnLast;
    public static String ManaJobView_columnSize;
    public static String ManaJobView_columnImage;
    public static String ManaJobView_showDirectory;
    public static String ManaJobView_showDirectoryTip;
    public static String ManaJobView_scanJob;
    public static String CheckpointJob_name;
    public static String CheckpointJob_nameStop;
    public static String CheckpointJob_task;
    public static String CheckpointJob_taskOne;
    public static String CheckpointJob_progress;
    public static String CheckpointJob_failedName;
    public static String CheckpointJob_canceledName;
    public static String CheckpointJob_failed;
    public static String CheckpointJob_done;
    public static String Console_checkpoint;
    public static String Console_checkpointAndStop;
    public static String Console_tip;
    public static String Preferences_description;
    public static String Preferences_runtime;
    public static String Preferences_bundled;
    public static String Preferences_bundledMissing;
    public static String Preferences_other;
    public static String Preferences_locationHint;
    public static String Preferences_browse;
    public static String Preferences_debugger;
    public static String Preferences_gdb;
    public static String Preferences_gdbHint;
    public static String Preferences_checkGroup;
    public static String Preferences_checkWith;
    public static String Preferences_checkButton;
    public static String Preferences_refresh;
    public static String Preferences_refreshUnit;
    public static String Preferences_noLauncher;
    public static String Preferences_checking;
    public static String Preferences_checkJob;

    static {
        NLS.initializeMessages(BUNDLE_NAME, Messages.class);
    }

    private Messages() {}
}
