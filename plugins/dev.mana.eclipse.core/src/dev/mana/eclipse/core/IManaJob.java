package dev.mana.eclipse.core;

import java.io.File;
import java.util.List;
import java.util.function.Consumer;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.ILaunch;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.JobStatus;
import dev.mana.coordinator.RankInfo;

/**
 * A MANA job started by a launch: its ranks at the coordinator, its checkpoints, and the actions on
 * it. Obtain jobs from {@link ManaJobs}.
 */
public interface IManaJob {

    /** The launch that started it. */
    ILaunch getLaunch();

    /** A name for people: the launch configuration's name. */
    String getName();

    /** What it was launched with. */
    ManaJobSettings getSettings();

    /** Its coordinator. */
    IManaCoordinator getCoordinator();

    /** The ranks as last seen (refreshed about once a second while the job runs). */
    List<RankInfo> getRanks();

    /** The job's summary as last seen, or null before the first answer. */
    JobStatus getStatus();

    /** The last checkpoint this IDE saw complete, or null. */
    CheckpointResult getLastCheckpoint();

    /** Where its checkpoints go. */
    File getCheckpointDirectory();

    /** Whether it has ended. */
    boolean isTerminated();

    /** Whether it is restarting from a checkpoint (launched with mana_restart). */
    boolean isRestart();

    /**
     * Checkpoints the job and waits for the result; blocks, so run it in a job.
     *
     * @param stop whether the ranks exit once the checkpoint is written ("Checkpoint and stop")
     * @param progress told as ranks reach each phase (may be null)
     * @throws CoreException when the coordinator cannot be reached; a refused or failed checkpoint
     *         is a result with {@code ok == false}
     */
    CheckpointResult checkpoint(boolean stop, Consumer<CheckpointProgress> progress) throws CoreException;

    /** Writes a line from the IDE into the job's console (prefixed {@code [mana]}). */
    void log(String line);
}
