package dev.mana.dap;

import static dev.mana.dap.DapTestClient.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.gdb.testsupport.CheckpointFixture;
import dev.mana.gdb.testsupport.ManaRuntime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.lsp4j.debug.Breakpoint;
import org.eclipse.lsp4j.debug.Capabilities;
import org.eclipse.lsp4j.debug.ConfigurationDoneArguments;
import org.eclipse.lsp4j.debug.ContinueArguments;
import org.eclipse.lsp4j.debug.DisconnectArguments;
import org.eclipse.lsp4j.debug.EvaluateArguments;
import org.eclipse.lsp4j.debug.EvaluateArgumentsContext;
import org.eclipse.lsp4j.debug.EvaluateResponse;
import org.eclipse.lsp4j.debug.ExitedEventArguments;
import org.eclipse.lsp4j.debug.FunctionBreakpoint;
import org.eclipse.lsp4j.debug.InitializeRequestArguments;
import org.eclipse.lsp4j.debug.NextArguments;
import org.eclipse.lsp4j.debug.PauseArguments;
import org.eclipse.lsp4j.debug.Scope;
import org.eclipse.lsp4j.debug.ScopesArguments;
import org.eclipse.lsp4j.debug.SetBreakpointsArguments;
import org.eclipse.lsp4j.debug.SetFunctionBreakpointsArguments;
import org.eclipse.lsp4j.debug.SetVariableArguments;
import org.eclipse.lsp4j.debug.Source;
import org.eclipse.lsp4j.debug.SourceBreakpoint;
import org.eclipse.lsp4j.debug.StackFrame;
import org.eclipse.lsp4j.debug.StackFramePresentationHint;
import org.eclipse.lsp4j.debug.StackTraceArguments;
import org.eclipse.lsp4j.debug.StoppedEventArguments;
import org.eclipse.lsp4j.debug.StoppedEventArgumentsReason;
import org.eclipse.lsp4j.debug.TerminatedEventArguments;
import org.eclipse.lsp4j.debug.Thread;
import org.eclipse.lsp4j.debug.Variable;
import org.eclipse.lsp4j.debug.VariablesArguments;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A DAP client drives a real restarted rank through the real server, end to end: gdb-integration's test
 * program (a shared library of its own, a second thread) checkpointed once by {@link CheckpointFixture},
 * restarted by the adapter ({@code launch} with {@code restartdir}: {@code mana_restart --debug-rank 0}),
 * or restarted by the test and attached to at its pause. Breakpoints go in before the pause is released;
 * the stops, frames, halves, variables and values are checked against what the program must have at that
 * point, and the program ends with the result of an uninterrupted run.
 *
 * <p>Every wait is for an event or an answer, with a time-out that fails the test.
 */
@Tag("slow")
@Timeout(300)
class RestartedRankDapTest {
    static final Duration STOP = Duration.ofSeconds(60);
    /** splitapp.c: {@code long mixed = acc ^ (i << 3);}, the first line of after_step (RestartPauseDebugTest). */
    static final int AFTER_STEP_BODY = 20;

    static CheckpointFixture fx;

    @BeforeAll
    static void checkpoint() throws Exception {
        fx = CheckpointFixture.get();
        fx.rt.startCoordinator();
    }

    static Map<String, Object> restartLaunch() {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("type", "mana");
        a.put("request", "launch");
        a.put("restartdir", fx.ckpt.toString());
        a.put("rank", 0);
        a.put("pauseLevel", 2);
        a.put("job", "a");
        a.put("cwd", fx.rt.dir.toString());
        a.put("env", Map.of("MANA_RC", fx.rt.rc.toString())); // the fixture's private coordinator
        return a;
    }

    static Capabilities initialize(DapTestClient c) throws Exception {
        InitializeRequestArguments ia = new InitializeRequestArguments();
        ia.setClientID("junit");
        ia.setAdapterID("mana");
        ia.setLinesStartAt1(true);
        ia.setPathFormat("path");
        return get(c.server.initialize(ia), "initialize");
    }

