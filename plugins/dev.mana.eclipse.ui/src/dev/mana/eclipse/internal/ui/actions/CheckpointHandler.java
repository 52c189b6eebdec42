package dev.mana.eclipse.internal.ui.actions;

import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.commands.ExecutionException;
import org.eclipse.jface.dialogs.MessageDialog;
import org.eclipse.ui.handlers.HandlerUtil;

import dev.mana.eclipse.core.IManaJob;

/** Run &gt; Checkpoint Now (toolbar, Debug view, MANA Job view, console). */
public class CheckpointHandler extends AbstractHandler {

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
