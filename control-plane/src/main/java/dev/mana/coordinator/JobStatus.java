package dev.mana.coordinator;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Summary of one job, as {@code mana_status --status} shows it.
 *
 * @param nranks              world size (0 before the first rank registered)
 * @param connected           ranks connected now
 * @param generation          latest committed checkpoint generation (0 = none)
 * @param lastCheckpointUnixMs end of the latest committed checkpoint (0 = none)
 * @param intervalSeconds     interval checkpoints (0 = off)
 * @param refused             ranks refused at registration during this run of the job (each blocks its
 *                            checkpoints, see {@link RefusedRank}); empty from a coordinator that predates them
 */
public record JobStatus(String job, int nranks, int connected, int generation, boolean checkpointing,
                        long lastCheckpointUnixMs, long lastCheckpointNanos, long lastCheckpointBytes,
                        String lastCheckpointDir, int intervalSeconds, List<RefusedRank> refused) {

    public JobStatus { refused = List.copyOf(refused); }

    /** A status with no refused rank. */
    public JobStatus(String job, int nranks, int connected, int generation, boolean checkpointing,
                     long lastCheckpointUnixMs, long lastCheckpointNanos, long lastCheckpointBytes,
                     String lastCheckpointDir, int intervalSeconds) {
        this(job, nranks, connected, generation, checkpointing, lastCheckpointUnixMs, lastCheckpointNanos,
                lastCheckpointBytes, lastCheckpointDir, intervalSeconds, List.of());
    }

    public Optional<Instant> lastCheckpointTime() {
        return lastCheckpointUnixMs == 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(lastCheckpointUnixMs));
    }
}
