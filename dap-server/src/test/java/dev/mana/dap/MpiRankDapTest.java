package dev.mana.dap;

import static dev.mana.dap.DapTestClient.get;
import static dev.mana.dap.RestartedRankDapTest.cont;
import static dev.mana.dap.RestartedRankDapTest.evaluate;
import static dev.mana.dap.RestartedRankDapTest.initialize;
import static dev.mana.dap.RestartedRankDapTest.stack;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.gdb.testsupport.ManaRuntime;
import dev.mana.gdb.testsupport.TestProgram;
import dev.mana.testing.Cannot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.lsp4j.debug.ConfigurationDoneArguments;
import org.eclipse.lsp4j.debug.DisconnectArguments;
import org.eclipse.lsp4j.debug.EvaluateArgumentsContext;
import org.eclipse.lsp4j.debug.ExitedEventArguments;
import org.eclipse.lsp4j.debug.SetBreakpointsArguments;
import org.eclipse.lsp4j.debug.Source;
import org.eclipse.lsp4j.debug.SourceBreakpoint;
import org.eclipse.lsp4j.debug.StackFrame;
import org.eclipse.lsp4j.debug.StoppedEventArguments;
import org.eclipse.lsp4j.debug.StoppedEventArgumentsReason;
import org.eclipse.lsp4j.debug.TerminatedEventArguments;
import org.eclipse.lsp4j.debug.Thread;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One rank of a real MPI job, restarted under the adapter: the runtime's heat example on 2 ranks
 * (Open MPI), launched under {@code mana_launch}, checkpointed and killed by the test; then a DAP
 * {@code launch} restarts the whole job under {@code mpirun} with only rank 1 paused
 * ({@code mana_restart --debug-rank 1}). A line breakpoint on the step loop's {@code MPI_Gather} is set
 * before the release; rank 1 stops there with its own {@code rank}, the MPI library's threads show
 * lower-half frames, and without the breakpoint the job ends with the uninterrupted run's checksum.
 */
@Tag("slow")
@Timeout(300)
class MpiRankDapTest {
    static final int STEPS = 30;
    static final Duration STOP = Duration.ofSeconds(90);

    @TempDir
    Path tmp;

