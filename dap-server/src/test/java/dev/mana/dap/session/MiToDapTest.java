package dev.mana.dap.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.MiParser;
import dev.mana.gdb.mi.MiRecord;
import dev.mana.gdb.mi.MiTuple;
import org.eclipse.lsp4j.debug.Breakpoint;
import org.eclipse.lsp4j.debug.BreakpointNotVerifiedReason;
import org.eclipse.lsp4j.debug.StoppedEventArgumentsReason;
import org.eclipse.lsp4j.debug.Thread;
import org.eclipse.lsp4j.debug.Variable;
import org.junit.jupiter.api.Test;

/** The translation of GDB/MI records (as gdb 13 writes them) into DAP types, without gdb. */
class MiToDapTest {
    static GdbEvent.Stopped stopped(String line) throws Exception {
        return (GdbEvent.Stopped) GdbEvent.of((MiRecord.Async) MiParser.parse(line));
    }

    static MiTuple results(String line) throws Exception {
        return ((MiRecord.Result) MiParser.parse(line)).results();
    }

    @Test
    void stopReasons() throws Exception {
        GdbEvent.Stopped bp = stopped("*stopped,reason=\"breakpoint-hit\",disp=\"keep\",bkptno=\"3\",frame={addr=\"0x1\","
                + "func=\"f\"},thread-id=\"1\",stopped-threads=\"all\",core=\"0\"");
        assertEquals(StoppedEventArgumentsReason.BREAKPOINT, MiToDap.stopReason(bp, false, false));
        assertEquals(StoppedEventArgumentsReason.FUNCTION_BREAKPOINT, MiToDap.stopReason(bp, false, true));
        assertEquals(3, MiToDap.hitBreakpoint(bp));
        GdbEvent.Stopped step = stopped("*stopped,reason=\"end-stepping-range\",frame={addr=\"0x1\"},thread-id=\"2\"");
        assertEquals(StoppedEventArgumentsReason.STEP, MiToDap.stopReason(step, false, false));
        assertNull(MiToDap.hitBreakpoint(step));
        GdbEvent.Stopped fin = stopped("*stopped,reason=\"function-finished\",frame={addr=\"0x1\"},thread-id=\"1\"");
        assertEquals(StoppedEventArgumentsReason.STEP, MiToDap.stopReason(fin, false, false));
        GdbEvent.Stopped sigint = stopped("*stopped,reason=\"signal-received\",signal-name=\"SIGINT\","
                + "signal-meaning=\"Interrupt\",frame={addr=\"0x1\"},thread-id=\"1\"");
        assertEquals(StoppedEventArgumentsReason.PAUSE, MiToDap.stopReason(sigint, true, false));
        // a SIGINT nobody asked for is the program's business
        assertEquals(StoppedEventArgumentsReason.EXCEPTION, MiToDap.stopReason(sigint, false, false));
        GdbEvent.Stopped segv = stopped("*stopped,reason=\"signal-received\",signal-name=\"SIGSEGV\","
                + "signal-meaning=\"Segmentation fault\",frame={addr=\"0x1\"},thread-id=\"1\"");
        assertEquals(StoppedEventArgumentsReason.EXCEPTION, MiToDap.stopReason(segv, true, false));
        assertEquals("SIGSEGV, Segmentation fault", MiToDap.stopDescription(segv));
        GdbEvent.Stopped noReason = stopped("*stopped,frame={addr=\"0x1\"},thread-id=\"1\"");
        assertEquals(StoppedEventArgumentsReason.PAUSE, MiToDap.stopReason(noReason, true, false));
    }

    @Test
    void exitCodes() throws Exception {
        assertEquals(0, MiToDap.exitCode(stopped("*stopped,reason=\"exited-normally\"")));
        // gdb writes the status in octal
        assertEquals(9, MiToDap.exitCode(stopped("*stopped,reason=\"exited\",exit-code=\"011\"")));
        assertEquals(137, MiToDap.exitCode(stopped("*stopped,reason=\"exited-signalled\",signal-name=\"SIGKILL\","
                + "signal-meaning=\"Killed\"")));
        assertEquals(139, MiToDap.exitCode(stopped("*stopped,reason=\"exited-signalled\",signal-name=\"SIGSEGV\"")));
    }

