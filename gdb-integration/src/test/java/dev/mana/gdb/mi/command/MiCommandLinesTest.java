package dev.mana.gdb.mi.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.mana.gdb.mi.Watch;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The line each command sends: the bytes gdb-integration and dap-server sent as raw strings before
 * these classes existed, and the quoting fixes that came with them.
 */
class MiCommandLinesTest {

    @Test
    void settingsAndSessionCommands() {
        assertEquals("-gdb-set mi-async on", new MiGdbSet("mi-async on").line());
        assertEquals("-gdb-set debuginfod enabled off", new MiGdbSet("debuginfod enabled off").line());
        assertEquals("-gdb-set var mana_restart_pause_wait = 0", MiGdbSet.variable("mana_restart_pause_wait", "0").line());
        assertEquals("-gdb-exit", new MiGdbExit().line());
        assertEquals("-target-attach 4242", new MiTargetAttach(4242).line());
        assertEquals("-target-detach", new MiTargetDetach().line());
        assertEquals("-exec-interrupt --all", MiExecInterrupt.all().line());
    }

    @Test
    void executionCommands() {
        assertEquals("-exec-continue", new MiExecContinue().line());
        assertEquals("-exec-step --thread 1", new MiExecStep("1").line());
        assertEquals("-exec-next --thread 2", new MiExecNext("2").line());
        assertEquals("-exec-step-instruction --thread 3", new MiExecStepInstruction("3").line());
        assertEquals("-exec-next-instruction --thread 4", new MiExecNextInstruction("4").line());
        assertEquals("-exec-finish --thread 5 --frame 0", new MiExecFinish("5").line());
    }

    @Test
    void cliCommandsGoThroughTheConsoleInterpreterAndKeepTheirTextAsName() {
        assertEquals("kill", new CliKill().text());
        assertEquals("-interpreter-exec console \"kill\"", new CliKill().line());
        assertEquals("-interpreter-exec console \"maint print register-groups\"", new CliMaintPrintRegisterGroups().line());
        assertEquals("add-symbol-file /lib/libc.so.6 -o 0x7f0000000000",
                new CliAddSymbolFile(Path.of("/lib/libc.so.6"), 0x7f0000000000L).text());
        // gdb's CLI quoting inside, MI's around it
        CliAddSymbolFile spaced = new CliAddSymbolFile(Path.of("/tmp/my dir/a\"b.so"), 0x1000);
        assertEquals("add-symbol-file \"/tmp/my dir/a\\\"b.so\" -o 0x1000", spaced.text());
        assertEquals("-interpreter-exec console \"add-symbol-file \\\"/tmp/my dir/a\\\\\\\"b.so\\\" -o 0x1000\"",
                spaced.line());
        assertEquals("-interpreter-exec console \"info frame\"", MiInterpreterExec.console("info frame").line());
        assertEquals("-interpreter-exec --thread 2 --frame 1 console \"p \\\"x\\\"\"",
                MiInterpreterExec.console(MiFrame.of(2, 1), "p \"x\"").line());
    }

    @Test
    void breakpointCommands() {
        assertEquals("-break-insert lh_record_ranges", MiBreakInsert.symbol("lh_record_ranges").line());
        assertEquals("-break-insert -t *0x401136", MiBreakInsert.symbol("*0x401136").temporary().line());
        assertEquals("-break-insert -t -c \"level == 2\" lh_restart_pause",
                MiBreakInsert.symbol("lh_restart_pause").temporary().condition("level == 2").line());
        assertEquals("-break-insert \"/tmp/a b/app.c:20\"", MiBreakInsert.linespec("/tmp/a b/app.c:20").line());
        // dap-server's: pending, the condition as the client wrote it, -i 0 for "stop at the first hit"
        assertEquals("-break-insert -f -c \" i > 2 \" -i 0 --source \"/src/my app.c\" --line 12",
                MiBreakInsert.sourceLine("/src/my app.c", 12).pending().condition(" i > 2 ").ignoreCount(0).line());
        assertEquals("-break-insert -f \"main\"", MiBreakInsert.linespec("main").pending().condition(" ").line());
        assertThrows(IllegalArgumentException.class, () -> MiBreakInsert.symbol("f").ignoreCount(-1));
        assertEquals("-break-delete 7", new MiBreakDelete("7").line());
        assertEquals("-break-delete 1 2 3", new MiBreakDelete(List.of(1, 2, 3)).line());
        assertThrows(IllegalArgumentException.class, () -> new MiBreakDelete(List.of()));
        assertEquals("-break-watch \"iteration\"", new MiBreakWatch("iteration", Watch.Kind.WRITE).line());
        assertEquals("-break-watch -r \"x\"", new MiBreakWatch("x", Watch.Kind.READ).line());
        assertEquals("-break-watch -a \"x\"", new MiBreakWatch("x", Watch.Kind.ACCESS).line());
    }

