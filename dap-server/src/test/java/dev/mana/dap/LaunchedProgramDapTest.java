package dev.mana.dap;

import static dev.mana.dap.DapTestClient.get;
import static dev.mana.dap.RestartedRankDapTest.cont;
import static dev.mana.dap.RestartedRankDapTest.initialize;
import static dev.mana.dap.RestartedRankDapTest.scope;
import static dev.mana.dap.RestartedRankDapTest.stack;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.gdb.testsupport.CheckpointFixture;
import dev.mana.gdb.testsupport.ManaRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.lsp4j.debug.Breakpoint;
import org.eclipse.lsp4j.debug.ConfigurationDoneArguments;
import org.eclipse.lsp4j.debug.ContinuedEventArguments;
import org.eclipse.lsp4j.debug.DisconnectArguments;
import org.eclipse.lsp4j.debug.EvaluateArguments;
import org.eclipse.lsp4j.debug.EvaluateArgumentsContext;
import org.eclipse.lsp4j.debug.ExitedEventArguments;
import org.eclipse.lsp4j.debug.NextArguments;
import org.eclipse.lsp4j.debug.PauseArguments;
import org.eclipse.lsp4j.debug.SetBreakpointsArguments;
import org.eclipse.lsp4j.debug.Source;
import org.eclipse.lsp4j.debug.SourceBreakpoint;
import org.eclipse.lsp4j.debug.StackFrame;
import org.eclipse.lsp4j.debug.StepInArguments;
import org.eclipse.lsp4j.debug.StepOutArguments;
import org.eclipse.lsp4j.debug.StoppedEventArguments;
import org.eclipse.lsp4j.debug.StoppedEventArgumentsReason;
import org.eclipse.lsp4j.debug.TerminateArguments;
import org.eclipse.lsp4j.debug.TerminatedEventArguments;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code launch} with {@code program}: the adapter starts the test program under {@code mana_launch} with
 * its launch pause and runs it to {@code main}; a breakpoint with a hit condition in the program's shared
 * library, step out / next / step in between the halves' code of the program, a pause while it runs, a
 * resume typed in the debug console (a continued event the client did not ask for), then terminate.
 */
@Tag("slow")
@Timeout(300)
class LaunchedProgramDapTest {
    static final Duration STOP = Duration.ofSeconds(60);
    /** splitstep.c: {@code long next = acc * 31 + i;}, the body of split_step. */
    static final int SPLIT_STEP_BODY = 4;

