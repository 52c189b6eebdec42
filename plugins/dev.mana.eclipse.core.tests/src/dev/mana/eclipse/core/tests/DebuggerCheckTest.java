package dev.mana.eclipse.core.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.core.DebuggerCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Check Runtime's debugger lines: the gdb found or not, and each Yama ptrace_scope setting for root and others. */
class DebuggerCheckTest {
    @TempDir
    Path dir;

    private Path gdb() throws Exception {
        Path g = dir.resolve("bin/gdb");
        Files.createDirectories(g.getParent());
        Files.writeString(g, "#!/bin/sh\n");
        Files.setPosixFilePermissions(g, PosixFilePermissions.fromString("rwxr-xr-x"));
        return g;
    }

    private Path scope(String value) throws Exception {
        Path f = dir.resolve("ptrace_scope");
        Files.writeString(f, value + "\n");
        return f;
    }

    @Test
    void gdbOnThePathAndNoRestriction() throws Exception {
        Path g = gdb();
        DebuggerCheck c = DebuggerCheck.check("gdb", dir.resolve("bin").toString(), scope("0"), false);
        assertTrue(c.isOk(), c.report());
        assertEquals(g.toString(), c.gdb());
        assertEquals(0, c.ptraceScope());
        DebuggerCheck noYama = DebuggerCheck.check(g.toString(), "", dir.resolve("absent"), false);
        assertTrue(noYama.isOk(), noYama.report());
        assertEquals(-1, noYama.ptraceScope());
        assertTrue(noYama.report().contains("no Yama"), noYama.report());
    }

    @Test
    void missingGdbSaysWhatToDo() throws Exception {
        DebuggerCheck c = DebuggerCheck.check("gdb", dir.toString(), scope("0"), false);
        assertNull(c.gdb());
        assertTrue(c.report().contains("gdb is not on the PATH: install it (Debian: gdb)"), c.report());
        DebuggerCheck p = DebuggerCheck.check("/opt/none/gdb", "", scope("0"), false);
        assertTrue(p.report().contains("/opt/none/gdb does not exist"), p.report());
    }

    @Test
    void ptraceScopeForUsersAndRoot() throws Exception {
        String path = gdb().getParent().toString();
        DebuggerCheck one = DebuggerCheck.check("gdb", path, scope("1"), false);
        assertTrue(one.report().contains("ptrace_scope is 1"), one.report());
        assertTrue(one.report().contains("sysctl kernel.yama.ptrace_scope=0"), one.report());
        assertTrue(DebuggerCheck.check("gdb", path, scope("1"), true).isOk(), "root has CAP_SYS_PTRACE");
        assertTrue(DebuggerCheck.check("gdb", path, scope("2"), false).report().contains("only root"));
        assertTrue(DebuggerCheck.check("gdb", path, scope("2"), true).isOk());
        DebuggerCheck three = DebuggerCheck.check("gdb", path, scope("3"), true);
        assertTrue(three.report().contains("ptrace_scope is 3"), three.report());
        DebuggerCheck garbage = DebuggerCheck.check("gdb", path, scope("x"), false);
        assertTrue(garbage.report().contains("Cannot read"), garbage.report());
    }

    @Test
    void thisMachine() {
        // the machine the tests run on debugs ranks (the debug tests need it): say so if it cannot
        DebuggerCheck here = DebuggerCheck.check("gdb", System.getenv("PATH"), DebuggerCheck.PTRACE_SCOPE,
                dev.mana.eclipse.core.ManaRuntime.runningAsRoot());
        assertTrue(here.gdb() != null, here.report());
    }
}
