package dev.mana.eclipse.internal.ui.actions;

import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.commands.ExecutionException;
import org.eclipse.jface.dialogs.MessageDialog;
import org.eclipse.ui.handlers.HandlerUtil;

import dev.mana.eclipse.core.IManaJob;

/** Run &gt; Checkpoint Now (toolbar, Debug view, MANA Job view, console). */
public class CheckpointHandler extends AbstractHandler {

    /** Jobs starting and ending change what the toolbar can do, with no change of selection or part. */
    private final dev.mana.eclipse.core.IManaJobListener jobs = new dev.mana.eclipse.core.IManaJobListener() {
        @Override
        public void jobAdded(IManaJob job) {
            refresh();
        }

        @Override
        public void jobTerminated(IManaJob job) {
            refresh();
        }
    };

    public CheckpointHandler() {
        dev.mana.eclipse.core.ManaJobs.addListener(jobs);
    }

    private void refresh() {
        org.eclipse.swt.widgets.Display d = org.eclipse.ui.PlatformUI.isWorkbenchRunning()
            ? org.eclipse.ui.PlatformUI.getWorkbench().getDisplay() : null;
        if (d != null && !d.isDisposed()) {
            d.asyncExec(() -> {
                IManaJob j = dev.mana.eclipse.core.ManaJobs.getActiveJob();
                setBaseEnabled(j != null && !j.isTerminated());
            });
        }
    }

    @Override
    public void dispose() {
        dev.mana.eclipse.core.ManaJobs.removeListener(jobs);
        super.dispose();
    }

    protected boolean stop() {
        return false;
    }

    @Override
    public Object execute(ExecutionEvent event) throws ExecutionException {
        IManaJob job = JobTargets.of(event);
        if (job == null || job.isTerminated()) {
            MessageDialog.openInformation(HandlerUtil.getActiveShell(event), "MANA",
                "No MANA job is running. Start one with Run As > MANA MPI Job.");
            return null;
        }
        schedule(job, stop());
        return null;
    }

    public static CheckpointJob schedule(IManaJob job, boolean stop) {
        CheckpointJob j = new CheckpointJob(job, stop);
        j.schedule();
        return j;
    }

    @Override
    public void setEnabled(Object evaluationContext) {
        IManaJob job = JobTargets.of(evaluationContext);
        setBaseEnabled(job != null && !job.isTerminated());
    }
}
