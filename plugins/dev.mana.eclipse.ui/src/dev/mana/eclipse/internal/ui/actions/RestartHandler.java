package dev.mana.eclipse.internal.ui.actions;

import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.ui.handlers.HandlerUtil;

import dev.mana.eclipse.core.IManaJob;

/** Run &gt; Restart from Checkpoint...: opens the restart dialog for the selected (or newest) job. */
public final class RestartHandler extends AbstractHandler {
    @Override
    public Object execute(ExecutionEvent event) {
        IManaJob job = JobTargets.of(event);
        if (job == null) {
            var jobs = dev.mana.eclipse.core.ManaJobs.getJobs();
            job = jobs.isEmpty() ? null : jobs.get(jobs.size() - 1);
        }
        RestartDialog d = new RestartDialog(HandlerUtil.getActiveShell(event), job);
        if (d.open() == RestartDialog.OK) {
            d.launch();
        }
        return null;
    }
}
