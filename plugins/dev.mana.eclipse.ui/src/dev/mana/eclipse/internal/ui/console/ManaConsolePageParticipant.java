package dev.mana.eclipse.internal.ui.console;

import org.eclipse.debug.core.model.IProcess;
import org.eclipse.debug.ui.console.IConsole;
import org.eclipse.jface.action.Action;
import org.eclipse.jface.action.IToolBarManager;
import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.console.IConsoleConstants;
import org.eclipse.ui.console.IConsolePageParticipant;
import org.eclipse.ui.part.IPageBookViewPage;

import dev.mana.coordinator.CheckpointResult;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.IManaJobListener;
import dev.mana.eclipse.core.ManaJobs;
import dev.mana.eclipse.internal.ui.ManaUIPlugin;
import dev.mana.eclipse.internal.ui.Messages;
import dev.mana.eclipse.internal.ui.actions.CheckpointHandler;

/** Adds Checkpoint Now and Checkpoint and Stop to the console toolbar of a MANA job. */
public final class ManaConsolePageParticipant implements IConsolePageParticipant, IManaJobListener {
    private IManaJob job;
    private Action checkpoint;
    private Action checkpointAndStop;
    private IPageBookViewPage page;

    @Override
    public void init(IPageBookViewPage page, org.eclipse.ui.console.IConsole console) {
        this.page = page;
        if (!(console instanceof IConsole pc)) {
            return;
        }
        IProcess p = pc.getProcess();
        job = p == null ? null : ManaJobs.forLaunch(p.getLaunch());
        checkpoint = action(Messages.Console_checkpoint, ManaUIPlugin.IMG_CHECKPOINT, false);
        checkpointAndStop = action(Messages.Console_checkpointAndStop, ManaUIPlugin.IMG_CHECKPOINT_STOP, true);
        IToolBarManager tb = page.getSite().getActionBars().getToolBarManager();
        tb.appendToGroup(IConsoleConstants.LAUNCH_GROUP, checkpoint);
        tb.appendToGroup(IConsoleConstants.LAUNCH_GROUP, checkpointAndStop);
        page.getSite().getActionBars().updateActionBars();
        update();
        ManaJobs.addListener(this);
    }

    private Action action(String text, String image, boolean stop) {
        Action a = new Action(text, ManaUIPlugin.descriptor(image)) {
            @Override
            public void run() {
                if (job != null && !job.isTerminated()) {
                    CheckpointHandler.schedule(job, stop);
                }
            }
        };
        a.setToolTipText(NLS.bind(Messages.Console_tip, text));
        a.setId("dev.mana.eclipse.ui.console." + (stop ? "checkpointAndStop" : "checkpoint"));
        return a;
    }

    private void update() {
        boolean on = job != null && !job.isTerminated();
        checkpoint.setEnabled(on);
        checkpointAndStop.setEnabled(on);
    }

    @Override
    public void jobTerminated(IManaJob j) {
        if (j == job && page.getControl() != null && !page.getControl().isDisposed()) {
            page.getControl().getDisplay().asyncExec(this::update);
        }
    }

    @Override
    public void checkpointDone(IManaJob j, CheckpointResult result) {
        jobTerminated(j);
    }

    @Override
    public void dispose() {
        ManaJobs.removeListener(this);
    }

    @Override
    public void activated() {
        // nothing
    }

    @Override
    public void deactivated() {
        // nothing
    }

    @Override
    public <T> T getAdapter(Class<T> adapter) {
        return null;
    }
}
