package dev.mana.coordinator.internal;

import dev.mana.coordinator.RankState;
import dev.mana.coordinator.protocol.ErrorCode;
import dev.mana.coordinator.protocol.Messages.CollectiveDone;
import dev.mana.coordinator.protocol.Messages.ErrorMessage;
import dev.mana.coordinator.protocol.Protocol;
import java.util.ArrayList;

/**
 * The collectives of a job (§4.2): contributions reduced as they come, held until every live rank is in,
 * then one COLLECTIVE_DONE to each waiter (or ERROR MISMATCH to all). A completed checkpoint phase moves
 * the checkpoint on ({@link CheckpointMachine}); a completed resume sets the ranks running.
 */
final class Collectives {
    private final CoordinatorState state;

    Collectives(CoordinatorState state) {
        this.state = state;
    }

    /**
     * One contribution of {@code from} to the collective (generation, phase), already reduced over the
     * live ranks among {@code covered} ({@code n} of them) that {@code from} carries: a rank, or a
     * group's live members. The op is known and a checkpoint phase is the running checkpoint's ({@code ck}).
     */
    void contribute(CoordinatorState.Session from, int id, Job j, CheckpointRun ck, int generation, int phase, int op,
                    long[] values, Slot[] covered, int n) {
        boolean ckptPhase = Protocol.isCheckpointPhase(phase);
        long key = ((long) generation << 16) | phase;
        PendingCollective pc = j.collectives.get(key);
        if (pc == null) {
            pc = new PendingCollective(key, generation, phase, op, values.length, j);
            j.collectives.put(key, pc);
        }
        Slot first = null;
        for (Slot s : covered) {
            if (s.live && s.conn == from) {
                first = s;
                break;
            }
        }
        if (first == null) return; // cannot happen: callers check for a live rank
        boolean group = from.role == Protocol.ROLE_GROUP;
        if (pc.contributed[first.rank]) {
            CoordinatorState.send(from, id, new ErrorMessage(ErrorCode.PROTOCOL, (group ? "group "
                    + from.describeGroup() : "rank " + first.rank) + " is already in collective (" + generation + ", "
                    + phase + ")"));
            return;
        }
        if (pc.op != op || pc.acc.length != values.length) {
            pc.mismatch = true;
        } else {
            pc.add(values);
        }
        RankState st = CheckpointMachine.stateOfPhase(phase);
        boolean setStates = ckptPhase || phase == Protocol.PHASE_RESTARTED || phase == Protocol.PHASE_REFILLED;
        for (Slot s : covered) {
            if (!s.live || s.conn != from) continue;
            pc.contributed[s.rank] = true;
            pc.participated[s.rank] = true;
            if (setStates) state.setState(s, st);
        }
        if (group) {
            pc.groupWaiters.add(new PendingCollective.GroupWaiter(from, id));
        } else {
            pc.waiters[first.rank] = from;
            pc.requestIds[first.rank] = id;
        }
        pc.contributions += n;
        pc.done += n;
        if (ckptPhase) {
            if (pc.mismatch) {
                state.checkpoints.abort(j, "ranks disagree on op or count in phase " + phase);
                return;
            }
            // while the phase fills only: its completion (checkComplete) sends the forced event, and a second
            // "all reached" for the same phase would follow COMMITTED with another COMMITTED
            if (pc.done < j.nranks) state.checkpoints.progress(j, ck, st, pc.contributions, false);
        }
        checkComplete(j, pc);
    }

    /** An exited rank no longer holds up the job's collectives: it counts as in, without a value. */
    void rankGone(Job j, Slot s) {
        for (PendingCollective pc : new ArrayList<>(j.collectives.values())) {
            if (!pc.contributed[s.rank]) {
                pc.contributed[s.rank] = true;
                pc.done++;
                checkComplete(j, pc);
            }
        }
    }

    /** The checkpoint of {@code generation} was aborted: its phases' collectives are dropped, unanswered. */
    void dropCheckpointPhases(Job j, int generation) {
        j.collectives.values().removeIf(pc -> pc.generation == generation && Protocol.isCheckpointPhase(pc.phase));
    }

    private void checkComplete(Job j, PendingCollective pc) {
        if (pc.done < j.nranks || pc.contributions == 0) return;
        j.collectives.remove(pc.key);
        if (pc.mismatch) {
            ErrorMessage e = new ErrorMessage(ErrorCode.MISMATCH, "collective (" + pc.generation + ", " + pc.phase
                    + "): ranks disagree on op or count");
            for (int r = 0; r < j.nranks; r++) {
                CoordinatorState.Session c = pc.waiters[r];
                if (c != null) CoordinatorState.send(c, pc.requestIds[r], e);
            }
            for (PendingCollective.GroupWaiter g : pc.groupWaiters) CoordinatorState.send(g.session(), g.requestId(), e);
            return;
        }
        CheckpointRun ck = j.ckpt;
        boolean ours = ck != null && Protocol.isCheckpointPhase(pc.phase) && pc.generation == ck.generation;
        // committed the moment phase 4 completes: a disconnect while the answers go out must not abort it
        if (ours && pc.phase == Protocol.PHASE_COMMITTED) j.ckpt = null;
        byte[] done = CoordinatorState.encodeBytes(new CollectiveDone(pc.generation, pc.phase, pc.op, pc.acc));
        for (int r = 0; r < j.nranks; r++) {
            CoordinatorState.Session c = pc.waiters[r];
            if (c != null) CoordinatorState.sendTemplate(c, done, pc.requestIds[r]);
        }
        for (PendingCollective.GroupWaiter g : pc.groupWaiters) CoordinatorState.sendTemplate(g.session(), done, g.requestId());
        if (ours) {
            state.checkpoints.progress(j, ck, CheckpointMachine.stateOfPhase(pc.phase), j.nranks, true);
            if (pc.phase == Protocol.PHASE_COMMITTED) state.checkpoints.commit(j, ck);
        } else if (pc.phase == Protocol.PHASE_RESUMED) {
            for (int r = 0; r < j.nranks; r++) {
                Slot s = j.slots[r];
                if (pc.participated[r] && s != null && s.live) state.setState(s, RankState.RUNNING);
            }
            if (j.live == j.nranks) state.scheduleInterval(j);
        }
    }
}