    @Test
    void restartOneMpiRankUnderTheAdapter() throws Exception {
        if (!Files.isExecutable(Path.of("/usr/bin/mpirun.openmpi"))) {
            Cannot.skipOrFail("openmpi", "Open MPI is not installed (/usr/bin/mpirun.openmpi)");
        }
        Files.copy(ManaRuntime.root().resolve("core-native/examples/heat_mpi.c"), tmp.resolve("heat_mpi.c"));
        TestProgram.run(tmp, "mpicc.openmpi", "-g", "-O0", "-o", "heat_mpi", "heat_mpi.c");
        String app = tmp.resolve("heat_mpi").toString();
        int gatherLine = lineOf(tmp.resolve("heat_mpi.c"), "MPI_Gather(");

        try (ManaRuntime rt = new ManaRuntime(Files.createDirectories(tmp.resolve("run")))) {
            ManaRuntime.Rank plain = rt.mpirun(2, List.of(app, Integer.toString(STEPS), "0"), Map.of());
            String want = lastDone(plain.out().awaitEnd(Duration.ofSeconds(120)));
            assertEquals(0, plain.process().waitFor());

            rt.startCoordinator();
            Path ck = rt.dir.resolve("ck");
            ManaRuntime.Rank job = rt.mpirun(2, List.of(rt.bin("mana_launch").toString(), "--job", "mpi-dap",
                    "--ckptdir", ck.toString(), app, Integer.toString(STEPS), "100"), Map.of("MANA_RANKS", "2"));
            job.awaitOut(l -> l.startsWith("heat step   3/"), STOP, "step 3 of the launched job");
            // the steps printed before the checkpoint request: it lands in a later one (the job runs on
            // until the kill, and those steps do not bound where the restart resumes)
            int printed = (int) job.out().lines().stream().filter(l -> l.startsWith("heat step")).count();
            rt.checkpoint("mpi-dap");
            ManaRuntime.killTree(job);

            try (DapTestClient c = DapTestClient.connect(ManaRuntime.root())) {
                initialize(c);
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("type", "mana");
                a.put("request", "launch");
                a.put("restartdir", ck.toString());
                a.put("rank", 1);
                a.put("ranks", 2);
                a.put("mpirun", List.of("mpirun.openmpi", "--oversubscribe", "-n", "2"));
                a.put("job", "mpi-dap");
                a.put("cwd", rt.dir.toString());
                a.put("env", Map.of("MANA_RC", rt.rc.toString(), "MANA_RANKS", "2",
                        "OMPI_ALLOW_RUN_AS_ROOT", "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"));
                int m = c.mark();
                get(c.server.launch(a), "launch (mpirun, rank 1 paused)", Duration.ofSeconds(120));
                c.await(DapTestClient.Initialized.class, m, STOP, "initialized event");

                SetBreakpointsArguments sba = new SetBreakpointsArguments();
                Source s = new Source();
                s.setPath(tmp.resolve("heat_mpi.c").toString());
                sba.setSource(s);
                SourceBreakpoint sbp = new SourceBreakpoint();
                sbp.setLine(gatherLine);
                sba.setBreakpoints(new SourceBreakpoint[] {sbp});
                assertTrue(get(c.server.setBreakpoints(sba), "setBreakpoints").getBreakpoints()[0].isVerified());

                m = c.mark();
                get(c.server.configurationDone(new ConfigurationDoneArguments()), "configurationDone");
                StoppedEventArguments hit = c.await(StoppedEventArguments.class, m, STOP, "stopped at MPI_Gather");
                assertEquals(StoppedEventArgumentsReason.BREAKPOINT, hit.getReason());
                StackFrame top = stack(c, hit.getThreadId())[0];
                assertEquals("[upper] main", top.getName());
                assertEquals(gatherLine, top.getLine());
                assertEquals("1", evaluate(c, "rank", top.getId(), EvaluateArgumentsContext.REPL).getResult());
                assertEquals("2", evaluate(c, "size", top.getId(), EvaluateArgumentsContext.REPL).getResult());
                long step = Long.parseLong(evaluate(c, "s", top.getId(), EvaluateArgumentsContext.WATCH).getResult());
                assertTrue(step >= printed && step <= STEPS, "step " + step + " after " + printed
                        + " printed before the checkpoint request");

                // the MPI library's own threads (progress, PMIx) run in the lower half, and say so
                List<String> lowerTops = new ArrayList<>();
                for (Thread t : get(c.server.threads(), "threads").getThreads()) {
                    for (StackFrame f : stack(c, t.getId())) {
                        if (f.getName().startsWith("[lower] ")) {
                            lowerTops.add(t.getName() + ": " + f.getName());
                            break;
                        }
                    }
                }
                assertTrue(!lowerTops.isEmpty(), "no thread with lower-half frames");

                sba.setBreakpoints(new SourceBreakpoint[0]);
                get(c.server.setBreakpoints(sba), "setBreakpoints (none)");
                m = c.mark();
                get(c.server.continue_(cont(hit.getThreadId())), "continue");
                ExitedEventArguments exit = c.await(ExitedEventArguments.class, m, STOP, "exited event");
                assertEquals(0, exit.getExitCode());
                assertEquals(want, c.awaitOutputLine("heat done:", STOP));
                c.await(TerminatedEventArguments.class, m, STOP, "terminated event (after mpirun's output)");
                get(c.server.disconnect(new DisconnectArguments()), "disconnect");
            }
        }
    }

