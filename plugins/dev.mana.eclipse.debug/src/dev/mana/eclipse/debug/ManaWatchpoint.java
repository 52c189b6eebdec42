package dev.mana.eclipse.debug;

import java.util.Map;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IWorkspaceRoot;
import org.eclipse.core.resources.IWorkspaceRunnable;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.model.Breakpoint;
import org.eclipse.debug.core.model.IBreakpoint;
import org.eclipse.debug.core.model.IWatchpoint;
import dev.mana.gdb.mi.Watch;

/**
 * A watchpoint on an expression ({@code iteration}, {@code grid[3]}, {@code *(double *) 0x601040}), kept on
 * the workspace root: gdb's {@code watch} (modification), {@code rwatch} (access) or {@code awatch} (both),
 * inserted in every debugged rank. The expression is evaluated where the rank stands when it is inserted,
 * so a local of a frame is watched only while that frame lives; globals always.
 */
public class ManaWatchpoint extends Breakpoint implements IWatchpoint {
    private static final String ACCESS = ManaDebugModel.ID + ".access";
    private static final String MODIFICATION = ManaDebugModel.ID + ".modification";

    public ManaWatchpoint() {
    }

    /** A new, enabled watchpoint; created whole, as {@link ManaLineBreakpoint} says why. */
    public ManaWatchpoint(String expression, boolean access, boolean modification) throws CoreException {
        if (!access && !modification) {
            throw ManaDebugModel.error("a watchpoint stops on access, on modification or both", null);
        }
        IWorkspaceRoot root = ResourcesPlugin.getWorkspace().getRoot();
        String kind = access && modification ? "read or write" : access ? "read" : "write";
        Map<String, Object> attributes = Map.of(
                IBreakpoint.ENABLED, true,
                IBreakpoint.ID, ManaDebugModel.ID,
                ManaDebugModel.EXPRESSION_ATTR, expression.strip(),
                ACCESS, access,
                MODIFICATION, modification,
                IMarker.MESSAGE, "MANA watchpoint: " + expression.strip() + " (" + kind + ")");
        IWorkspaceRunnable create = monitor -> setMarker(root.createMarker(ManaDebugModel.WATCHPOINT_MARKER, attributes));
        run(getMarkerRule(root), create);
    }

    @Override
    public String getModelIdentifier() {
        return ManaDebugModel.ID;
    }

    public String expression() {
        return getMarker().getAttribute(ManaDebugModel.EXPRESSION_ATTR, "");
    }

    /** What gdb is asked for. */
    public Watch watch() throws CoreException {
        boolean a = isAccess();
        boolean m = isModification();
        return new Watch(expression(), a && m ? Watch.Kind.ACCESS : a ? Watch.Kind.READ : Watch.Kind.WRITE);
    }

    @Override
    public boolean isAccess() throws CoreException {
        return getMarker().getAttribute(ACCESS, false);
    }

    @Override
    public void setAccess(boolean access) throws CoreException {
        setAttribute(ACCESS, access);
    }

    @Override
    public boolean isModification() throws CoreException {
        return getMarker().getAttribute(MODIFICATION, true);
    }

    @Override
    public void setModification(boolean modification) throws CoreException {
        setAttribute(MODIFICATION, modification);
    }

    @Override
    public boolean supportsAccess() {
        return true;
    }

    @Override
    public boolean supportsModification() {
        return true;
    }
}
