package dev.mana.eclipse.core;

/**
 * A job's summary at the coordinator ({@code mana_status --status}).
 *
 * @param job job name
 * @param ranks world size (0 before the first rank registers)
 * @param connected ranks connected now
 * @param generation latest committed checkpoint generation (0 = none)
 * @param checkpointing whether a checkpoint is running
 * @param lastCheckpointMillis when the last checkpoint committed (ms since the epoch; 0 = none)
 * @param lastCheckpointNanos how long it took
 * @param lastCheckpointBytes total size of its images
 * @param lastCheckpointDirectory where it went
 * @param interval seconds between automatic checkpoints (0 = none)
 */
public record JobStatus(String job, int ranks, int connected, long generation, boolean checkpointing,
        long lastCheckpointMillis, long lastCheckpointNanos, long lastCheckpointBytes, String lastCheckpointDirectory,
        int interval) {}
