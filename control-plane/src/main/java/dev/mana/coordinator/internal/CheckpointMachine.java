package dev.mana.coordinator.internal;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.RankState;
import dev.mana.coordinator.protocol.Messages.CkptAbort;
import dev.mana.coordinator.protocol.Messages.CkptProgress;
import dev.mana.coordinator.protocol.Messages.CkptRequest;
import dev.mana.coordinator.protocol.Messages.CkptResult;
import dev.mana.coordinator.protocol.Protocol;

/**
 * The checkpoint of a job from start to commit or abort (§6): whether one may start, CKPT_REQUEST to
 * the ranks, progress to the waiters, the commit when phase 4 completes, the abort with its reason.
 * The phases themselves are collectives ({@link Collectives}); events, broadcasts, rank states and
 * intervals go through {@link CoordinatorState}.
 */
final class CheckpointMachine {
    private static final long PROGRESS_EVERY_NS = 100_000_000L;

    private final CoordinatorState state;

    CheckpointMachine(CoordinatorState state) {
        this.state = state;
    }

    /** imageFlags: {@link Protocol#IMAGE_FLAGS} of the request, passed on to every rank unchanged. */
    void start(Job j, String name, boolean exitAfter, int imageFlags, CheckpointWaiter waiter, boolean wait) {
        // a refused rank first: it explains "1 of 2 ranks registered" too, and nothing else would stop
        // a checkpoint of the ranks that did register
        String refuse = state.registry.refusalText(j != null ? j.name : name == null || name.isEmpty() ? "default" : name);
        if (refuse != null) {
            // refused below
        } else if (j == null || j.nranks == 0) {
            refuse = "no ranks registered";
        } else if (j.ckpt != null) {
            refuse = "checkpoint already in progress";
        } else if (j.live < j.nranks) {
            refuse = j.live + " of " + j.nranks + " ranks registered";
        } else {
            int restarting = 0;
            for (Slot s : j.slots) if (s.state == RankState.RESTARTING) restarting++;
            if (restarting > 0) refuse = restarting + " of " + j.nranks + " ranks still restarting";
        }
        if (refuse != null) {
            if (waiter != null) {
                waiter.result(new CkptResult(false, j == null ? 0 : j.generation, 0, 0, 0, "", refuse),
                        j == null ? (name == null ? "" : name) : j.name);
            }
            return;
        }
        CheckpointRun ck = new CheckpointRun(Math.max(j.generation, j.lastAttempted) + 1, exitAfter,
                state.now());
        j.ckpt = ck;
        j.lastAttempted = ck.generation;
        j.nextIntervalNs = 0;
        if (waiter != null) {
            if (wait) {
                ck.waiters.add(waiter);
            } else {
                waiter.result(new CkptResult(true, ck.generation, 0, 0, 0, "", "started"), j.name);
            }
        }
        String jobName = j.name;
        state.emit(l -> l.checkpointStarted(jobName, ck.generation, exitAfter));
        int flags = (exitAfter ? Protocol.FLAG_EXIT_AFTER : 0) | (imageFlags & Protocol.IMAGE_FLAGS);
        state.broadcast(j, CoordinatorState.encodeBytes(new CkptRequest(ck.generation, flags, "")));
    }

    /** At most every 100 ms unless forced: progress to the listener and to every waiter. */
    void progress(Job j, CheckpointRun ck, RankState st, int reached, boolean force) {
        long now = state.now();
        if (!force && now - ck.lastProgressNs < PROGRESS_EVERY_NS) return;
        ck.lastProgressNs = now;
        CkptProgress p = new CkptProgress(ck.generation, st.code, reached, j.nranks);
        CheckpointProgress cp = new CheckpointProgress(j.name, ck.generation, st, reached, j.nranks);
        state.emit(l -> l.checkpointProgress(cp));
        for (CheckpointWaiter w : ck.waiters) w.progress(p, j.name);
    }

    /** A rank's image of generation {@code generation} is written: its bytes count, if that checkpoint still runs. */
    void written(Job j, int generation, long imageBytes) {
        CheckpointRun ck = j.ckpt;
        if (ck == null || ck.generation != generation) return;
        ck.totalBytes += imageBytes;
    }

    /** A rank could not write its image of {@code generation}: that checkpoint, if it still runs, is aborted. */
    void failed(Job j, int generation, String why) {
        CheckpointRun ck = j.ckpt;
        if (ck == null || ck.generation != generation) return;
        abort(j, why);
    }

    void commit(Job j, CheckpointRun ck) {
        j.ckpt = null;
        j.generation = ck.generation;
        j.lastCkptUnixMs = System.currentTimeMillis();
        j.lastCkptNs = state.now() - ck.startNs;
        j.lastCkptBytes = ck.totalBytes;
        Slot first = j.slots[0];
        j.lastCkptDir = first == null ? "" : first.ckptdir;
        for (Slot s : j.slots) {
            if (s != null && s.live) {
                s.generation = ck.generation;
                state.setState(s, RankState.RUNNING);
            }
        }
        CkptResult r = new CkptResult(true, ck.generation, j.lastCkptNs, ck.totalBytes, j.nranks, j.lastCkptDir, "");
        state.emit(l -> l.checkpointFinished(toResult(r, j.name)));
        for (CheckpointWaiter w : ck.waiters) w.result(r, j.name);
        state.scheduleInterval(j);
    }

    void abort(Job j, String reason) {
        CheckpointRun ck = j.ckpt;
        if (ck == null) return;
        j.ckpt = null;
        state.collectives.dropCheckpointPhases(j, ck.generation);
        state.broadcast(j, CoordinatorState.encodeBytes(new CkptAbort(ck.generation, reason)));
        for (Slot s : j.slots) if (s != null && s.live) state.setState(s, RankState.RUNNING);
        CkptResult r = new CkptResult(false, ck.generation, state.now() - ck.startNs, 0, j.nranks, "",
                "checkpoint " + ck.generation + " aborted: " + reason);
        state.emit(l -> l.checkpointFinished(toResult(r, j.name)));
        for (CheckpointWaiter w : ck.waiters) w.result(r, j.name);
        state.scheduleInterval(j);
    }

    /** At stop: every waiting checkpoint gets "coordinator stopped". */
    void shutdown(Iterable<Job> jobs) {
        for (Job j : jobs) {
            if (j.ckpt != null) {
                for (CheckpointWaiter w : j.ckpt.waiters) {
                    w.result(new CkptResult(false, j.ckpt.generation, 0, 0, 0, "", "coordinator stopped"), j.name);
                }
            }
        }
    }

    /** The state a rank is in once it has reached {@code phase}; null for a phase that changes none. */
    static RankState stateOfPhase(int phase) {
        switch (phase) {
            case Protocol.PHASE_SUSPENDED: return RankState.SUSPENDED;
            case Protocol.PHASE_CHECKPOINTED: return RankState.CHECKPOINTED;
            case Protocol.PHASE_COMMITTED: return RankState.COMMITTED;
            case Protocol.PHASE_RESTARTED: case Protocol.PHASE_REFILLED: return RankState.RESTARTING;
            case Protocol.PHASE_RESUMED: return RankState.RUNNING;
            default:
                return phase == Protocol.PHASE_DRAINED
                        || (phase >= Protocol.PHASE_DRAIN_FIRST && phase <= Protocol.PHASE_DRAIN_LAST)
                        ? RankState.DRAINED : null;
        }
    }

    static CheckpointResult toResult(CkptResult r, String job) {
        return new CheckpointResult(job, r.ok(), r.generation(), r.elapsedNs(), r.totalBytes(), r.ranks(), r.dir(),
                r.message());
    }
}