    /**
     * {@code launch} with {@code program} under {@code mpirun} on 2 ranks: every rank waits in its launch
     * pause; the adapter releases rank 1 (the MPI library's initialization is collective), runs rank 0
     * to {@code main}, and the job runs to the uninterrupted checksum through a breakpoint in rank 0.
     */
    @Test
    void launchAnMpiJobAndDebugRankZero() throws Exception {
        if (!Files.isExecutable(Path.of("/usr/bin/mpirun.openmpi"))) {
            Cannot.skipOrFail("openmpi", "Open MPI is not installed (/usr/bin/mpirun.openmpi)");
        }
        Files.copy(ManaRuntime.root().resolve("core-native/examples/heat_mpi.c"), tmp.resolve("heat_mpi.c"));
        TestProgram.run(tmp, "mpicc.openmpi", "-g", "-O0", "-o", "heat_mpi", "heat_mpi.c");
        String app = tmp.resolve("heat_mpi").toString();
        int gatherLine = lineOf(tmp.resolve("heat_mpi.c"), "MPI_Gather(");
        try (ManaRuntime rt = new ManaRuntime(Files.createDirectories(tmp.resolve("run")))) {
            ManaRuntime.Rank plain = rt.mpirun(2, List.of(app, "4", "0"), Map.of());
            String want = lastDone(plain.out().awaitEnd(Duration.ofSeconds(120)));
            rt.startCoordinator();
            try (DapTestClient c = DapTestClient.connect(ManaRuntime.root())) {
                initialize(c);
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("type", "mana");
                a.put("request", "launch");
                a.put("program", app);
                a.put("args", List.of("4", "0"));
                a.put("ckptdir", rt.dir.resolve("ck").toString());
                a.put("rank", 0);
                a.put("ranks", 2);
                a.put("mpirun", "mpirun.openmpi --oversubscribe -n 2"); // one string: split on blanks
                a.put("job", "mpi-dap-launch");
                a.put("cwd", rt.dir.toString());
                a.put("env", Map.of("MANA_RC", rt.rc.toString(), "MANA_RANKS", "2",
                        "OMPI_ALLOW_RUN_AS_ROOT", "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"));
                int m = c.mark();
                get(c.server.launch(a), "launch (mpirun, 2 ranks in their launch pause)", Duration.ofSeconds(120));
                c.await(DapTestClient.Initialized.class, m, STOP, "initialized event");
                assertTrue(c.outputText().contains("released pid "), c.outputText());

                SetBreakpointsArguments sba = new SetBreakpointsArguments();
                Source s = new Source();
                s.setPath(tmp.resolve("heat_mpi.c").toString());
                sba.setSource(s);
                SourceBreakpoint sbp = new SourceBreakpoint();
                sbp.setLine(gatherLine);
                sba.setBreakpoints(new SourceBreakpoint[] {sbp});
                assertTrue(get(c.server.setBreakpoints(sba), "setBreakpoints").getBreakpoints()[0].isVerified());
                m = c.mark();
                get(c.server.configurationDone(new ConfigurationDoneArguments()), "configurationDone");
                StoppedEventArguments hit = c.await(StoppedEventArguments.class, m, STOP, "stopped at MPI_Gather");
                StackFrame top = stack(c, hit.getThreadId())[0];
                assertEquals("[upper] main", top.getName());
                assertEquals("0", evaluate(c, "rank", top.getId(), EvaluateArgumentsContext.REPL).getResult());
                assertEquals("1", evaluate(c, "s", top.getId(), EvaluateArgumentsContext.REPL).getResult()); // the first step

                sba.setBreakpoints(new SourceBreakpoint[0]);
                get(c.server.setBreakpoints(sba), "setBreakpoints (none)");
                m = c.mark();
                get(c.server.continue_(cont(hit.getThreadId())), "continue");
                assertEquals(0, c.await(ExitedEventArguments.class, m, STOP, "exited event").getExitCode());
                assertEquals(want, c.awaitOutputLine("heat done:", STOP));
                c.await(TerminatedEventArguments.class, m, STOP, "terminated event");
                get(c.server.disconnect(new DisconnectArguments()), "disconnect");
            }
        }
    }

    static int lineOf(Path file, String text) throws java.io.IOException {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i + 1;
            }
        }
        throw new AssertionError(text + " not in " + file);
    }

    static String lastDone(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("heat done:")).reduce((x, y) -> y)
                .orElseThrow(() -> new AssertionError("no \"heat done:\" line in " + lines));
    }
}