    @Test
    void launchRestartBreakInspectStepAndRunToTheEnd() throws Exception {
        try (DapTestClient c = DapTestClient.connect(ManaRuntime.root())) {
            Capabilities caps = initialize(c);
            assertTrue(caps.getSupportsConfigurationDoneRequest());
            assertTrue(caps.getSupportsConditionalBreakpoints());

            int m = c.mark();
            get(c.server.launch(restartLaunch()), "launch (restart with a pause)", Duration.ofSeconds(120));
            c.await(DapTestClient.Initialized.class, m, STOP, "initialized event");
            // the adapter says what it attached to and that the pause is held
            assertTrue(c.outputText().contains("restart pause level 2"), c.outputText());

            // a line breakpoint in the program, set while the rank still waits in its restart pause
            Path src = fx.prog.dir.resolve("splitapp.c");
            SetBreakpointsArguments sba = new SetBreakpointsArguments();
            Source s = new Source();
            s.setPath(src.toString());
            sba.setSource(s);
            SourceBreakpoint sbp = new SourceBreakpoint();
            sbp.setLine(AFTER_STEP_BODY);
            sba.setBreakpoints(new SourceBreakpoint[] {sbp});
            Breakpoint[] bps = get(c.server.setBreakpoints(sba), "setBreakpoints").getBreakpoints();
            assertEquals(1, bps.length);
            assertTrue(bps[0].isVerified(), bps[0].toString());
            assertEquals(AFTER_STEP_BODY, bps[0].getLine());

            // configurationDone releases the pause: the rank runs into the breakpoint
            m = c.mark();
            get(c.server.configurationDone(new ConfigurationDoneArguments()), "configurationDone");
            StoppedEventArguments stop = c.await(StoppedEventArguments.class, m, STOP, "stopped at the breakpoint");
            assertEquals(StoppedEventArgumentsReason.BREAKPOINT, stop.getReason(), stop.toString());
            assertArrayEquals(new Integer[] {bps[0].getId()}, stop.getHitBreakpointIds());
            int thread = stop.getThreadId();

            // three threads: main, the ticker, the checkpoint thread
            Thread[] threads = get(c.server.threads(), "threads").getThreads();
            assertEquals(3, threads.length, Arrays.toString(threads));
            assertTrue(Arrays.stream(threads).anyMatch(t -> t.getId() == thread));

            // frames: after_step at the line, called by main; both in the upper half, and they say so
            StackFrame[] frames = stack(c, thread);
            StackFrame top = frames[0];
            assertEquals("[upper] after_step", top.getName());
            assertEquals(AFTER_STEP_BODY, top.getLine());
            assertEquals(src.toString(), top.getSource().getPath());
            assertEquals("upper half (program)", top.getSource().getOrigin());
            assertEquals("[upper] main", frames[1].getName());
            assertEquals("splitapp", frames[1].getModuleId().getRight());

            // arguments of after_step: i is the step after the checkpoint (or the one it interrupted)
            Map<String, Variable> args = scope(c, top.getId(), "Arguments");
            assertEquals(List.of("acc", "i"), List.copyOf(args.keySet()));
            long i = Long.parseLong(args.get("i").getValue());
            assertTrue(i == fx.iterationAtCheckpoint + 1 || i == fx.iterationAtCheckpoint,
                    "i = " + i + ", checkpoint at step " + fx.iterationAtCheckpoint);
            long acc = Long.parseLong(args.get("acc").getValue());

            // a watch on the global: the same step; the debug console computes the line's expression
            assertEquals(Long.toString(i), evaluate(c, "iteration", top.getId(), EvaluateArgumentsContext.WATCH).getResult());
            String expected = Long.toString(acc ^ (i << 3));
            assertEquals(expected, evaluate(c, "acc ^ (i << 3)", top.getId(), EvaluateArgumentsContext.REPL).getResult());
            // and a gdb command there
            assertTrue(evaluate(c, "-exec info symbol after_step", top.getId(), EvaluateArgumentsContext.REPL)
                    .getResult().startsWith("after_step in section"));

            // structured children: main's argv expands to the program's path
            Map<String, Variable> mainArgs = scope(c, frames[1].getId(), "Arguments");
            Variable argv = mainArgs.get("argv");
            assertNotEquals(0, argv.getVariablesReference(), argv.toString());
            Variable[] argv0 = variables(c, argv.getVariablesReference());
            assertEquals(1, argv0.length);
            assertTrue(argv0[0].getValue().contains(fx.prog.app.toString()), argv0[0].toString());

            // next: one line down, in after_step still; its local now holds the value computed above
            m = c.mark();
            NextArguments na = new NextArguments();
            na.setThreadId(thread);
            get(c.server.next(na), "next");
            stop = c.await(StoppedEventArguments.class, m, STOP, "stopped after next");
            assertEquals(StoppedEventArgumentsReason.STEP, stop.getReason());
            frames = stack(c, stop.getThreadId());
            assertEquals("[upper] after_step", frames[0].getName());
            assertEquals(AFTER_STEP_BODY + 1, frames[0].getLine());
            assertEquals(expected, scope(c, frames[0].getId(), "Locals").get("mixed").getValue());

            // the local can be changed (and is put back, so the result stays the uninterrupted run's)
            ScopesArguments sca = new ScopesArguments();
            sca.setFrameId(frames[0].getId());
            int locals = Arrays.stream(get(c.server.scopes(sca), "scopes").getScopes())
                    .filter(x -> x.getName().equals("Locals")).findFirst().orElseThrow().getVariablesReference();
            variables(c, locals);
            assertEquals("42", setVariable(c, locals, "mixed", "6 * 7"));
            assertEquals("42", evaluate(c, "mixed", frames[0].getId(), EvaluateArgumentsContext.REPL).getResult());
            assertEquals(expected, setVariable(c, locals, "mixed", expected));

            // clear the breakpoint, continue: the program ends as the uninterrupted run did
            sba.setBreakpoints(new SourceBreakpoint[0]);
            assertEquals(0, get(c.server.setBreakpoints(sba), "setBreakpoints (none)").getBreakpoints().length);
            m = c.mark();
            assertTrue(get(c.server.continue_(cont(thread)), "continue").getAllThreadsContinued());
            ExitedEventArguments exit = c.await(ExitedEventArguments.class, m, STOP, "exited event");
            assertEquals(0, exit.getExitCode());
            assertEquals(fx.nativeResult, c.awaitOutputLine("result ", STOP));
            c.await(TerminatedEventArguments.class, m, STOP, "terminated event");
            // no stop between the continue and the exit
            assertFalse(c.events().subList(m, c.mark()).stream().anyMatch(e -> e instanceof StoppedEventArguments));

            get(c.server.disconnect(new DisconnectArguments()), "disconnect");
        }
    }

