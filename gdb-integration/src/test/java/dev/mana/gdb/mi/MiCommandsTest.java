package dev.mana.gdb.mi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The command classes' text and their reading of gdb's answers, on hand-written MI lines. */
class MiCommandsTest {

    private static MiTuple results(String line) throws MiParseException {
        return assertInstanceOf(MiRecord.Result.class, MiParser.parse(line)).results();
    }

    private static GdbEvent.Stopped stopped(String line) throws MiParseException {
        return assertInstanceOf(GdbEvent.Stopped.class,
                GdbEvent.of(assertInstanceOf(MiRecord.Async.class, MiParser.parse(line))));
    }

    @Test
    void breakInsertCommandQuotesConditionAndLocation() throws Exception {
        assertEquals("-break-insert \"/tmp/a b/app.c:20\"", BreakInsert.at("/tmp/a b/app.c:20").command());
        assertEquals("-break-insert -t -f -c \"i % 7 == 3\" -i 2 \"main\"",
                BreakInsert.at("main").withCondition(" i % 7 == 3 ").withIgnoreCount(2).asTemporary().asPending()
                        .command());
        assertEquals("-break-insert \"f\"", BreakInsert.at("f").withCondition("  ").command());
        assertThrows(IllegalArgumentException.class, () -> BreakInsert.at(" "));
        assertThrows(IllegalArgumentException.class, () -> BreakInsert.at("f").withIgnoreCount(-1));
        assertEquals("3", BreakInsert.number(results("^done,bkpt={number=\"3\",type=\"breakpoint\",cond=\"i > 2\"}")));
        assertThrows(MiException.class, () -> BreakInsert.number(results("^done")));
        // one c-string since MiBreakCondition (bare, gdb split it into words and mangled string literals)
        assertEquals("-break-condition 3 \"i > 2\"", BreakInsert.conditionCommand("3", " i > 2"));
        assertEquals("-break-condition 3", BreakInsert.conditionCommand("3", null));
    }

    @Test
    void watchCommandsAndTheNumberEachKindAnswersWith() throws Exception {
        assertEquals("-break-watch \"iteration\"", new Watch("iteration", Watch.Kind.WRITE).command());
        assertEquals("-break-watch -r \"*(long *) 0x10\"", new Watch("*(long *) 0x10", Watch.Kind.READ).command());
        assertEquals("-break-watch -a \"x\"", new Watch("x", Watch.Kind.ACCESS).command());
        assertEquals("2", Watch.number(results("^done,wpt={number=\"2\",exp=\"iteration\"}")));
        assertEquals("4", Watch.number(results("^done,hw-rwpt={number=\"4\",exp=\"x\"}")));
        assertEquals("5", Watch.number(results("^done,hw-awpt={number=\"5\",exp=\"x\"}")));
        assertThrows(IllegalArgumentException.class, () -> new Watch("", Watch.Kind.WRITE));
    }

    @Test
    void whichBreakpointAStopNames() throws Exception {
        assertEquals("1", Watch.stoppedBy(stopped("*stopped,reason=\"breakpoint-hit\",disp=\"keep\",bkptno=\"1\","
                + "frame={func=\"f\"},thread-id=\"1\",stopped-threads=\"all\"")));
        assertEquals("2", Watch.stoppedBy(stopped("*stopped,reason=\"watchpoint-trigger\",wpt={number=\"2\","
                + "exp=\"iteration\"},value={old=\"3\",new=\"4\"},frame={func=\"main\"},thread-id=\"1\"")));
        assertEquals("4", Watch.stoppedBy(stopped("*stopped,reason=\"read-watchpoint-trigger\",hw-rwpt={number=\"4\","
                + "exp=\"x\"},value={value=\"1\"},thread-id=\"1\"")));
        assertEquals("5", Watch.stoppedBy(stopped("*stopped,reason=\"access-watchpoint-trigger\",hw-awpt={number=\"5\","
                + "exp=\"x\"},value={new=\"1\"},thread-id=\"1\"")));
        assertEquals("6", Watch.stoppedBy(stopped("*stopped,reason=\"watchpoint-scope\",wpnum=\"6\",thread-id=\"1\"")));
        assertNull(Watch.stoppedBy(stopped("*stopped,reason=\"end-stepping-range\",thread-id=\"1\"")));
    }

    @Test
    void steppingCommandsByLineAndByInstruction() {
        assertEquals("-exec-next --thread 2", Stepping.OVER.command("2"));
        assertEquals("-exec-step --thread 1", Stepping.INTO.command("1"));
        assertEquals("-exec-finish --thread 1 --frame 0", Stepping.RETURN.command("1"));
        assertEquals("-exec-next-instruction --thread 1", Stepping.OVER.byInstruction().command("1"));
        assertEquals("-exec-step-instruction --thread 1", Stepping.INTO.byInstruction().command("1"));
        assertEquals(Stepping.RETURN, Stepping.RETURN.byInstruction());
    }

