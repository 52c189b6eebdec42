package dev.mana.eclipse.debug.ui;

import dev.mana.eclipse.debug.RankDebugTarget;
import dev.mana.eclipse.debug.RankStackFrame;
import dev.mana.eclipse.debug.RankThread;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.model.IDebugElement;
import org.eclipse.debug.core.model.ISuspendResume;
import org.eclipse.debug.ui.actions.IRunToLineTarget;
import org.eclipse.jface.text.ITextSelection;
import org.eclipse.jface.viewers.ISelection;
import org.eclipse.ui.IWorkbenchPart;

/**
 * Run &gt; Run to Line (Ctrl+R) in a C, C++ or Fortran file for a suspended MANA rank: the rank runs to the
 * caret's line (a temporary breakpoint; from a restart pause too, which it releases).
 */
public final class ManaRunToLineTarget implements IRunToLineTarget {

    @Override
    public void runToLine(IWorkbenchPart part, ISelection selection, ISuspendResume target) throws CoreException {
        IResource r = ManaToggleBreakpointsTarget.resourceOf(part);
        RankDebugTarget rank = rankOf(target);
        if (r == null || r.getLocation() == null || rank == null || !(selection instanceof ITextSelection ts)) {
            return;
        }
        rank.runToLine(r.getLocation().toOSString() + ":" + (ts.getStartLine() + 1));
    }

    @Override
    public boolean canRunToLine(IWorkbenchPart part, ISelection selection, ISuspendResume target) {
        RankDebugTarget rank = rankOf(target);
        return rank != null && rank.isSuspended() && ManaToggleBreakpointsTarget.resourceOf(part) != null
                && selection instanceof ITextSelection;
    }

    private static RankDebugTarget rankOf(ISuspendResume s) {
        if (s instanceof RankThread || s instanceof RankStackFrame || s instanceof RankDebugTarget) {
            return (RankDebugTarget) ((IDebugElement) s).getDebugTarget();
        }
        return null;
    }
}
