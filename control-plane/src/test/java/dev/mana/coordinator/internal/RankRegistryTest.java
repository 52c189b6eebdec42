package dev.mana.coordinator.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.coordinator.CoordinatorException;
import dev.mana.coordinator.RankState;
import dev.mana.coordinator.RefusedRank;
import dev.mana.coordinator.protocol.Messages.GroupMember;
import org.junit.jupiter.api.Test;

/** The rank registry alone: which job a name means, registration, and refused ranks. */
class RankRegistryTest {
    final RankRegistry reg = new RankRegistry();

    private Job job(String name, int nranks) {
        Job j = new Job(name);
        j.reset(nranks);
        reg.jobs.put(name, j);
        return j;
    }

    private static GroupMember member(int rank, String host, int pid, int generation, boolean restarting) {
        return new GroupMember(rank, host, pid, "mpich", generation, restarting, "/ck", "/bin/prog");
    }

    @Test
    void anEmptyNameMeansTheOnlyJobOrTheOnlyLiveOne() {
        assertNull(reg.resolve(""));
        assertNull(reg.resolveOrThrow(""), "no job yet, none named");
        Job a = job("a", 1);
        assertSame(a, reg.resolve(""));
        Job b = job("b", 1);
        assertNull(reg.resolve(""), "two jobs, none live");
        reg.register(b, member(0, "n1", 10, 0, false), null, 1);
        assertSame(b, reg.resolve(""), "the only one with a live rank");
        reg.register(a, member(0, "n1", 11, 0, false), null, 2);
        assertNull(reg.resolve(""));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> reg.resolveOrThrow(""));
        assertEquals("several jobs (a, b): name one", e.getCause().getMessage());
        assertSame(a, reg.resolve("a"));
        e = assertThrows(IllegalStateException.class, () -> reg.resolveOrThrow("c"));
        assertTrue(e.getCause() instanceof CoordinatorException);
        assertEquals("no job named 'c'", e.getCause().getMessage());
        assertEquals(2, reg.totalLive());
    }

    @Test
    void registrationFillsTheSlotAndRaisesTheGeneration() {
        Job j = job("a", 2);
        j.generation = 3;
        Slot s = reg.register(j, member(1, "n2", 42, 5, true), null, 7);
        assertSame(s, j.slots[1]);
        assertEquals(1, j.live);
        assertEquals(5, j.generation, "a restarted rank brings the generation it committed");
        assertEquals(RankState.RESTARTING, s.state);
        assertEquals(7, s.clientId);
        assertEquals("n2", s.info().host());
        reg.register(j, member(0, "n2", 43, 1, false), null, 8);
        assertEquals(5, j.generation, "never lowered");
    }

    @Test
    void refusalsAreKeptByNameCountedBeyond64AndTakenBackByTheSameProcess() {
        assertNull(reg.refusalText("a"));
        RefusedRank r = new RefusedRank(1, 2, "n1", 42, "rank 1 outside 0..0");
        assertTrue(reg.refused("a", r));
        assertFalse(reg.refused("a", r), "the same refusal again");
        assertTrue(reg.hasRefusals("a"), "before the job has a rank");
        assertNull(reg.resolveOrThrow("a"), "a name with only a refused rank is no error");
        assertEquals("job 'a' has a rank the coordinator refused at registration: rank 1 (pid 42 on n1): rank 1 "
                + "outside 0..0; it runs without checkpoints, so a checkpoint would miss it (mana_status --list shows it)",
                reg.refusalText("a"));
        for (int i = 0; i < 70; i++) reg.refused("a", new RefusedRank(1, 2, "n1", 1000 + i, "again"));
        assertEquals(64, reg.refusedRanks("a").size());
        assertTrue(reg.refusalText("a").contains("(and 70 more refused)"), reg.refusalText("a"));
        reg.register(job("a", 2), member(0, "n1", 42, 0, false), null, 1);
        assertEquals(63, reg.refusedRanks("a").size(), "pid 42 on n1 registered after all");
        reg.runEnded("a");
        assertFalse(reg.hasRefusals("a"));
        assertEquals(0, reg.refusedRanks("a").size());
    }
}
