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

    private ManaDebugModel() {
    }

    /** The breakpoints of this model the breakpoint manager holds, enabled or not. */
    public static List<IBreakpoint> breakpoints() {
        return new ArrayList<>(List.of(DebugPlugin.getDefault().getBreakpointManager().getBreakpoints(ID)));
    }

    static CoreException error(String message, Throwable cause) {
        return new CoreException(new Status(IStatus.ERROR, ID, message, cause));
    }
}
