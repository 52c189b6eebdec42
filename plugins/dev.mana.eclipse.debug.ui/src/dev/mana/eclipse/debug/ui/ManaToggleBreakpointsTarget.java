package dev.mana.eclipse.debug.ui;

import dev.mana.eclipse.debug.ManaDebugModel;
import dev.mana.eclipse.debug.ManaLineBreakpoint;
import java.util.Locale;
import java.util.Set;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.model.IBreakpoint;
import org.eclipse.debug.core.model.ILineBreakpoint;
import org.eclipse.debug.ui.actions.IToggleBreakpointsTarget;
import org.eclipse.jface.text.ITextSelection;
import org.eclipse.jface.viewers.ISelection;
import org.eclipse.ui.IWorkbenchPart;
import org.eclipse.ui.texteditor.ITextEditor;

/** Toggles a {@link ManaLineBreakpoint} on the selected line of a C, C++ or Fortran file in a text editor. */
public final class ManaToggleBreakpointsTarget implements IToggleBreakpointsTarget {
    /** File name extensions of the sources MANA programs are written in. */
    public static final Set<String> SOURCE_EXTENSIONS = Set.of("c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx",
            "f", "for", "f77", "f90", "f95", "f03", "f08");

    static IResource resourceOf(IWorkbenchPart part) {
        if (!(part instanceof ITextEditor editor)) {
            return null;
        }
        IResource r = editor.getEditorInput().getAdapter(IResource.class);
        if (r == null || r.getFileExtension() == null
                || !SOURCE_EXTENSIONS.contains(r.getFileExtension().toLowerCase(Locale.ROOT))) {
            return null;
        }
        return r;
    }

    @Override
    public void toggleLineBreakpoints(IWorkbenchPart part, ISelection selection) throws CoreException {
        IResource r = resourceOf(part);
        if (r == null || !(selection instanceof ITextSelection ts)) {
            return;
        }
        int line = ts.getStartLine() + 1;
        for (IBreakpoint bp : DebugPlugin.getDefault().getBreakpointManager().getBreakpoints(ManaDebugModel.ID)) {
            if (bp instanceof ILineBreakpoint lb && r.equals(bp.getMarker().getResource()) && lb.getLineNumber() == line) {
                bp.delete();
                return;
            }
        }
        DebugPlugin.getDefault().getBreakpointManager().addBreakpoint(new ManaLineBreakpoint(r, line));
    }

    @Override
    public boolean canToggleLineBreakpoints(IWorkbenchPart part, ISelection selection) {
        return resourceOf(part) != null && selection instanceof ITextSelection;
    }

    @Override
    public void toggleMethodBreakpoints(IWorkbenchPart part, ISelection selection) {
    }

    @Override
    public boolean canToggleMethodBreakpoints(IWorkbenchPart part, ISelection selection) {
        return false;
    }

    @Override
    public void toggleWatchpoints(IWorkbenchPart part, ISelection selection) {
    }

    @Override
    public boolean canToggleWatchpoints(IWorkbenchPart part, ISelection selection) {
        return false;
    }
}
