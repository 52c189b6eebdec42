package dev.mana.coordinator.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.coordinator.RankState;
import dev.mana.coordinator.protocol.Protocol;
import org.junit.jupiter.api.Test;

/** A collective's reduction and its count of ranks in, and the rank state each phase means. */
class PendingCollectiveTest {
    private static Job job(int nranks) {
        Job j = new Job("a");
        j.reset(nranks);
        return j;
    }

    private static long[] reduce(int op, long[]... values) {
        PendingCollective pc = new PendingCollective(1, 1, 64, op, values[0].length, job(values.length));
        for (long[] v : values) pc.add(v);
        return pc.acc;
    }

    @Test
    void everyOpReducesElementWise() {
        long[] a = {1, -5, 6};
        long[] b = {2, 7, 3};
        assertArrayEquals(new long[] {3, 2, 9}, reduce(Protocol.OP_SUM, a, b));
        assertArrayEquals(new long[] {2, 7, 6}, reduce(Protocol.OP_MAX, a, b));
        assertArrayEquals(new long[] {1, -5, 3}, reduce(Protocol.OP_MIN, a, b));
        assertArrayEquals(new long[] {3, -5 | 7, 7}, reduce(Protocol.OP_OR, a, b));
        assertArrayEquals(new long[] {Long.MIN_VALUE}, reduce(Protocol.OP_MAX, new long[][] {{Long.MIN_VALUE}}));
        assertArrayEquals(new long[0], reduce(Protocol.OP_BARRIER, new long[0], new long[0]));
    }

    @Test
    void anExitedRankCountsAsInFromTheStart() {
        Job j = job(3);
        Slot gone = new Slot(j, 1);
        gone.live = false;
        j.slots[1] = gone;
        j.slots[0] = new Slot(j, 0);
        PendingCollective pc = new PendingCollective(1, 1, 64, Protocol.OP_SUM, 1, j);
        assertEquals(1, pc.done);
        assertTrue(pc.contributed[1]);
        assertFalse(pc.contributed[0]);
        assertFalse(pc.contributed[2], "a rank not registered yet holds it up");
        assertEquals(0, pc.contributions);
    }

    @Test
    void phasesMapToRankStates() {
        assertEquals(RankState.SUSPENDED, CheckpointMachine.stateOfPhase(Protocol.PHASE_SUSPENDED));
        assertEquals(RankState.DRAINED, CheckpointMachine.stateOfPhase(Protocol.PHASE_DRAINED));
        assertEquals(RankState.DRAINED, CheckpointMachine.stateOfPhase(Protocol.PHASE_DRAIN_FIRST));
        assertEquals(RankState.CHECKPOINTED, CheckpointMachine.stateOfPhase(Protocol.PHASE_CHECKPOINTED));
        assertEquals(RankState.COMMITTED, CheckpointMachine.stateOfPhase(Protocol.PHASE_COMMITTED));
        assertEquals(RankState.RESTARTING, CheckpointMachine.stateOfPhase(Protocol.PHASE_RESTARTED));
        assertEquals(RankState.RESTARTING, CheckpointMachine.stateOfPhase(Protocol.PHASE_REFILLED));
        assertEquals(RankState.RUNNING, CheckpointMachine.stateOfPhase(Protocol.PHASE_RESUMED));
        assertNull(CheckpointMachine.stateOfPhase(64), "a free phase changes no state");
    }
}
