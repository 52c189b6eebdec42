package dev.mana.coordinator;

/**
 * Events of an in-process {@link Coordinator}. Called in order on one event thread (never the I/O
 * thread), so a slow listener delays other listeners' events but never the ranks.
 */
public interface CoordinatorListener {
    /** A job got its first rank (or started afresh after all its ranks had exited). */
    default void jobStarted(String job, int nranks) {}

    default void rankRegistered(RankInfo rank) {}

    /** A rank's state changed; also fires for EXITED (see {@link #rankExited}). */
    default void rankStateChanged(RankInfo rank, RankState previous) {}

    /** A rank said BYE or disconnected. */
    default void rankExited(RankInfo rank, String reason) {}

    default void checkpointStarted(String job, int generation, boolean exitAfter) {}

    default void checkpointProgress(CheckpointProgress progress) {}

    /** Committed (ok) or aborted. */
    default void checkpointFinished(CheckpointResult result) {}

    /** A connection was refused or dropped for a protocol error (wrong secret, garbage, ...). */
    default void clientRejected(String remote, String reason) {}

    /** The coordinator stopped (quit, exit-on-last, close, or an I/O failure). */
    default void stopped(String reason) {}
}