    @Test
    void breakConditionIsOneCString() {
        assertEquals("-break-condition 3", new MiBreakCondition("3", null).line());
        assertEquals("-break-condition 3", new MiBreakCondition("3", "  ").line());
        assertEquals("-break-condition 3 \"i > 2\"", new MiBreakCondition("3", " i > 2 ").line());
        // the fix: sent bare (as before), gdb split this at spaces and rejoined the words with one space:
        // the literal became "a b" (MiCommandsLiveTest shows it on the real gdb)
        assertEquals("-break-condition 3 \"strcmp(s, \\\"a  b\\\") == 0\"",
                new MiBreakCondition("3", "strcmp(s, \"a  b\") == 0").line());
    }

    @Test
    void dataCommands() {
        assertEquals("-data-evaluate-expression \"x\"", new MiDataEvaluateExpression("x").line());
        assertEquals("-data-evaluate-expression --thread 2 --frame 1 \"a[i]\"",
                new MiDataEvaluateExpression(MiFrame.of(2, 1), "a[i]").line());
        assertEquals("-data-evaluate-expression --thread 4 --frame 0 \"(void *) mana_lh.uh_app_base\"",
                new MiDataEvaluateExpression(MiFrame.top("4"), "(void *) mana_lh.uh_app_base").line());
        assertEquals("-data-disassemble -a 0x401130 -- 2", MiDataDisassemble.function(0x401130).line());
        assertEquals("-data-disassemble -s 0x10 -e 0xb0 -- 2", MiDataDisassemble.range(0x10, 0xb0).line());
        assertEquals("-data-read-memory-bytes 0x1000 8", new MiDataReadMemoryBytes(0x1000, 8).line());
        assertEquals("-data-write-memory-bytes 0x1000 01ff", new MiDataWriteMemoryBytes(0x1000, new byte[] {1, (byte) 0xff})
                .line());
        assertEquals("-data-list-register-names", new MiDataListRegisterNames().line());
        assertEquals("-data-list-register-values --thread 1 --frame 0 --skip-unavailable x",
                new MiDataListRegisterValues(MiFrame.top("1"), List.of()).line());
        assertEquals("-data-list-register-values --thread 1 --frame 2 --skip-unavailable x 0 16",
                new MiDataListRegisterValues(new MiFrame("1", 2), List.of(0, 16)).line());
    }

    @Test
    void variableObjectCommands() {
        assertEquals("-var-create - * \"x\"", new MiVarCreate(null, "x").line());
        assertEquals("-var-create --thread 1 --frame 0 - * \"p->next\"", new MiVarCreate(MiFrame.of(1, 0), "p->next").line());
        assertEquals("-var-assign \"var1\" \"42\"", new MiVarAssign("var1", "42").line());
        assertEquals("-var-delete var1", new MiVarDelete("var1").line());
        assertEquals("-var-list-children --all-values \"var1.s\" 0 100", new MiVarListChildren("var1.s", 0, 100).line());
        assertEquals("-var-list-children --all-values \"var1.s\"", MiVarListChildren.all("var1.s").line());
    }

    @Test
    void variableObjectNamesAreQuotedOnlyWhereTheyAreNotOneWord() {
        assertEquals("-var-delete var1.1_anonymous", new MiVarDelete("var1.1_anonymous").line());
        assertEquals("-var-delete \"odd name\"", new MiVarDelete("odd name").line());
    }

    @Test
    void stackAndThreadCommands() {
        assertEquals("-stack-list-frames --thread 1", new MiStackListFrames("1").line());
        assertEquals("-stack-list-frames --thread 2 5 9", new MiStackListFrames("2", 5, 9).line());
        assertEquals("-stack-info-depth --thread 3", new MiStackInfoDepth("3").line());
        assertEquals("-stack-list-variables --thread 1 --frame 2 --no-values", new MiStackListVariables(MiFrame.of(1, 2)).line());
        assertEquals("-stack-list-variables --thread 1 --frame 2 --simple-values",
                MiStackListVariables.simpleValues(MiFrame.of(1, 2)).line());
        assertEquals("-thread-info", new MiThreadInfo().line());
        assertEquals("-file-list-shared-libraries", new MiFileListSharedLibraries().line());
        assertThrows(IllegalArgumentException.class, () -> new MiFrame(null, 0));
    }
}