    /**
     * The test restarts the rank (pause level 3) and the client attaches by pid: it stops on entry at the
     * pause (a lower-half frame, marked so), a conditional function breakpoint in the test's shared library
     * is hit after the first continue releases the pause, and a disconnect there leaves the rank running
     * to its normal end.
     */
    @Test
    void attachAtThePauseFunctionBreakpointThenDetach() throws Exception {
        ManaRuntime.Rank r = fx.rt.restart(fx.ckpt, "a", 3, Map.of());
        long pid = ManaRuntime.pausedPid(r, 3);
        try (DapTestClient c = DapTestClient.connect(ManaRuntime.root())) {
            initialize(c);
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("type", "mana");
            a.put("request", "attach");
            a.put("pid", pid);
            a.put("pauseLevel", 3);
            a.put("stopOnEntry", true);
            int m = c.mark();
            get(c.server.attach(a), "attach", Duration.ofSeconds(120));
            c.await(DapTestClient.Initialized.class, m, STOP, "initialized event");

            SetFunctionBreakpointsArguments fa = new SetFunctionBreakpointsArguments();
            FunctionBreakpoint fb = new FunctionBreakpoint();
            fb.setName("split_step");
            fb.setCondition("i % 7 == 3");
            fa.setBreakpoints(new FunctionBreakpoint[] {fb});
            Breakpoint[] bps = get(c.server.setFunctionBreakpoints(fa), "setFunctionBreakpoints").getBreakpoints();
            assertTrue(bps[0].isVerified(), bps[0].toString());

            m = c.mark();
            get(c.server.configurationDone(new ConfigurationDoneArguments()), "configurationDone");
            StoppedEventArguments entry = c.await(StoppedEventArguments.class, m, STOP, "stopped on entry");
            assertEquals(StoppedEventArgumentsReason.ENTRY, entry.getReason());
            StackFrame pause = stack(c, entry.getThreadId())[0];
            assertEquals("[lower] lh_restart_pause", pause.getName());
            assertEquals(StackFramePresentationHint.SUBTLE, pause.getPresentationHint());
            assertEquals("lower half (MPI library and runtime)", pause.getSource().getOrigin());

            // the first continue releases the pause; the condition holds where it stops
            m = c.mark();
            get(c.server.continue_(cont(entry.getThreadId())), "continue (releases the pause)");
            StoppedEventArguments hit = c.await(StoppedEventArguments.class, m, STOP, "stopped in split_step");
            assertEquals(StoppedEventArgumentsReason.FUNCTION_BREAKPOINT, hit.getReason());
            StackFrame top = stack(c, hit.getThreadId())[0];
            assertEquals("[upper] split_step", top.getName());
            assertTrue(top.getSource().getPath().endsWith("splitstep.c"), top.getSource().getPath());
            long i = Long.parseLong(scope(c, top.getId(), "Arguments").get("i").getValue());
            assertEquals(3, i % 7, "i = " + i);
            assertTrue(i >= fx.iterationAtCheckpoint, "i = " + i);

            // detach: breakpoints go with gdb, the rank runs on to the uninterrupted run's result
            get(c.server.disconnect(new DisconnectArguments()), "disconnect");
        }
        assertEquals(fx.nativeResult, r.awaitOut(l -> l.startsWith("result "), STOP, "result line"));
        assertEquals(0, r.process().waitFor());
    }

