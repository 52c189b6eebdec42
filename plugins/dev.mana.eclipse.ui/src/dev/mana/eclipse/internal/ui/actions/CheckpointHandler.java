package dev.mana.eclipse.internal.ui.actions;

import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;

import dev.mana.eclipse.core.IManaJob;

/**
 * Run &gt; Checkpoint Now (toolbar, Debug view, MANA Job view). Enabled by its {@code enabledWhen} in
 * plugin.xml: a running MANA job is selected, or nothing of a MANA job is selected and one is running.
 */
public class CheckpointHandler extends AbstractHandler {

    protected boolean stop() {
        return false;
    }

    @Override
    public Object execute(ExecutionEvent event) {
        IManaJob job = JobTargets.of(event);
        // enablement said there is one; a job that ended in between is simply not checkpointed
        if (job != null && !job.isTerminated()) {
            schedule(job, stop());
        }
        return null;
    }

    public static CheckpointJob schedule(IManaJob job, boolean stop) {
        CheckpointJob j = new CheckpointJob(job, stop);
        j.schedule();
        return j;
    }
}
