package dev.mana.eclipse.core;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;

/** Told when jobs come and go and when what is known of them changes. Called from any thread. */
public interface IManaJobListener {
    /** A job was launched. */
    default void jobAdded(IManaJob job) {}

    /** Ranks, status or checkpoints of a job changed. */
    default void jobChanged(IManaJob job) {}

    /** A job ended. */
    default void jobTerminated(IManaJob job) {}

    /**
     * Ranks of a job reached a phase of a running checkpoint (SUSPENDED, DRAINED, CHECKPOINTED,
     * COMMITTED), as the coordinator reports them; in order, before {@link #checkpointDone}.
     */
    default void checkpointProgress(IManaJob job, CheckpointProgress progress) {}

    /** A checkpoint of a job ended (ok or not). */
    default void checkpointDone(IManaJob job, CheckpointResult result) {}
}
