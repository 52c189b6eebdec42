package dev.mana.eclipse.core;

import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.JobStatus;
import dev.mana.coordinator.RankInfo;

/**
 * A connection to the coordinator of one job: hosted inside the IDE or joined. All calls block;
 * call them outside the UI thread.
 */
public interface IManaCoordinator extends AutoCloseable {

    /** Where ranks and tools reach it. */
    CoordinatorEndpoint endpoint();

    /** Whether this IDE hosts it (closing it then stops it). */
    boolean isHosted();

    /** The job addressed (its name at the coordinator). */
    String job();

    /** The ranks, as {@code mana_status --list}. */
    List<RankInfo> list() throws IOException;

    /** The job's summary, as {@code mana_status --status}. */
    JobStatus status() throws IOException;

    /**
     * Checkpoints the job and waits until every image is written or the checkpoint fails.
     *
     * @param exit whether the ranks exit after the checkpoint commits ("checkpoint and stop")
     * @param progress told as ranks reach each phase (may be null)
     */
    CheckpointResult checkpoint(boolean exit, Consumer<CheckpointProgress> progress) throws IOException;

    /** Sets the automatic checkpoint interval in seconds (0 = none). */
    void setInterval(int seconds) throws IOException;

    /** Kills every rank of the job. */
    void kill() throws IOException;

    /** Releases the connection; a hosted coordinator stops. */
    @Override
    void close();
}