    @Test
    void registerGroupsFromGdbsTable() {
        String table = """
                 Name         Nr  Rel Offset    Size  Type            Groups
                 rax           0    0      0       8 int64_t         general,all,save,restore
                 rip          16   16    128       8 *1              general,all,save,restore
                 st0          24   24    164      10 _i387_ext       float,all,save,restore
                 xmm0         40   40    276      16 vec128          save,restore,sse
                 mxcsr        56   56    532       4 i386_mxcsr      vector,all,save,restore,sse
                 ''           57   57    536       0 int0_t
                 fs_base     152  152   2392       8 long            system,save,restore
                 al          155    0   2416       1 int8_t
                """;
        List<Registers.Group> g = Registers.parseGroups(table);
        assertEquals(List.of("general", "float", "sse", "vector", "system"), g.stream().map(Registers.Group::name).toList());
        assertEquals(List.of("rax", "rip"), g.get(0).registers());
        assertEquals(List.of("xmm0", "mxcsr"), g.get(2).registers());
        assertEquals(List.of("mxcsr"), g.get(3).registers());
        assertEquals(List.of("fs_base"), g.get(4).registers());
        assertTrue(Registers.parseGroups("Undefined maintenance command").isEmpty());
    }

    @Test
    void registerValuesCommandAndAnswer() throws Exception {
        assertEquals("-data-list-register-values --thread 1 --frame 0 --skip-unavailable x 0 16",
                Registers.valuesCommand("1", 0, List.of(0, 16)));
        Map<Integer, String> v = Registers.parseValues(results(
                "^done,register-values=[{number=\"0\",value=\"0x1c\"},{number=\"16\",value=\"0x401136\"}]"));
        assertEquals(Map.of(0, "0x1c", 16, "0x401136"), v);
    }

    @Test
    void memoryPiecesWithAGapBetweenThem() throws Exception {
        assertEquals("-data-read-memory-bytes 0x1000 8", Memory.readCommand(0x1000, 8));
        assertEquals("-data-write-memory-bytes 0x1000 01ff", Memory.writeCommand(0x1000, new byte[] {1, (byte) 0xff}));
        Memory.Block b = Memory.parse(results("^done,memory=[{begin=\"0x1000\",offset=\"0x0\",end=\"0x1002\","
                + "contents=\"0102\"},{begin=\"0x1006\",offset=\"0x6\",end=\"0x1008\",contents=\"ff80\"}]"), 0x1000, 8);
        assertArrayEquals(new byte[] {1, 2, 0, 0, 0, 0, (byte) 0xff, (byte) 0x80}, b.bytes());
        assertArrayEquals(new boolean[] {true, true, false, false, false, false, true, true}, b.readable());
        assertFalse(b.allReadable());
    }

    @Test
    void addressesAsGdbPrintsThem() {
        assertEquals(0x4010L, Expressions.parseAddress("(volatile long *) 0x4010 <iteration>"));
        assertEquals(0x4010L, Expressions.parseAddress("0x4010 <main>"));
        assertEquals(42L, Expressions.parseAddress("42"));
        assertNull(Expressions.parseAddress("{1, 2}"));
        assertNull(Expressions.parseAddress("\"text\""));
        assertEquals("-data-evaluate-expression --thread 2 --frame 1 \"a[i]\"", Expressions.evaluateCommand("2", 1, "a[i]"));
        assertEquals("-data-evaluate-expression \"x\"", Expressions.evaluateCommand(null, 0, "x"));
    }
    @Test
    void disassemblyOfAFunctionAndAWindowAroundThePc() throws Exception {
        assertEquals("-data-disassemble -a 0x401130 -- 2", Disassembly.functionCommand(0x401130));
        assertEquals("-data-disassemble -s 0x10 -e 0xb0 -- 2", Disassembly.rangeCommand(0x10, 0xb0));
        List<Disassembly.Instruction> f = Disassembly.parse(results("^done,asm_insns=[{address=\"0x0000000000401129\","
                + "func-name=\"f\",offset=\"0\",opcodes=\"55\",inst=\"push   %rbp\"},{address=\"0x000000000040112a\","
                + "func-name=\"f\",offset=\"1\",opcodes=\"48 89 e5\",inst=\"mov    %rsp,%rbp\"},"
                + "{address=\"0x401130\",opcodes=\"c3\",inst=\"ret\"}]"));
        assertEquals(new Disassembly.Instruction(0x401129, "f", 0, "55", "push   %rbp"), f.get(0));
        assertEquals("f+1", f.get(1).location());
        assertEquals("", f.get(2).location(), "no function: no location");
        assertEquals(-1, f.get(2).offset());
        assertEquals(1, Disassembly.indexOf(f, 0x40112a));
        assertEquals(1, Disassembly.indexOf(f, 0x40112c), "inside an instruction: the one it starts in");
        assertEquals(0, Disassembly.indexOf(f, 0x10));
        // a long function is cut to a window with the pc in its middle, or at an end near the function's ends
        List<Disassembly.Instruction> many = new java.util.ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            many.add(new Disassembly.Instruction(0x1000 + 4L * i, "g", 4L * i, "90", "nop"));
        }
        List<Disassembly.Instruction> w = Disassembly.window(many, 0x1000 + 4 * 500, 100);
        assertEquals(100, w.size());
        assertEquals(50, Disassembly.indexOf(w, 0x1000 + 4 * 500));
        assertEquals(0x1000, Disassembly.window(many, 0x1004, 100).get(0).address());
        assertEquals(0x1000 + 4 * 999, Disassembly.window(many, 0x1000 + 4 * 998, 100).get(99).address());
        assertEquals(f, Disassembly.window(f, 0x401129, 100));
    }
}
