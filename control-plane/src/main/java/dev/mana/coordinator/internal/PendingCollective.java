package dev.mana.coordinator.internal;

import dev.mana.coordinator.protocol.Protocol;
import java.util.ArrayList;
import java.util.List;

/** One collective (generation, phase) of a job until every live rank is in: the reduction so far and who waits. */
final class PendingCollective {
    /** A group connection waiting for a collective: one COLLECTIVE_DONE for all its members. */
    record GroupWaiter(CoordinatorState.Session session, int requestId) {}

    final long key;
    final int generation, phase, op;
    final long[] acc;
    final boolean[] contributed;
    final CoordinatorState.Session[] waiters;          // per-rank connections, by rank
    final int[] requestIds;
    final boolean[] participated;  // covered by a contribution (of its own or of its group)
    final List<GroupWaiter> groupWaiters = new ArrayList<>(0);
    int contributions, done;       // both counted in ranks
    boolean mismatch;

    PendingCollective(long key, int generation, int phase, int op, int count, Job j) {
        this.key = key;
        this.generation = generation;
        this.phase = phase;
        this.op = op;
        this.acc = new long[count];
        long init = op == Protocol.OP_MAX ? Long.MIN_VALUE : op == Protocol.OP_MIN ? Long.MAX_VALUE : 0;
        java.util.Arrays.fill(acc, init);
        this.contributed = new boolean[j.nranks];
        this.waiters = new CoordinatorState.Session[j.nranks];
        this.requestIds = new int[j.nranks];
        this.participated = new boolean[j.nranks];
        for (int r = 0; r < j.nranks; r++) {
            Slot s = j.slots[r];
            if (s != null && !s.live) {
                contributed[r] = true;
                done++;
            }
        }
    }

    void add(long[] v) {
        switch (op) {
            case Protocol.OP_SUM: for (int i = 0; i < v.length; i++) acc[i] += v[i]; break;
            case Protocol.OP_MAX: for (int i = 0; i < v.length; i++) acc[i] = Math.max(acc[i], v[i]); break;
            case Protocol.OP_MIN: for (int i = 0; i < v.length; i++) acc[i] = Math.min(acc[i], v[i]); break;
            case Protocol.OP_OR: for (int i = 0; i < v.length; i++) acc[i] |= v[i]; break;
            default: break;
        }
    }
}
