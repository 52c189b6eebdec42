package dev.mana.dap.session;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which commands typed as {@code -exec CMD} in the debug console resume the rank (and so run in the background). */
class ConsoleCommandTest {
    @Test
    void executionCommandsAndOthers() {
        for (String c : new String[] {"continue", "c", "continue 3", "next", "n 2", "step", "finish", "until 40",
                "advance 50", "stepi", "continue&"}) {
            assertTrue(RankSession.isExecutionCommand(c), c);
        }
        for (String c : new String[] {"info threads", "print i", "bt", "set var x = 1", "x/4x $sp", "cd /tmp",
                "ctype", "nosuch"}) {
            assertFalse(RankSession.isExecutionCommand(c), c);
        }
    }
}
