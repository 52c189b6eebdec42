package dev.mana.eclipse.debug.ui;

import dev.mana.eclipse.debug.ManaDebugModel;
import dev.mana.eclipse.debug.ManaFunctionBreakpoint;
import dev.mana.eclipse.debug.ManaLineBreakpoint;
import dev.mana.eclipse.internal.debug.ui.Messages;
import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.commands.ExecutionException;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.model.IBreakpoint;
import org.eclipse.jface.dialogs.InputDialog;
import org.eclipse.jface.viewers.ISelection;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.jface.window.Window;
import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.handlers.HandlerUtil;

/**
 * Edit Condition (MANA)... on a MANA line or function breakpoint in the Breakpoints view: an expression of
 * the program's language ({@code i % 100 == 0}, {@code rank == 3}); the breakpoint stops only where it is
 * non-zero. Empty removes the condition. Every debugged rank re-inserts the breakpoint with it; an expression
 * gdb rejects is shown on the breakpoint as an insertion problem.
 */
public final class EditConditionHandler extends AbstractHandler {

    /** The MANA line or function breakpoint selected, or null. */
    static IBreakpoint selected(ISelection s) {
        if (s instanceof IStructuredSelection ss && ss.size() == 1
                && (ss.getFirstElement() instanceof ManaLineBreakpoint
                        || ss.getFirstElement() instanceof ManaFunctionBreakpoint)) {
            return (IBreakpoint) ss.getFirstElement();
        }
        return null;
    }

    @Override
    public Object execute(ExecutionEvent event) throws ExecutionException {
        IBreakpoint bp = selected(HandlerUtil.getCurrentSelection(event));
        if (bp == null) {
            return null;
        }
        String current = ManaDebugModel.condition(bp);
        InputDialog d = new InputDialog(HandlerUtil.getActiveShell(event), Messages.EditCondition_title,
                NLS.bind(Messages.EditCondition_message, bp.getMarker().getAttribute(org.eclipse.core.resources.IMarker.MESSAGE, "")),
                current == null ? "" : current, null);
        if (d.open() == Window.OK) {
            try {
                ManaDebugModel.setCondition(bp, d.getValue());
            } catch (CoreException e) {
                throw new ExecutionException(e.getMessage(), e);
            }
        }
        return null;
    }
}
