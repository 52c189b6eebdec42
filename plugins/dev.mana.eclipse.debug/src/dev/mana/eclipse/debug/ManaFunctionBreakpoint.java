package dev.mana.eclipse.debug;

import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IWorkspaceRunnable;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.model.Breakpoint;
import org.eclipse.debug.core.model.IBreakpoint;

/** A breakpoint on a function by name ({@code MPI_Allreduce}, {@code compute_step}), kept on the workspace root. */
public class ManaFunctionBreakpoint extends Breakpoint {

    public ManaFunctionBreakpoint() {
    }

    public ManaFunctionBreakpoint(String function) throws CoreException {
        IWorkspaceRunnable create = monitor -> {
            IMarker marker = ResourcesPlugin.getWorkspace().getRoot().createMarker(ManaDebugModel.FUNCTION_MARKER);
            setMarker(marker);
            marker.setAttribute(IBreakpoint.ENABLED, true);
            marker.setAttribute(IBreakpoint.ID, getModelIdentifier());
            marker.setAttribute(ManaDebugModel.FUNCTION_ATTR, function);
            marker.setAttribute(IMarker.MESSAGE, "MANA function breakpoint: " + function);
        };
        run(getMarkerRule(ResourcesPlugin.getWorkspace().getRoot()), create);
    }

    @Override
    public String getModelIdentifier() {
        return ManaDebugModel.ID;
    }

    public String function() {
        return getMarker().getAttribute(ManaDebugModel.FUNCTION_ATTR, "");
    }
}