    @Test
    void launchWithPauseStepPauseAndTerminate() throws Exception {
        CheckpointFixture fx = CheckpointFixture.get();
        fx.rt.startCoordinator();
        Path ck = Files.createDirectories(fx.rt.dir.resolve("ck-dap-launch"));
        try (DapTestClient c = DapTestClient.connect(ManaRuntime.root())) {
            initialize(c);
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("type", "mana");
            a.put("request", "launch");
            a.put("program", fx.prog.app.toString());
            a.put("args", List.of("100000", "1000")); // 100 s of steps: it is still running when paused
            a.put("ckptdir", ck.toString());
            a.put("job", "dap-launch");
            a.put("cwd", fx.rt.dir.toString());
            a.put("env", Map.of("MANA_RC", fx.rt.rc.toString()));
            int m = c.mark();
            get(c.server.launch(a), "launch (program with a launch pause)", Duration.ofSeconds(120));
            c.await(DapTestClient.Initialized.class, m, STOP, "initialized event");
            // stopped at main: the program has printed nothing yet
            assertFalse(c.outputText().contains("started "), c.outputText());

            // the third call of split_step (hit condition 3): i == 2
            SetBreakpointsArguments sba = new SetBreakpointsArguments();
            Source s = new Source();
            s.setPath(fx.prog.dir.resolve("splitstep.c").toString());
            sba.setSource(s);
            SourceBreakpoint sbp = new SourceBreakpoint();
            sbp.setLine(SPLIT_STEP_BODY);
            sbp.setHitCondition("3");
            sba.setBreakpoints(new SourceBreakpoint[] {sbp});
            Breakpoint bp = get(c.server.setBreakpoints(sba), "setBreakpoints").getBreakpoints()[0];
            assertTrue(bp.isVerified(), bp.toString());

            m = c.mark();
            get(c.server.configurationDone(new ConfigurationDoneArguments()), "configurationDone");
            StoppedEventArguments hit = c.await(StoppedEventArguments.class, m, STOP, "stopped in split_step");
            assertEquals(StoppedEventArgumentsReason.BREAKPOINT, hit.getReason());
            int thread = hit.getThreadId();
            StackFrame top = stack(c, thread)[0];
            assertEquals("[upper] split_step", top.getName());
            assertEquals("2", scope(c, top.getId(), "Arguments").get("i").getValue());
            SourceBreakpoint[] none = new SourceBreakpoint[0];
            SetBreakpointsArguments cleared = new SetBreakpointsArguments();
            cleared.setSource(s);
            cleared.setBreakpoints(none);
            get(c.server.setBreakpoints(cleared), "setBreakpoints (none)");

            // step out to main (line 45: acc = split_step(acc, i)), next to line 46, step into after_step
            StepOutArguments so = new StepOutArguments();
            so.setThreadId(thread);
            top = step(c, () -> c.server.stepOut(so), "stepOut");
            assertEquals("[upper] main", top.getName());
            assertEquals(45, top.getLine());
            NextArguments na = new NextArguments();
            na.setThreadId(thread);
            top = step(c, () -> c.server.next(na), "next");
            assertEquals(46, top.getLine());
            StepInArguments si = new StepInArguments();
            si.setThreadId(thread);
            top = step(c, () -> c.server.stepIn(si), "stepIn");
            assertEquals("[upper] after_step", top.getName());
            assertEquals(RestartedRankDapTest.AFTER_STEP_BODY, top.getLine());

            // run, then pause while it runs
            m = c.mark();
            get(c.server.continue_(cont(thread)), "continue");
            assertTrue(c.awaitOutputLine("started ", STOP).startsWith("started "));
            get(c.server.pause(new PauseArguments()), "pause");
            StoppedEventArguments paused = c.await(StoppedEventArguments.class, m, STOP, "stopped by pause");
            assertEquals(StoppedEventArgumentsReason.PAUSE, paused.getReason(), paused.toString());
            assertTrue(paused.getAllThreadsStopped());

            // a resume the client did not ask for (typed in the debug console) is announced
            m = c.mark();
            EvaluateArguments ea = new EvaluateArguments();
            ea.setExpression("-exec continue");
            ea.setContext(EvaluateArgumentsContext.REPL);
            get(c.server.evaluate(ea), "evaluate -exec continue");
            ContinuedEventArguments cont = c.await(ContinuedEventArguments.class, m, STOP, "continued event");
            assertTrue(cont.getAllThreadsContinued());

            // a breakpoint set while the rank runs takes effect (gdb needs it stopped to insert one: the
            // adapter stops it for that, unseen): the next stop is that breakpoint, nothing before
            m = c.mark();
            sbp.setHitCondition(null);
            bp = get(c.server.setBreakpoints(sba), "setBreakpoints while running").getBreakpoints()[0];
            assertTrue(bp.isVerified(), bp.toString());
            StoppedEventArguments live = c.await(StoppedEventArguments.class, m, STOP, "stopped at the new breakpoint");
            assertEquals(StoppedEventArgumentsReason.BREAKPOINT, live.getReason(), live.toString());
            assertEquals("[upper] split_step", stack(c, live.getThreadId())[0].getName());

            // terminate kills the rank, stopped here: exited (SIGKILL) and terminated
            m = c.mark();
            get(c.server.terminate(new TerminateArguments()), "terminate");
            ExitedEventArguments exit = c.await(ExitedEventArguments.class, m, STOP, "exited event");
            assertEquals(128 + 9, exit.getExitCode());
            c.await(TerminatedEventArguments.class, m, STOP, "terminated event");
            get(c.server.disconnect(new DisconnectArguments()), "disconnect");
        }
    }

    /** A request that steps, and the top frame where the step ended. */
    private static StackFrame step(DapTestClient c, java.util.concurrent.Callable<java.util.concurrent.CompletableFuture<Void>> request,
                                   String what) throws Exception {
        int m = c.mark();
        get(request.call(), what);
        StoppedEventArguments st = c.await(StoppedEventArguments.class, m, STOP, "stopped after " + what);
        assertEquals(StoppedEventArgumentsReason.STEP, st.getReason(), st.toString());
        return stack(c, st.getThreadId())[0];
    }
}
