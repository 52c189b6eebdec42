package dev.mana.coordinator.internal;

import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.RankState;

/** One rank of a job: where it runs, its state, and the connection that carries it. */
final class Slot {
    final Job job;
    final int rank;
    CoordinatorState.Session conn;
    String host, mpi, ckptdir, program;
    int pid, generation, clientId;
    RankState state;
    boolean live = true;
    int byeReason = -1;

    Slot(Job job, int rank) {
        this.job = job;
        this.rank = rank;
    }

    RankInfo info() {
        return new RankInfo(job.name, rank, host, pid, state, generation, mpi, clientId, program, ckptdir);
    }
}
