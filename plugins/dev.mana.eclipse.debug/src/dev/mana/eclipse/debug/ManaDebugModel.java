package dev.mana.eclipse.debug;

import java.util.ArrayList;
import java.util.List;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.model.IBreakpoint;

/** Identifiers of the MANA debug model and its breakpoints. */
public final class ManaDebugModel {
    /** The model identifier of every element and breakpoint. */
    public static final String ID = "dev.mana.eclipse.debug";
    public static final String LINE_MARKER = ID + ".lineBreakpointMarker";
    public static final String FUNCTION_MARKER = ID + ".functionBreakpointMarker";
    public static final String FUNCTION_ATTR = ID + ".function";
    public static final String WATCHPOINT_MARKER = ID + ".watchpointMarker";
    /** String: the expression a watchpoint watches. */
    public static final String EXPRESSION_ATTR = ID + ".expression";
    /** String: a breakpoint's condition, an expression of the program's language (absent or blank: none). */
    public static final String CONDITION_ATTR = ID + ".condition";
    /** Problem markers: a breakpoint gdb refused to insert in a rank. */
    public static final String BREAKPOINT_PROBLEM = ID + ".breakpointProblem";

    /** Instruction stepping mode: Step Into / Over move one machine instruction (stepi / nexti). */
    private static volatile boolean instructionStepping;

    private ManaDebugModel() {
    }

    /** The breakpoints of this model the breakpoint manager holds, enabled or not. */
    public static List<IBreakpoint> breakpoints() {
        return new ArrayList<>(List.of(DebugPlugin.getDefault().getBreakpointManager().getBreakpoints(ID)));
    }

    /** How gdb is started: the gdb of Preferences > MANA (default: gdb on the PATH). */
    public static dev.mana.gdb.mi.GdbMi.Options gdbOptions() {
        return dev.mana.gdb.mi.GdbMi.Options.defaults().withGdb(dev.mana.eclipse.core.DebuggerCheck.gdbSetting());
    }

    /** Whether steps go by machine instruction (the Debug view's Instruction Stepping Mode). */
    public static boolean isInstructionStepping() {
        return instructionStepping;
    }

    public static void setInstructionStepping(boolean on) {
        instructionStepping = on;
    }

    /** The condition of a MANA breakpoint, or null when it stops every time. */
    public static String condition(IBreakpoint bp) {
        String c = bp.getMarker() == null ? null : bp.getMarker().getAttribute(CONDITION_ATTR, (String) null);
        return c == null || c.isBlank() ? null : c.strip();
    }

    /**
     * Sets (null or blank: removes) the condition of a MANA line or function breakpoint; every debugged rank
     * re-inserts it. The label (the marker's message) says the condition.
     */
    public static void setCondition(IBreakpoint bp, String condition) throws CoreException {
        String c = condition == null || condition.isBlank() ? null : condition.strip();
        String base = bp.getMarker().getAttribute(org.eclipse.core.resources.IMarker.MESSAGE, "");
        int cut = base.indexOf(" [if ");
        if (cut >= 0) {
            base = base.substring(0, cut);
        }
        bp.getMarker().setAttributes(new String[] {CONDITION_ATTR, org.eclipse.core.resources.IMarker.MESSAGE},
                new Object[] {c, c == null ? base : base + " [if " + c + "]"});
    }

    /** A DebugException with gdb's message. */
    static org.eclipse.debug.core.DebugException debugError(Exception e) {
        return new org.eclipse.debug.core.DebugException(error(e.getMessage(), e).getStatus());
    }

    static CoreException error(String message, Throwable cause) {
        return new CoreException(new Status(IStatus.ERROR, ID, message, cause));
    }
}
