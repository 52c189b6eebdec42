package dev.mana.gdb.mi.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.MiParser;
import dev.mana.gdb.mi.MiRecord;
import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each command's reading of gdb's answer, on hand-written MI lines. */
class MiCommandResultsTest {

    private static MiResponse done(String line) throws Exception {
        return done(line, "");
    }

    private static MiResponse done(String line, String console) throws Exception {
        return new MiResponse(assertInstanceOf(MiRecord.Result.class, MiParser.parse(line)), console, "");
    }

    @Test
    void breakpointNumbers() throws Exception {
        MiTuple bkpt = MiBreakInsert.symbol("f").result(done("^done,bkpt={number=\"3\",type=\"breakpoint\"}"));
        assertEquals("3", MiBreakInsert.number(bkpt));
        assertThrows(MiException.class, () -> MiBreakInsert.number(MiBreakInsert.symbol("f").result(done("^done"))));
        assertEquals("4", new MiBreakWatch("x", dev.mana.gdb.mi.Watch.Kind.READ)
                .result(done("^done,hw-rwpt={number=\"4\",exp=\"x\"}")));
    }

    @Test
    void valuesAndVariableObjects() throws Exception {
        assertEquals("42", new MiDataEvaluateExpression("x").result(done("^done,value=\"42\"")));
        assertNull(new MiDataEvaluateExpression("x").result(done("^done")));
        assertEquals("7", new MiVarAssign("var1", "7").result(done("^done,value=\"7\"")));
        MiTuple v = new MiVarCreate(null, "s").result(done("^done,name=\"var2\",numchild=\"2\",value=\"{...}\",type=\"struct s\""));
        assertEquals("var2", v.getString("name"));
        List<MiTuple> kids = new MiVarListChildren("var2", 0, 10).result(done("^done,numchild=\"2\",children=["
                + "child={name=\"var2.a\",exp=\"a\",numchild=\"0\",value=\"1\"},"
                + "child={name=\"var2.b\",exp=\"b\",numchild=\"0\",value=\"2\"}],has_more=\"0\""));
        assertEquals(List.of("a", "b"), kids.stream().map(t -> t.getString("exp")).toList());
    }

    @Test
    void stacksThreadsAndLibraries() throws Exception {
        List<MiTuple> frames = new MiStackListFrames("1").result(done("^done,stack=[frame={level=\"0\",addr=\"0x1\","
                + "func=\"lh_restart_pause\"},frame={level=\"1\",addr=\"0x2\",func=\"main\"}]"));
        assertEquals(List.of("lh_restart_pause", "main"), frames.stream().map(f -> f.getString("func")).toList());
        assertEquals(12, new MiStackInfoDepth("1").result(done("^done,depth=\"12\"")));
        assertNull(new MiStackInfoDepth("1").result(done("^done")));
        List<MiTuple> vars = new MiStackListVariables(MiFrame.of(1, 0)).result(
                done("^done,variables=[{name=\"argc\",arg=\"1\"},{name=\"i\"}]"));
        assertEquals("1", vars.get(0).getString("arg"));
        List<MiTuple> threads = new MiThreadInfo().result(done("^done,threads=[{id=\"1\",target-id=\"Thread 1\","
                + "frame={level=\"0\",func=\"nanosleep\"},state=\"stopped\"}],current-thread-id=\"1\""));
        assertEquals("nanosleep", threads.get(0).path("frame", "func"));
        List<MiFileListSharedLibraries.Library> libs = new MiFileListSharedLibraries().result(done(
                "^done,shared-libraries=[{id=\"/lib/libc.so.6\",target-name=\"/lib/libc.so.6\","
                        + "host-name=\"/lib/libc.so.6\",ranges=[{from=\"0x00007f0000028000\",to=\"0x00007f00001bd000\"}]},"
                        + "{id=\"x\",host-name=\"/h/x.so\",ranges=[]}]"));
        assertEquals(new MiFileListSharedLibraries.Library("/lib/libc.so.6", List.of(0x7f0000028000L)), libs.get(0));
        assertEquals(new MiFileListSharedLibraries.Library("/h/x.so", List.of()), libs.get(1));
    }

    @Test
    void registersMemoryAndDisassembly() throws Exception {
        assertEquals(List.of("rax", "", "rcx"), new MiDataListRegisterNames()
                .result(done("^done,register-names=[\"rax\",\"\",\"rcx\"]")));
        assertEquals(java.util.Map.of(0, "0x1c"), new MiDataListRegisterValues(MiFrame.top("1"), List.of(0))
                .result(done("^done,register-values=[{number=\"0\",value=\"0x1c\"}]")));
        var block = new MiDataReadMemoryBytes(0x1000, 4).result(done("^done,memory=[{begin=\"0x1002\",offset=\"0x0\","
                + "end=\"0x1004\",contents=\"abcd\"}]"));
        assertEquals(List.of(false, false, true, true), List.of(block.readable()[0], block.readable()[1],
                block.readable()[2], block.readable()[3]));
        var insns = MiDataDisassemble.function(0x10).result(done("^done,asm_insns=[{address=\"0x10\",func-name=\"f\","
                + "offset=\"0\",opcodes=\"c3\",inst=\"ret\"}]"));
        assertEquals("f+0", insns.get(0).location());
        var groups = new CliMaintPrintRegisterGroups().result(done("^done", """
                 Name         Nr  Rel Offset    Size  Type            Groups
                 rax           0    0      0       8 int64_t         general,all,save,restore
                """));
        assertEquals(List.of("rax"), groups.get(0).registers());
    }
}
