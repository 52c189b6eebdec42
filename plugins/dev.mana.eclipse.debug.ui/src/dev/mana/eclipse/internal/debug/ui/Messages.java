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
    public static String ManaDebugTab_name;
    public static String ManaDebugTab_intro;
    public static String ManaDebugTab_pauseLevel;
    public static String ManaDebugTab_ranks;
    public static String ManaToggleBreakpoints_name;
    public static String ManaToggleBreakpoints_description;

    static {
        NLS.initializeMessages(BUNDLE_NAME, Messages.class);
    }

    private Messages() {}
}
