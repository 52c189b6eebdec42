package dev.mana.coordinator;

import java.time.Duration;

/**
 * The end of a checkpoint request: committed ({@code ok}) or not, with the reason in {@code message}.
 * A request sent without waiting gets {@code ok} = "started".
 *
 * @param elapsedNanos from the request to the last commit
 * @param totalBytes   sum of the ranks' image sizes
 * @param dir          checkpoint directory (rank 0's)
 */
public record CheckpointResult(String job, boolean ok, int generation, long elapsedNanos, long totalBytes, int ranks,
                               String dir, String message) {

    public Duration elapsed() { return Duration.ofNanos(elapsedNanos); }
}
