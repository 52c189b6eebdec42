package dev.mana.eclipse.debug;

import java.util.Map;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IWorkspaceRoot;
import org.eclipse.core.resources.IWorkspaceRunnable;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.model.Breakpoint;
import org.eclipse.debug.core.model.IBreakpoint;

/** A breakpoint on a function by name ({@code MPI_Allreduce}, {@code compute_step}), kept on the workspace root. */
public class ManaFunctionBreakpoint extends Breakpoint {

    public ManaFunctionBreakpoint() {
    }

    /** A new, enabled breakpoint on {@code function}; created whole, as {@link ManaLineBreakpoint} says why. */
    public ManaFunctionBreakpoint(String function) throws CoreException {
        IWorkspaceRoot root = ResourcesPlugin.getWorkspace().getRoot();
        Map<String, Object> attributes = Map.of(
                IBreakpoint.ENABLED, true,
                IBreakpoint.ID, ManaDebugModel.ID,
                ManaDebugModel.FUNCTION_ATTR, function,
                IMarker.MESSAGE, "MANA function breakpoint: " + function);
        IWorkspaceRunnable create = monitor -> setMarker(root.createMarker(ManaDebugModel.FUNCTION_MARKER, attributes));
        run(getMarkerRule(root), create);
    }

    @Override
    public String getModelIdentifier() {
        return ManaDebugModel.ID;
    }

    public String function() {
        return getMarker().getAttribute(ManaDebugModel.FUNCTION_ATTR, "");
    }
}
