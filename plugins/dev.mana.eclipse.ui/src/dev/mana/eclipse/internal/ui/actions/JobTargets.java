package dev.mana.eclipse.internal.ui.actions;

import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.expressions.IEvaluationContext;
import org.eclipse.debug.core.model.IProcess;
import org.eclipse.debug.ui.console.IConsole;
import org.eclipse.jface.viewers.ISelection;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.ui.ISources;
import org.eclipse.ui.IWorkbenchPart;
import org.eclipse.ui.console.IConsoleView;
import org.eclipse.ui.handlers.HandlerUtil;

import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaJobs;

/**
 * Which job an action applies to: the one selected (MANA Job view, Debug view), the one whose console
 * is shown, else the newest running job.
 */
public final class JobTargets {
    private JobTargets() {}

    public static IManaJob fromSelection(ISelection sel) {
        if (sel instanceof IStructuredSelection s) {
            for (Object o : s) {
                IManaJob j = ManaJobs.adapt(o);
                if (j != null) {
                    return j;
                }
            }
        }
        return null;
    }

    public static IManaJob fromPart(IWorkbenchPart part) {
        if (part instanceof IConsoleView v && v.getConsole() instanceof IConsole c) {
            IProcess p = c.getProcess();
            return p == null ? null : ManaJobs.forLaunch(p.getLaunch());
        }
        if (part != null && part.getSite() != null && part.getSite().getSelectionProvider() != null) {
            return fromSelection(part.getSite().getSelectionProvider().getSelection());
        }
        return null;
    }

    public static IManaJob of(ExecutionEvent event) {
        IManaJob j = fromPart(HandlerUtil.getActivePart(event));
        if (j == null) {
            j = fromSelection(HandlerUtil.getCurrentSelection(event));
        }
        return j != null ? j : ManaJobs.getActiveJob();
    }

    public static IManaJob of(Object evaluationContext) {
        IManaJob j = null;
        if (evaluationContext instanceof IEvaluationContext ctx) {
            Object part = ctx.getVariable(ISources.ACTIVE_PART_NAME);
            if (part instanceof IWorkbenchPart p) {
                j = fromPart(p);
            }
            if (j == null && ctx.getVariable(ISources.ACTIVE_CURRENT_SELECTION_NAME) instanceof ISelection s) {
                j = fromSelection(s);
            }
        }
        return j != null ? j : ManaJobs.getActiveJob();
    }
}