    /**
     * A pause asked for right after configurationDone released the restart pause stops the program, with every
     * thread back: the adapter lets the restore finish under gdb before it reports the rank running. (Released
     * with a plain continue, the rank was running while the restore still went on, one thread with signals
     * blocked: a pause then stopped it inside the restore, as Eclipse's DebuggerDepthTest once saw.) The same
     * through the debug console: {@code -exec continue} at the entry stop, then a pause.
     */
    @Test
    void aPauseRightAfterTheReleaseStopsTheProgramWithEveryThread() throws Exception {
        for (boolean console : new boolean[] {false, true}) {
            try (DapTestClient c = DapTestClient.connect(ManaRuntime.root())) {
                initialize(c);
                Map<String, Object> a = restartLaunch();
                a.put("stopOnEntry", console);
                // the released restore sleeps half a second first (a test hook of the lower half): a pause
                // that came before the restore's end would stop it there, every time
                a.put("env", Map.of("MANA_RC", fx.rt.rc.toString(), "MANA_TEST_RESTORE_SLOW_MS", "500"));
                int m = c.mark();
                get(c.server.launch(a), "launch (restart with a pause)", Duration.ofSeconds(120));
                c.await(DapTestClient.Initialized.class, m, STOP, "initialized event");
                m = c.mark();
                get(c.server.configurationDone(new ConfigurationDoneArguments()), "configurationDone");
                if (console) {
                    StoppedEventArguments entry = c.await(StoppedEventArguments.class, m, STOP, "stopped on entry");
                    assertEquals(StoppedEventArgumentsReason.ENTRY, entry.getReason());
                    m = c.mark();
                    EvaluateArguments ea = new EvaluateArguments();
                    ea.setExpression("-exec continue");
                    ea.setContext(EvaluateArgumentsContext.REPL);
                    get(c.server.evaluate(ea), "evaluate -exec continue");
                }
                get(c.server.pause(new PauseArguments()), "pause");
                StoppedEventArguments p = c.await(StoppedEventArguments.class, m, STOP, "stopped by pause");
                assertEquals(StoppedEventArgumentsReason.PAUSE, p.getReason(), (console ? "console: " : "") + p);
                // the adapter's own stop where the restore ends is never the client's
                assertEquals(1, c.events().subList(m, c.mark()).stream()
                        .filter(e -> e instanceof StoppedEventArguments).count(), c.events().subList(m, c.mark()).toString());
                Thread[] threads = get(c.server.threads(), "threads").getThreads();
                assertEquals(3, threads.length, (console ? "console: " : "") + "main, the ticker and the checkpoint "
                        + "thread, not the restore's one: " + Arrays.toString(threads));
                for (Thread t : threads) {
                    for (StackFrame f : stack(c, t.getId())) {
                        assertNotEquals("[lower] lh_restart_pause", f.getName(), "thread " + t.getName() + " in the pause");
                    }
                }
                m = c.mark();
                get(c.server.continue_(cont(p.getThreadId())), "continue");
                assertEquals(0, c.await(ExitedEventArguments.class, m, STOP, "exited event").getExitCode());
                assertEquals(fx.nativeResult, c.awaitOutputLine("result ", STOP));
                get(c.server.disconnect(new DisconnectArguments()), "disconnect");
            }
        }
    }

