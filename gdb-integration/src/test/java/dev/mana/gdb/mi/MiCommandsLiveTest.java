package dev.mana.gdb.mi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.gdb.testsupport.TestProgram;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command classes against the real gdb on the test program run natively: a conditional breakpoint
 * stops only where its condition holds, a watchpoint reports the old and new value, registers come in
 * gdb's groups with rip at the frame's address, memory reads back what a write put there, an instruction
 * step moves the pc within a line, a temporary breakpoint runs to a line, an assignment changes a local.
 */
@Timeout(120)
class MiCommandsLiveTest {
    private static final Duration T = Duration.ofSeconds(30);
    @TempDir
    static Path tmp;
    static TestProgram prog;

    @BeforeAll
    static void build() throws Exception {
        prog = TestProgram.build(tmp.resolve("prog"));
    }

    private static GdbEvent.Stopped go(GdbMi gdb, String command) throws MiException {
        CompletableFuture<GdbEvent.Stopped> stop = gdb.expect(GdbEvent.Stopped.class, s -> true);
        gdb.execute(command);
        return gdb.await(stop, T, "stop after " + command);
    }

    /**
     * A condition with a string literal reaches gdb whole: sent bare (as before MiBreakCondition), gdb
     * split it at spaces and rejoined the words with one space, so the condition became
     * {@code sizeof("a b") == 5}, false.
     */
    @Test
    void aConditionWithAStringLiteral() throws Exception {
        try (GdbMi gdb = GdbMi.start(GdbMi.Options.defaults().withKillOnClose(true))) {
            gdb.execute("-file-exec-and-symbols " + prog.app);
            String bp = BreakInsert.at("main").insert(gdb);
            String condition = "sizeof(\"a  b\") == 5";
            gdb.execute(BreakInsert.conditionCommand(bp, condition));
            MiTuple info = gdb.execute("-break-info " + bp).results().getTuple("BreakpointTable");
            assertEquals(condition, info.getList("body").get(0).asTuple().getString("cond"));
            gdb.execute(BreakInsert.conditionCommand(bp, null));
            info = gdb.execute("-break-info " + bp).results().getTuple("BreakpointTable");
            assertEquals(null, info.getList("body").get(0).asTuple().getString("cond"));
        }
    }

