package dev.mana.eclipse.debug;

import java.util.Map;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspaceRunnable;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.debug.core.model.IBreakpoint;
import org.eclipse.debug.core.model.LineBreakpoint;

/**
 * A line breakpoint in a C, C++ or Fortran file of the workspace: gdb gets it as
 * {@code -break-insert /absolute/path:LINE} in every debugged rank before the upper half resumes.
 */
public class ManaLineBreakpoint extends LineBreakpoint {

    /** For the breakpoint manager, which restores breakpoints from their markers. */
    public ManaLineBreakpoint() {
    }

    /**
     * A new, enabled breakpoint at {@code line} (1-based) of {@code resource}; register it with the breakpoint manager.
     * The marker is created with all its attributes at once: the breakpoint manager deletes a breakpoint marker it
     * sees without a model id (it does so when it loads the breakpoints of a project just opened, on the resource
     * notification thread), and a marker given its attributes one by one can be seen that way.
     */
    public ManaLineBreakpoint(IResource resource, int line) throws CoreException {
        Map<String, Object> attributes = Map.of(
                IBreakpoint.ENABLED, true,
                IMarker.LINE_NUMBER, line,
                IBreakpoint.ID, ManaDebugModel.ID,
                IMarker.MESSAGE, "MANA line breakpoint: " + resource.getName() + " [line " + line + "]");
        IWorkspaceRunnable create = monitor -> setMarker(resource.createMarker(ManaDebugModel.LINE_MARKER, attributes));
        run(getMarkerRule(resource), create);
    }

    @Override
    public String getModelIdentifier() {
        return ManaDebugModel.ID;
    }

    /** The location gdb understands: the file's absolute path and the line. */
    public String gdbLocation() throws CoreException {
        IPath location = getMarker().getResource().getLocation();
        if (location == null) {
            throw ManaDebugModel.error(getMarker().getResource() + " has no location on disk", null);
        }
        return location.toOSString() + ":" + getLineNumber();
    }
}
