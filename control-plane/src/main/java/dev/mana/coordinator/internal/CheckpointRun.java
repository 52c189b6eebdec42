package dev.mana.coordinator.internal;

import java.util.ArrayList;
import java.util.List;

/** The checkpoint of a job in progress: its generation, who waits for it, what the ranks wrote. */
final class CheckpointRun {
    final int generation;
    final boolean exitAfter;
    final long startNs;
    final List<CheckpointWaiter> waiters = new ArrayList<>(1);
    long totalBytes;
    long lastProgressNs;

    CheckpointRun(int generation, boolean exitAfter, long startNs) {
        this.generation = generation;
        this.exitAfter = exitAfter;
        this.startNs = startNs;
    }
}