    @Test
    void depthCommandsOnARunningProgram() throws Exception {
        try (GdbMi gdb = GdbMi.start(GdbMi.Options.defaults().withKillOnClose(true))) {
            gdb.execute("-file-exec-and-symbols " + prog.app);
            gdb.execute("-exec-arguments 40 0");
            String src = prog.dir.resolve("splitapp.c").toString();
            String bp = BreakInsert.at(src + ":20").withCondition("i % 7 == 3").insert(gdb);
            GdbEvent.Stopped s = go(gdb, "-exec-run");
            assertEquals(bp, Watch.stoppedBy(s));
            assertEquals("3", Expressions.evaluate(gdb, "1", 0, "i"));
            s = go(gdb, "-exec-continue");
            assertEquals("10", Expressions.evaluate(gdb, "1", 0, "i"), "the condition skipped i = 4..9");
            MiException noFile = assertThrows(MiException.class, () -> BreakInsert.at("/no/such/file.c:3").insert(gdb));
            assertTrue(noFile.getMessage().contains("No source file named"), noFile.getMessage());

            // registers: gdb's groups; rip is the frame's pc
            List<Registers.Group> groups = Registers.groups(gdb);
            Registers.Group general = groups.stream().filter(g -> g.name().equals("general")).findFirst().orElseThrow();
            assertTrue(general.registers().containsAll(List.of("rax", "rsp", "rip", "eflags")), general.toString());
            assertTrue(groups.stream().anyMatch(g -> g.name().equals("float")), groups.toString());
            List<String> names = Registers.names(gdb);
            int rip = names.indexOf("rip");
            Map<Integer, String> values = Registers.values(gdb, "1", 0, List.of(rip));
            assertEquals(Long.decode(s.frame().getString("addr")), Long.decode(values.get(rip)));

            // the disassembly of the frame's function holds the pc, named after_step+offset
            long pc = Long.decode(s.frame().getString("addr"));
            List<Disassembly.Instruction> code = Disassembly.around(gdb, pc);
            Disassembly.Instruction atPc = code.get(Disassembly.indexOf(code, pc));
            assertEquals(pc, atPc.address(), code.toString());
            assertEquals("after_step", atPc.function());
            assertFalse(atPc.opcodes().isBlank(), atPc.toString());
            assertEquals("after_step", code.get(0).function());
            assertEquals(0, code.get(0).offset());

            // an instruction step stays on the line, moves the pc to the next instruction
            GdbEvent.Stopped si = go(gdb, Stepping.OVER.byInstruction().command("1"));
            assertEquals("end-stepping-range", si.reason());
            assertEquals("20", si.frame().getString("line"));
            assertNotEquals(s.frame().getString("addr"), si.frame().getString("addr"));
            int next = Disassembly.indexOf(code, pc) + 1;
            if (!atPc.text().startsWith("call")) {
                assertEquals(code.get(next).address(), (long) Long.decode(si.frame().getString("addr")));
            }
            // an address no function contains (the stack): the bytes from it on, decoded, without a function
            long sp = Expressions.address(gdb, "1", 0, "$sp");
            List<Disassembly.Instruction> fromSp = Disassembly.around(gdb, sp);
            assertEquals(sp, fromSp.get(0).address());
            assertTrue(fromSp.stream().allMatch(x -> x.function() == null), fromSp.toString());

            // memory: iteration as bytes, a write read back through the program's own variable
            long at = Expressions.address(gdb, "1", 0, "&iteration");
            Memory.Block b = Memory.read(gdb, at, 8);
            assertTrue(b.allReadable());
            assertEquals(10L, ByteBuffer.wrap(b.bytes()).order(ByteOrder.LITTLE_ENDIAN).getLong());
            Memory.write(gdb, at, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(77).array());
            assertEquals("77", Expressions.evaluate(gdb, "1", 0, "iteration"));
            Memory.write(gdb, at, b.bytes());
            assertTrue(!Memory.read(gdb, 0, 16).allReadable(), "page 0 reads as unreadable, not as an error");

            // a local assigned through a variable object; a register through an expression
            String vo = gdb.execute("-var-create --thread 1 --frame 0 - * acc").results().getString("name");
            String acc = Expressions.evaluate(gdb, "1", 0, "acc");
            assertEquals("12345", Expressions.assign(gdb, vo, "12345"));
            assertEquals("12345", Expressions.evaluate(gdb, "1", 0, "acc"));
            assertEquals(acc, Expressions.assign(gdb, vo, acc));
            String rax = Expressions.evaluate(gdb, "1", 0, "$rax");
            assertEquals("99", Registers.write(gdb, "1", 0, "rax", "99"));
            Registers.write(gdb, "1", 0, "rax", rax);

            // a watchpoint: the next write to iteration reports old and new value
            gdb.execute("-break-delete " + bp);
            // software watchpoints: the test VMs' hypervisor (Firecracker, PVM) accepts the debug registers
            // but never delivers their traps, so a hardware watchpoint is inserted and never fires there
            gdb.execute("-gdb-set can-use-hw-watchpoints 0");
            String wp = new Watch("iteration", Watch.Kind.WRITE).insert(gdb);
            GdbEvent.Stopped w = go(gdb, "-exec-continue");
            assertEquals("watchpoint-trigger", w.reason());
            assertEquals(wp, Watch.stoppedBy(w));
            assertEquals("10", w.record().results().getTuple("value").getString("old"));
            assertEquals("11", w.record().results().getTuple("value").getString("new"));
            gdb.execute("-break-delete " + wp);

            // run to a line: a temporary breakpoint, gone after its stop
            BreakInsert.at(src + ":47").asTemporary().insert(gdb);
            GdbEvent.Stopped to = go(gdb, "-exec-continue");
            assertEquals("47", to.frame().getString("line"));
            assertTrue(gdb.execute("-break-list").results().getTuple("BreakpointTable").getList("body").isEmpty());
        }
    }
}