    @Test
    void breakpoints() throws Exception {
        MiTuple ok = results("^done,bkpt={number=\"1\",type=\"breakpoint\",disp=\"keep\",enabled=\"y\","
                + "addr=\"0x0000000000001130\",func=\"f\",file=\"t.c\",fullname=\"/tmp/t.c\",line=\"2\","
                + "thread-groups=[\"i1\"],times=\"0\",original-location=\"-source /tmp/t.c -line 2\"}").getTuple("bkpt");
        Breakpoint b = MiToDap.breakpoint(ok, 1);
        assertEquals(1, b.getId());
        assertTrue(b.isVerified());
        assertEquals(2, b.getLine());
        assertEquals("/tmp/t.c", b.getSource().getPath());
        assertEquals(1, MiToDap.breakpoint(ok, 0).getLine(), "a client counting lines from 0");
        MiTuple pending = results("^done,bkpt={number=\"3\",type=\"breakpoint\",disp=\"keep\",enabled=\"y\","
                + "addr=\"<PENDING>\",pending=\"nothere\",times=\"0\",original-location=\"nothere\"}").getTuple("bkpt");
        Breakpoint p = MiToDap.breakpoint(pending, 1);
        assertFalse(p.isVerified());
        assertEquals(BreakpointNotVerifiedReason.PENDING, p.getReason());
        assertNull(p.getLine());
        // a name in both halves: one breakpoint, two locations; the line of the first
        MiTuple multi = results("^done,bkpt={number=\"2\",type=\"breakpoint\",disp=\"keep\",enabled=\"y\","
                + "addr=\"<MULTIPLE>\",times=\"0\",original-location=\"main\",locations=[{number=\"2.1\","
                + "enabled=\"y\",addr=\"0x1\",func=\"main\",file=\"a.c\",fullname=\"/x/a.c\",line=\"40\"},"
                + "{number=\"2.2\",enabled=\"y\",addr=\"0x2\",func=\"main\",file=\"main.c\",fullname=\"/y/main.c\","
                + "line=\"7\"}]}").getTuple("bkpt");
        Breakpoint m = MiToDap.breakpoint(multi, 1);
        assertTrue(m.isVerified());
        assertEquals(40, m.getLine());
        assertEquals("/x/a.c", m.getSource().getPath());
    }

    @Test
    void threadsAndVariables() throws Exception {
        MiTuple info = results("^done,threads=[{id=\"1\",target-id=\"Thread 0x7ffff7fb6740 (LWP 30554)\",name=\"exe\","
                + "frame={level=\"0\",addr=\"0x1\",func=\"f\"},state=\"stopped\",core=\"0\"}],current-thread-id=\"1\"");
        Thread t = MiToDap.thread(info.getList("threads").get(0).asTuple());
        assertEquals(1, t.getId());
        assertEquals("exe (Thread 0x7ffff7fb6740 (LWP 30554))", t.getName());

        MiTuple varobj = results("^done,name=\"var1\",numchild=\"1\",value=\"0x7fffffffe3b8\",type=\"char **\","
                + "thread-id=\"1\",has_more=\"0\"");
        assertEquals(1, MiToDap.numChildren(varobj));
        Variable v = MiToDap.variable("argv", varobj, 7, "argv");
        assertEquals("0x7fffffffe3b8", v.getValue());
        assertEquals("char **", v.getType());
        assertEquals(7, v.getVariablesReference());
        assertEquals("argv", v.getEvaluateName());
    }

    @Test
    void halfFromTheFrameName() {
        assertEquals("upper", MiToDap.halfOfName("[upper] main"));
        assertEquals("lower", MiToDap.halfOfName("[lower] lh_restart_pause"));
        assertNull(MiToDap.halfOfName("main"));
    }
}
