package dev.mana.eclipse.internal.ui.views;

import org.eclipse.core.runtime.IAdaptable;
import org.eclipse.debug.core.ILaunch;

import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.RankState;
import dev.mana.eclipse.core.IManaJob;

/**
 * One row of the MANA Job view: a rank of the job, what the coordinator knows of it, and its newest
 * image on disk as the last background scan found it.
 *
 * @param rank the rank's number
 * @param info the coordinator's record of it, or null when it is not connected (unprotected)
 * @param image its newest image, or null (none, or not scanned yet)
 */
public record RankRow(IManaJob job, int rank, RankInfo info, RankImages.Image image) implements IAdaptable {

    /** The coordinator's state, {@link RankState#UNPROTECTED} for a rank of the job it does not know. */
    public RankState state() {
        return info == null ? RankState.UNPROTECTED : info.state();
    }

    /** Whether the rank is not connected to the coordinator: it runs without checkpoints. */
    public boolean isUnprotected() {
        return info == null;
    }

    @Override
    public <T> T getAdapter(Class<T> adapter) {
        if (adapter == IManaJob.class) {
            return adapter.cast(job);
        }
        if (adapter == ILaunch.class) {
            return adapter.cast(job.getLaunch());
        }
        // what the debugger's Debug Rank (another bundle) needs of a row: pid, rank, state
        if (adapter == RankInfo.class) {
            return adapter.cast(info);
        }
        return null;
    }
}
