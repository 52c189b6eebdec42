package dev.mana.eclipse.internal.ui.actions;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.ui.progress.IProgressConstants;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaFormat;
import dev.mana.eclipse.internal.ui.ManaUIPlugin;

/**
 * Checkpoints a MANA job in the background. The Progress view shows each phase as ranks reach it; the
 * finished entry stays there with the result (generation, size, time, directory). A failure is
 * reported as an error, which the workbench shows in a dialog with the reason.
 */
public final class CheckpointJob extends Job {
    /** Family of these jobs (tests wait for it). */
    public static final Object FAMILY = CheckpointJob.class;

    private final IManaJob job;
    private final boolean stop;
    private volatile CheckpointResult result;

    public CheckpointJob(IManaJob job, boolean stop) {
        super((stop ? "Checkpoint and stop " : "Checkpoint ") + job.getName());
        this.job = job;
        this.stop = stop;
        setUser(true);
        setProperty(IProgressConstants.ICON_PROPERTY,
            ManaUIPlugin.descriptor(stop ? ManaUIPlugin.IMG_CHECKPOINT_STOP : ManaUIPlugin.IMG_CHECKPOINT));
        setProperty(IProgressConstants.KEEP_PROPERTY, Boolean.TRUE);
    }

    @Override
    public boolean belongsTo(Object family) {
        return family == FAMILY;
    }

    public CheckpointResult getCheckpointResult() {
        return result;
    }

    @Override
    protected IStatus run(IProgressMonitor monitor) {
        int ranks = Math.max(1, job.getRanks().size());
        monitor.beginTask("Checkpointing " + ranks + (ranks == 1 ? " rank" : " ranks"), 4 * ranks);
        int[] done = {0};
        try {
            result = job.checkpoint(stop, (CheckpointProgress p) -> {
                int total = (ManaFormat.phase(p.state()) - 1) * p.nranks() + p.reached();
                int target = Math.min(total, 4 * ranks);
                if (target > done[0]) {
                    monitor.worked(target - done[0]);
                    done[0] = target;
                }
                monitor.subTask(p.reached() + " of " + p.nranks() + " ranks " + p.state().name().toLowerCase());
            });
        } catch (CoreException e) {
            setName(getName() + ": failed");
            return new Status(IStatus.ERROR, ManaUIPlugin.PLUGIN_ID, e.getStatus().getMessage(), e);
        } finally {
            monitor.done();
        }
        if (!result.ok()) {
            setName(getName() + ": failed");
            return Status.error("Checkpoint of " + job.getName() + " failed: " + result.message());
        }
        setName("Checkpoint " + result.generation() + " of " + job.getName() + ": " + ManaFormat.bytes(result.totalBytes())
            + " in " + ManaFormat.seconds(result.elapsedNanos()) + " to " + result.dir());
        return new Status(IStatus.OK, ManaUIPlugin.PLUGIN_ID, ManaFormat.summary(result));
    }
}
