package dev.mana.eclipse.internal.debug.ui;

import org.eclipse.osgi.util.NLS;

/**
 * The UI strings of {@code dev.mana.eclipse.debug.ui} ({@code messages.properties} beside this class), so a
 * language fragment can translate them. Arguments go through {@link NLS#bind}. Kept out of the API package
 * {@code dev.mana.eclipse.debug.ui}: translations are no API.
 */
public final class Messages extends NLS {
    private static final String BUNDLE_NAME = "dev.mana.eclipse.internal.debug.ui.messages";

    public static String AddFunctionBreakpoint_title;
    public static String AddFunctionBreakpoint_message;
    public static String AddFunctionBreakpoint_empty;
    public static String AddFunctionBreakpoint_notAName;
    public static String AddWatchpoint_title;
    public static String AddWatchpoint_message;
    public static String AddWatchpoint_empty;
    public static String EditCondition_title;
    public static String EditCondition_message;
    public static String Breakpoint_notInserted;
    public static String PathMapping_title;
    public static String PathMapping_intro;
    public static String PathMapping_from;
    public static String PathMapping_to;
    public static String ManaDebugTab_name;
    public static String ManaDebugTab_intro;
    public static String ManaDebugTab_pauseLevel;
    public static String ManaDebugTab_ranks;
    public static String ManaToggleBreakpoints_name;
    public static String ManaToggleBreakpoints_description;
    public static String Disassembly_columnAddress;
    public static String Disassembly_columnBytes;
    public static String Disassembly_columnInstruction;
    public static String Disassembly_columnLocation;
    public static String Disassembly_error;
    public static String Disassembly_job;
    public static String Disassembly_noFrame;
    public static String Disassembly_noRank;
    public static String Disassembly_reading;
    public static String Disassembly_running;
    public static String Disassembly_showing;
    public static String Disassembly_showingCaller;
    public static String Disassembly_stepInto;
    public static String Disassembly_stepIntoTip;
    public static String Disassembly_stepOver;
    public static String Disassembly_stepOverTip;
    public static String Disassembly_terminated;
    public static String Rank_terminated;
    public static String Rank_atRestartPause;
    public static String Rank_suspended;
    public static String Rank_running;
    public static String Rank_waitsForOne;
    public static String Rank_waitsFor;
    public static String AllRanks_none;
    public static String AllRanks_resumeJob;
    public static String AllRanks_suspendJob;
    public static String DebugRank_title;
    public static String DebugRank_noRank;
    public static String DebugRank_notRunning;
    public static String DebugRank_notHere;
    public static String DebugRank_gone;
    public static String DebugRank_already;
    public static String DebugRank_job;

    static {
        NLS.initializeMessages(BUNDLE_NAME, Messages.class);
    }

    private Messages() {}
}