    static ContinueArguments cont(int thread) {
        ContinueArguments ca = new ContinueArguments();
        ca.setThreadId(thread);
        return ca;
    }

    static StackFrame[] stack(DapTestClient c, int thread) throws Exception {
        StackTraceArguments sa = new StackTraceArguments();
        sa.setThreadId(thread);
        sa.setStartFrame(0);
        sa.setLevels(20);
        StackFrame[] fs = get(c.server.stackTrace(sa), "stackTrace").getStackFrames();
        assertTrue(fs.length > 0);
        return fs;
    }

    /** The variables of one scope of a frame, by name, in order. */
    static Map<String, Variable> scope(DapTestClient c, int frameId, String name) throws Exception {
        ScopesArguments sa = new ScopesArguments();
        sa.setFrameId(frameId);
        Scope[] scopes = get(c.server.scopes(sa), "scopes").getScopes();
        Scope s = Arrays.stream(scopes).filter(x -> x.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no scope " + name + ": " + Arrays.toString(scopes)));
        Map<String, Variable> out = new LinkedHashMap<>();
        for (Variable v : variables(c, s.getVariablesReference())) {
            out.put(v.getName(), v);
        }
        return out;
    }

    static Variable[] variables(DapTestClient c, int ref) throws Exception {
        VariablesArguments va = new VariablesArguments();
        va.setVariablesReference(ref);
        return get(c.server.variables(va), "variables").getVariables();
    }

    static String setVariable(DapTestClient c, int ref, String name, String value) throws Exception {
        SetVariableArguments a = new SetVariableArguments();
        a.setVariablesReference(ref);
        a.setName(name);
        a.setValue(value);
        return get(c.server.setVariable(a), "setVariable " + name).getValue();
    }

    static EvaluateResponse evaluate(DapTestClient c, String expr, int frameId, String context) throws Exception {
        EvaluateArguments ea = new EvaluateArguments();
        ea.setExpression(expr);
        ea.setFrameId(frameId);
        ea.setContext(context);
        return get(c.server.evaluate(ea), "evaluate " + expr);
    }
}
