package dev.mana.eclipse.internal.ui.actions;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.progress.IProgressConstants;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaFormat;
import dev.mana.eclipse.internal.ui.ManaUIPlugin;
import dev.mana.eclipse.internal.ui.Messages;

/**
 * Checkpoints a MANA job in the background. The Progress view shows each phase as ranks reach it; the
 * finished entry stays there with the result (generation, size, time, directory). A failure is
 * reported as an error, which the workbench shows in a dialog with the reason.
 *
 * <p>Cancel is honoured at once: the job stops waiting and ends as canceled. The runtime cannot take a
 * checkpoint back half way, so the ranks go on and finish it; the job's console gets its result line when
 * they do ({@link IManaJob#checkpoint} logs it), as does the MANA Job view.
 */
public final class CheckpointJob extends Job {
    /** Family of these jobs (tests wait for it). */
    public static final Object FAMILY = CheckpointJob.class;

    private final IManaJob job;
    private final boolean stop;
    private volatile CheckpointResult result;
    /** Completed by {@link #canceling()}: the run stops waiting. */
    private final java.util.concurrent.CompletableFuture<Void> canceled = new java.util.concurrent.CompletableFuture<>();

    public CheckpointJob(IManaJob job, boolean stop) {
        super(NLS.bind(stop ? Messages.CheckpointJob_nameStop : Messages.CheckpointJob_name, job.getName()));
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
    protected void canceling() {
        canceled.complete(null);
    }

    @Override
    protected IStatus run(IProgressMonitor monitor) {
        int ranks = Math.max(1, job.getRanks().size());
        monitor.beginTask(NLS.bind(ranks == 1 ? Messages.CheckpointJob_taskOne : Messages.CheckpointJob_task, ranks), 4 * ranks);
        int[] done = {0};
        // the checkpoint on a thread of its own, so that this job can stop waiting for it when canceled
        java.util.concurrent.CompletableFuture<CheckpointResult> checkpoint = new java.util.concurrent.CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                checkpoint.complete(job.checkpoint(stop, (CheckpointProgress p) -> {
                    if (checkpoint.isDone() || canceled.isDone()) {
                        return; // canceled: the monitor is no longer ours to report to
                    }
                    int total = (ManaFormat.phase(p.state()) - 1) * p.nranks() + p.reached();
                    int target = Math.min(total, 4 * ranks);
                    synchronized (done) {
                        if (target > done[0]) {
                            monitor.worked(target - done[0]);
                            done[0] = target;
                        }
                    }
                    monitor.subTask(NLS.bind(Messages.CheckpointJob_progress, new Object[] {p.reached(), p.nranks(),
                        p.state().name().toLowerCase()}));
                }));
            } catch (CoreException | RuntimeException e) {
                checkpoint.completeExceptionally(e);
            }
        }, getName());
        t.setDaemon(true);
        t.start();
        try {
            java.util.concurrent.CompletableFuture.anyOf(checkpoint, canceled).join();
            if (!checkpoint.isDone()) {
                setName(NLS.bind(Messages.CheckpointJob_canceledName, getName()));
                return Status.CANCEL_STATUS;
            }
            result = checkpoint.join();
        } catch (java.util.concurrent.CompletionException e) {
            setName(NLS.bind(Messages.CheckpointJob_failedName, getName()));
            if (e.getCause() instanceof CoreException ce) {
                return new Status(IStatus.ERROR, ManaUIPlugin.PLUGIN_ID, ce.getStatus().getMessage(), ce);
            }
            return new Status(IStatus.ERROR, ManaUIPlugin.PLUGIN_ID, String.valueOf(e.getCause()), e.getCause());
        } finally {
            monitor.done();
        }
        if (!result.ok()) {
            setName(NLS.bind(Messages.CheckpointJob_failedName, getName()));
            return Status.error(NLS.bind(Messages.CheckpointJob_failed, job.getName(), result.message()));
        }
        setName(NLS.bind(Messages.CheckpointJob_done, new Object[] {result.generation(), job.getName(),
            ManaFormat.bytes(result.totalBytes()), ManaFormat.seconds(result.elapsedNanos()), result.dir()}));
        return new Status(IStatus.OK, ManaUIPlugin.PLUGIN_ID, ManaFormat.summary(result));
    }
}
