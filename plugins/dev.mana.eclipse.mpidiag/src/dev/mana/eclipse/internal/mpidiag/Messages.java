package dev.mana.eclipse.internal.mpidiag;

import org.eclipse.osgi.util.NLS;

/**
 * The UI strings of the MPI diagnostics plug-in ({@code messages.properties} beside this class): the
 * preflight dialog, the preference page, the marker job's name. A language fragment can translate them.
 * Arguments go through {@link NLS#bind}. The markers' own texts come from the {@code dev.mana.mpidiag}
 * library as it words them.
 */
public final class Messages extends NLS {
    private static final String BUNDLE_NAME = "dev.mana.eclipse.internal.mpidiag.messages";

    public static String PreflightDialog_title;
    public static String PreflightDialog_launchAnyway;
    public static String Preflight_headOne;
    public static String Preflight_head;
    public static String Preflight_partly;
    public static String Preflight_reason;
    public static String Preflight_end;
    public static String DiagnosticsPreferencePage_description;
    public static String DiagnosticsPreferencePage_enabled;
    public static String DiagnosticsPreferencePage_preflight;
    public static String DiagnosticsPreferencePage_manifest;
    public static String MarkerJob_name;
    public static String IgnoreHere_label;
    public static String IgnoreHere_description;

    static {
        NLS.initializeMessages(BUNDLE_NAME, Messages.class);
    }

    private Messages() {}
}
