package dev.mana.eclipse.internal.ui.actions;

import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.ui.handlers.HandlerUtil;

import dev.mana.eclipse.core.IManaJob;

/**
 * Run &gt; Restart from Checkpoint...: opens the restart dialog for the selected (or newest) job; Debug from
 * Checkpoint... (a subclass) opens its Debug variant.
 */
public class RestartHandler extends AbstractHandler {
    /** Debug from Checkpoint...: the dialog with Debug chosen. */
    public static final class Debug extends RestartHandler {
        public Debug() {
            super(true);
        }
    }

    private final boolean debug;

    public RestartHandler() {
        this(false);
    }

    RestartHandler(boolean debug) {
        this.debug = debug;
    }

    @Override
    public Object execute(ExecutionEvent event) {
        IManaJob job = JobTargets.of(event);
        if (job == null) {
            var jobs = dev.mana.eclipse.core.ManaJobs.getJobs();
            job = jobs.isEmpty() ? null : jobs.get(jobs.size() - 1);
        }
        RestartDialog d = new RestartDialog(HandlerUtil.getActiveShell(event), job, null, debug);
        if (d.open() == RestartDialog.OK) {
            d.launch();
        }
        return null;
    }
}
