package dev.mana.gdb.split;

import java.util.List;

/**
 * The names of our C runtime that the debugger side looks up, breaks on, evaluates or assigns: one place
 * for them, so a rename in core-native breaks {@code RuntimeSymbolsTest} (which looks each one up in the
 * built {@code bin/lower-half}) instead of a debugging session. All of them live in the lower half
 * ({@code core-native/src/lower-half/main.c}), which every rank runs in, launched or restarted.
 */
public final class RuntimeSymbols {
    private RuntimeSymbols() {
    }

    /** The runtime's file, relative to the installation root, that defines every name below. */
    public static final String LOWER_HALF = "bin/lower-half";

    /** {@code struct lh_info mana_lh}: what the lower half publishes (rank, ranges, pause level, load bias). */
    public static final String MANA_LH = "mana_lh";
    /** Member of {@link #MANA_LH}: the load bias of the application (a struct field, not a symbol of its own). */
    public static final String UH_APP_BASE_FIELD = "uh_app_base";

    /** The restart pause loop ({@code MANA_RESTART_PAUSE=N}); its {@code int level} argument is the pause level. */
    public static final String LH_RESTART_PAUSE = "lh_restart_pause";
    /** The name of {@link #LH_RESTART_PAUSE}'s pause level argument, for breakpoint conditions. */
    public static final String LH_RESTART_PAUSE_LEVEL_ARG = "level";
    /** Cleared by a debugger to leave the restart pause. */
    public static final String MANA_RESTART_PAUSE_WAIT = "mana_restart_pause_wait";

    /** The launch pause loop ({@code MANA_LAUNCH_PAUSE=1}: nothing of the upper half is loaded yet); a static function. */
    public static final String LH_LAUNCH_PAUSE = "lh_launch_pause";
    /** Cleared by a debugger to leave the launch pause. */
    public static final String MANA_LAUNCH_PAUSE_WAIT = "mana_launch_pause_wait";

    /** Called once at launch when the program and its {@code ld.so} are mapped, right before the jump to {@code ld.so}. */
    public static final String LH_RECORD_RANGES = "lh_record_ranges";

    /** Every name above that is a symbol of {@link #LOWER_HALF} (the field and the argument are not). */
    public static final List<String> IN_LOWER_HALF = List.of(MANA_LH, LH_RESTART_PAUSE, MANA_RESTART_PAUSE_WAIT,
            LH_LAUNCH_PAUSE, MANA_LAUNCH_PAUSE_WAIT, LH_RECORD_RANGES);

    /** {@code mana_lh.uh_app_base} as a pointer, as gdb evaluates it. */
    public static String appBaseExpression() {
        return "(void *) " + MANA_LH + "." + UH_APP_BASE_FIELD;
    }

    /** {@code level == N}: the condition that stops {@link #LH_RESTART_PAUSE} at pause level {@code level} only. */
    public static String restartPauseLevelCondition(int level) {
        return LH_RESTART_PAUSE_LEVEL_ARG + " == " + level;
    }
}
