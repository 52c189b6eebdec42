package dev.mana.gdb.mi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which CLI commands typed into a debugger's console resume the rank (and so run in the background). */
class CliExecutionTest {
    @Test
    void executionCommandsAndOthers() {
        for (String c : new String[] {"continue", "c", "continue 3", "next", "n 2", "step", "finish", "until 40",
                "advance 50", "stepi", "continue&", "  fg"}) {
            assertTrue(CliExecution.isExecution(c), c);
        }
        for (String c : new String[] {"info threads", "print i", "bt", "set var x = 1", "x/4x $sp", "cd /tmp",
                "ctype", "nosuch", ""}) {
            assertFalse(CliExecution.isExecution(c), c);
        }
    }

    @Test
    void continueAndTheBackground() {
        assertTrue(CliExecution.isContinue("c 3"));
        assertTrue(CliExecution.isContinue("continue&"));
        assertFalse(CliExecution.isContinue("next"));
        assertEquals("continue&", CliExecution.inBackground(" continue "));
        assertEquals("next 2&", CliExecution.inBackground("next 2"));
        assertEquals("step&", CliExecution.inBackground("step&"));
        assertEquals("print i", CliExecution.inBackground("print i"));
    }
}
