package dev.mana.eclipse.debug.ui;

import dev.mana.eclipse.debug.RankGroups;
import dev.mana.eclipse.internal.debug.ui.Messages;
import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.commands.ExecutionException;
import org.eclipse.core.runtime.IAdaptable;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.handlers.HandlerUtil;

/**
 * Resume All Ranks / Suspend All Ranks (the Debug view's toolbar and context menu, the Run menu): every
 * debugged rank of the launch of the selected element (a launch, a rank, its thread or frame), or of the
 * debug context. gdb is asked from a job, never on the UI thread.
 */
public abstract class AllRanksHandler extends AbstractHandler {
    /** Resume All Ranks. */
    public static final class Resume extends AllRanksHandler {
        public static final String COMMAND = "dev.mana.eclipse.debug.ui.resumeAllRanks";

        @Override
        boolean can(ILaunch launch) {
            return RankGroups.canResumeAll(launch);
        }

        @Override
        void act(ILaunch launch) throws DebugException {
            RankGroups.resumeAll(launch);
        }

        @Override
        String jobName(ILaunch launch) {
            return NLS.bind(Messages.AllRanks_resumeJob, label(launch));
        }
    }

    /** Suspend All Ranks. */
    public static final class Suspend extends AllRanksHandler {
        public static final String COMMAND = "dev.mana.eclipse.debug.ui.suspendAllRanks";

        @Override
        boolean can(ILaunch launch) {
            return RankGroups.canSuspendAll(launch);
        }

        @Override
        void act(ILaunch launch) throws DebugException {
            RankGroups.suspendAll(launch);
        }

        @Override
        String jobName(ILaunch launch) {
            return NLS.bind(Messages.AllRanks_suspendJob, label(launch));
        }
    }

    abstract boolean can(ILaunch launch);

    abstract void act(ILaunch launch) throws DebugException;

    abstract String jobName(ILaunch launch);

    static String label(ILaunch launch) {
        return launch.getLaunchConfiguration() != null ? launch.getLaunchConfiguration().getName() : launch.toString();
    }

    /** The launch of the selection, else of the debug context; null when neither is of a MANA debug launch. */
    static ILaunch launch(Object selection) {
        Object first = selection instanceof IStructuredSelection s ? s.getFirstElement() : null;
        ILaunch l = RankGroups.launchOf(first);
        if (l == null || RankGroups.ranks(l).isEmpty()) {
            IAdaptable context = DebugUITools.getDebugContext();
            l = RankGroups.launchOf(context);
        }
        return l == null || RankGroups.ranks(l).isEmpty() ? null : l;
    }

    @Override
    public void setEnabled(Object evaluationContext) {
        Object sel = evaluationContext instanceof org.eclipse.core.expressions.IEvaluationContext c
                ? c.getVariable(org.eclipse.ui.ISources.ACTIVE_CURRENT_SELECTION_NAME) : null;
        ILaunch l = launch(sel);
        setBaseEnabled(l != null && can(l));
    }

    @Override
    public Object execute(ExecutionEvent event) throws ExecutionException {
        ILaunch l = launch(HandlerUtil.getCurrentSelection(event));
        if (l == null) {
            throw new ExecutionException(Messages.AllRanks_none);
        }
        run(l);
        return null;
    }

    /** Acts on every rank of {@code launch} in a job; the job (tests join it). */
    public Job run(ILaunch launch) {
        Job job = Job.create(jobName(launch), (IProgressMonitor m) -> {
            try {
                act(launch);
                return Status.OK_STATUS;
            } catch (DebugException e) {
                return e.getStatus();
            }
        });
        job.schedule();
        return job;
    }
}
