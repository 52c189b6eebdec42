package dev.mana.eclipse.internal.core;

import dev.mana.eclipse.core.CheckpointProgress;
import dev.mana.eclipse.core.CheckpointResult;
import dev.mana.eclipse.core.JobStatus;
import dev.mana.eclipse.core.RankInfo;

/**
 * The control-plane library's records ({@code dev.mana.coordinator}) as the plug-in's API records. The
 * library keeps protocol u32 values (generations) in ints; they are read back unsigned here.
 */
final class CoordinatorTypes {
    private CoordinatorTypes() {}

    static RankInfo rank(dev.mana.coordinator.RankInfo r) {
        return new RankInfo(r.rank(), r.host(), r.pid(), r.state(), Integer.toUnsignedLong(r.generation()),
            r.mpi());
    }

    static JobStatus status(dev.mana.coordinator.JobStatus s) {
        return new JobStatus(s.job(), s.nranks(), s.connected(), Integer.toUnsignedLong(s.generation()),
            s.checkpointing(), s.lastCheckpointUnixMs(), s.lastCheckpointNanos(), s.lastCheckpointBytes(),
            s.lastCheckpointDir(), s.intervalSeconds());
    }

    static CheckpointProgress progress(dev.mana.coordinator.CheckpointProgress p) {
        return new CheckpointProgress(Integer.toUnsignedLong(p.generation()), p.state(), p.reached(),
            p.nranks());
    }

    static CheckpointResult result(dev.mana.coordinator.CheckpointResult r) {
        return new CheckpointResult(r.ok(), Integer.toUnsignedLong(r.generation()), r.elapsedNanos(), r.totalBytes(),
            r.ranks(), r.dir(), r.message());
    }
}
