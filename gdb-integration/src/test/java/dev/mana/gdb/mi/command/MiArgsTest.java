package dev.mana.gdb.mi.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Quoting of arguments as gdb's MI parser splits a command line. */
class MiArgsTest {

    @Test
    void quoteMakesACStringOfAnything() {
        assertEquals("\"x\"", MiArgs.quote("x"));
        assertEquals("\"/tmp/a b/it's \\\"q\\\".c\"", MiArgs.quote("/tmp/a b/it's \"q\".c"));
        assertEquals("\"s == \\\"a\\\\b\\\"\"", MiArgs.quote("s == \"a\\b\""));
        assertEquals("\"a\\tb\\nc\\001\"", MiArgs.quote("a\tb\nc\u0001"));
        assertEquals("\"\"", MiArgs.quote(""));
    }

    @Test
    void wordStaysBareWhereGdbReadsItBackAsOneWord() {
        assertEquals("lh_record_ranges", MiArgs.word("lh_record_ranges"));
        assertEquals("*0x401000", MiArgs.word("*0x401000"));
        assertEquals("var1.x", MiArgs.word("var1.x"));
        assertEquals("var1.1_anonymous", MiArgs.word("var1.1_anonymous"));
        assertEquals("\"/tmp/a b\"", MiArgs.word("/tmp/a b"));
        assertEquals("\"a\\\"b\"", MiArgs.word("a\"b"));
        assertEquals("\"a\\\\b\"", MiArgs.word("a\\b"));
        assertEquals("\"\"", MiArgs.word(""));
    }
}
