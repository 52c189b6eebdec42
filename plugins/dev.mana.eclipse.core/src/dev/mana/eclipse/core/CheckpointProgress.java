package dev.mana.eclipse.core;

import dev.mana.coordinator.RankState;

/**
 * Progress of a running checkpoint: {@code reached} of {@code ranks} ranks are in {@code state}.
 *
 * @param generation the checkpoint's generation
 * @param state SUSPENDED, DRAINED, CHECKPOINTED or COMMITTED
 * @param reached how many ranks reached it
 * @param ranks how many ranks there are
 */
public record CheckpointProgress(long generation, RankState state, int reached, int ranks) {

    /** Position of a state in the checkpoint sequence, 1..4 (0 if unknown). */
    public int phase() {
        return switch (state) {
            case SUSPENDED -> 1;
            case DRAINED -> 2;
            case CHECKPOINTED -> 3;
            case COMMITTED -> 4;
            default -> 0;
        };
    }
}
