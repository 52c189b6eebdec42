package dev.mana.coordinator.internal;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** One job (a run of one MPI program) as the coordinator keeps it: its ranks, records and checkpoints. */
final class Job {
    /** A KV_GET with wait, answered by the PUT of its key. */
    record KvWaiter(CoordinatorState.Session conn, int requestId) {}

    final String name;
    int nranks;
    Slot[] slots;
    int live;
    int generation;
    int lastAttempted;
    CheckpointRun ckpt;
    final Map<Long, PendingCollective> collectives = new HashMap<>();
    final Map<String, byte[]> kv = new HashMap<>();
    final Map<String, List<KvWaiter>> kvWaiters = new HashMap<>();
    long kvBytes;
    long lastCkptUnixMs, lastCkptNs, lastCkptBytes;
    String lastCkptDir = "";
    long nextIntervalNs;

    Job(String name) { this.name = name; }

    void reset(int n) {
        nranks = n;
        slots = new Slot[n];
        live = 0;
        generation = 0;
        lastAttempted = 0;
        ckpt = null;
        collectives.clear();
        kv.clear();
        kvWaiters.clear();
        kvBytes = 0;
        lastCkptUnixMs = lastCkptNs = lastCkptBytes = 0;
        lastCkptDir = "";
        nextIntervalNs = 0;
    }
}
