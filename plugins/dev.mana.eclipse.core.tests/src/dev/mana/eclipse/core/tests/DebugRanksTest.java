package dev.mana.eclipse.core.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.core.DebugRanks;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The ranks to debug: lists, ranges, "all" (what Debug As sets), and the limit. */
class DebugRanksTest {
    @Test
    void listsAllAndLimits() {
        assertEquals(Set.of(0), DebugRanks.parse("", 4));
        assertEquals(Set.of(0, 3), DebugRanks.parse("0, 3", 4));
        assertEquals(Set.of(0, 1, 2, 3), DebugRanks.parse("all", 4));
        assertEquals(Set.of(0, 1), DebugRanks.parse(" ALL ", 2));
        IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
                () -> DebugRanks.parse("all", DebugRanks.MAX + 1));
        assertTrue(tooMany.getMessage().contains("list the ranks to debug"), tooMany.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DebugRanks.parse("4", 4));
        assertThrows(IllegalArgumentException.class, () -> DebugRanks.parse("zero", 4));
        // rank sets as ranges; more than 16 ranks of a large job
        assertEquals(Set.of(0, 1, 2, 3, 8), DebugRanks.parse("0-3,8", 16));
        assertEquals(Set.of(2), DebugRanks.parse("2-2", 4));
        assertEquals(40, DebugRanks.parse("0-39", 128).size());
        assertEquals(DebugRanks.MAX, DebugRanks.parse("all", DebugRanks.MAX).size());
        assertTrue(DebugRanks.MAX > 16);
        assertEquals("rank 9 to debug is not in the job (0-7)",
                assertThrows(IllegalArgumentException.class, () -> DebugRanks.parse("4-9", 8)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DebugRanks.parse("3-1", 8)).getMessage()
                .contains("is empty"));
        assertThrows(IllegalArgumentException.class, () -> DebugRanks.parse("1-2-3", 8));
        assertThrows(IllegalArgumentException.class, () -> DebugRanks.parse("-1", 8));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> DebugRanks.parse("0-" + DebugRanks.MAX, DebugRanks.MAX + 1)).getMessage().contains("at most"));
    }
}
