package dev.mana.eclipse.debug.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.debug.ManaLineBreakpoint;
import dev.mana.eclipse.debug.RankDebugTarget;
import dev.mana.eclipse.debug.RankStackFrame;
import dev.mana.eclipse.debug.RankThread;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.IPath;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.IDebugEventSetListener;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.Launch;
import org.eclipse.debug.core.model.IBreakpoint;
import org.eclipse.debug.core.model.IStackFrame;
import org.eclipse.debug.core.model.IVariable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The debug model on the real runtime and gdb, headless: gdb-integration's test program is launched
 * under bin/mana_launch, checkpointed, killed and restarted with MANA_RESTART_PAUSE=2; a line
 * breakpoint set on the workspace file before release is hit; the thread, frames (with halves) and
 * variables (expandable through MI variable objects) are what the Debug and Variables views show; the
 * program ends with the result of an uninterrupted run.
 */
@Timeout(240)
class RankDebugTargetTest {
    /** Steps of 10 ms: the launched run outlives the checkpoint request on a loaded machine (150 did not). */
    private static final String STEPS = "600";
    private final List<Process> started = new ArrayList<>();
    private Path tmp;
    private Path rc;
    private final BlockingQueue<DebugEvent> events = new LinkedBlockingQueue<>();
    private final IDebugEventSetListener listener = set -> events.addAll(Arrays.asList(set));

    @AfterEach
    void cleanUp() throws Exception {
        DebugPlugin.getDefault().removeDebugEventListener(listener);
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoints(
                DebugPlugin.getDefault().getBreakpointManager().getBreakpoints(), true);
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        if (rc != null) {
            Process q = pb(List.of(bin("mana_status"), "--quit")).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            q.waitFor(10, TimeUnit.SECONDS);
        }
        CheckpointedProgram.deleteTree(tmp);
    }

    static Path root() {
        return Path.of(System.getProperty("mana.root", "../..")).toAbsolutePath().normalize();
    }

    static String bin(String name) {
        return root().resolve("bin").resolve(name).toString();
    }

    ProcessBuilder pb(List<String> cmd) {
        ProcessBuilder b = new ProcessBuilder(cmd).directory(tmp.toFile());
        b.environment().keySet().removeIf(k -> k.startsWith("MANA_") || k.startsWith("DMTCP_"));
        b.environment().put("MANA_RC", rc.toString());
        return b;
    }

    static String run(Path dir, List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), cmd + " timed out");
        assertEquals(0, p.exitValue(), cmd + ": " + out);
        return out;
    }

    /** Reads lines until one matches (the stream's end fails); the rest is drained on a thread. */
    static String awaitLine(java.io.InputStream in, Predicate<String> match, List<String> rest) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(in));
        String l;
        while ((l = r.readLine()) != null) {
            if (match.test(l)) {
                Thread d = new Thread(() -> {
                    try {
                        String x;
                        while ((x = r.readLine()) != null) {
                            synchronized (rest) {
                                rest.add(x);
                                rest.notifyAll();
                            }
                        }
                    } catch (IOException e) {
                        // closed
                    }
                });
                d.setDaemon(true);
                d.start();
                return l;
            }
        }
        throw new IOException("stream ended before the expected line");
    }

    DebugEvent awaitEvent(Predicate<DebugEvent> match, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            DebugEvent e = events.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            assertNotNull(e, "no " + what + " within 60 s");
            if (match.test(e)) {
                return e;
            }
        }
    }

    @Test
    void restartPausedHitBreakpointReadVariablesAndEnd() throws Exception {
        tmp = Files.createTempDirectory("mana-debug-model");
        rc = tmp.resolve("mana.rc");
        Path src = root().resolve("gdb-integration/src/test/resources/programs");
        Files.copy(src.resolve("splitapp.c"), tmp.resolve("splitapp.c"));
        Files.copy(src.resolve("splitstep.c"), tmp.resolve("splitstep.c"));
        run(tmp, List.of("gcc", "-g", "-O0", "-fPIC", "-shared", "-o", "libsplitstep.so", "splitstep.c"));
        run(tmp, List.of("gcc", "-g", "-O0", "-o", "splitapp", "splitapp.c", "-L.", "-lsplitstep", "-pthread",
                "-Wl,-rpath,$ORIGIN"));
        String nativeResult = run(tmp, List.of(tmp.resolve("splitapp").toString(), STEPS, "0")).lines()
                .filter(l -> l.startsWith("result ")).findFirst().orElseThrow();

        // the workspace project over the program's directory, and a ruler-style line breakpoint in it
        IWorkspace ws = ResourcesPlugin.getWorkspace();
        IProject project = ws.getRoot().getProject("splitapp-" + tmp.getFileName());
        IProjectDescription desc = ws.newProjectDescription(project.getName());
        desc.setLocation(IPath.fromOSString(tmp.toString()));
        project.create(desc, null);
        project.open(null);
        IFile file = project.getFile("splitapp.c");
        assertTrue(file.exists());
        ManaLineBreakpoint bp = new ManaLineBreakpoint(file, 20); // after_step's body: right after the checkpoint point
        DebugPlugin.getDefault().getBreakpointManager().addBreakpoint(bp);

        // launch, checkpoint, kill, restart paused at level 2
        run(tmp, List.of(bin("mana_coordinator"), "-p", "0", "--no-exit-on-last", "--status-file=" + rc));
        Process launched = pb(List.of(bin("mana_launch"), "--ckptdir", tmp.resolve("ck").toString(),
                tmp.resolve("splitapp").toString(), STEPS, "10000")).start();
        started.add(launched);
        awaitLine(launched.getInputStream(), l -> l.startsWith("started "), new ArrayList<>());
        CheckpointedProgram.awaitRegistered(tmp, rc);
        run(tmp, List.of("env", "MANA_RC=" + rc, bin("mana_status"), "--checkpoint"));
        launched.destroyForcibly();
        launched.waitFor();
        ProcessBuilder restartPb = pb(List.of(bin("mana_restart"), "--restartdir", tmp.resolve("ck").toString()));
        restartPb.environment().put("MANA_RESTART_PAUSE", "2");
        Process restarted = restartPb.start();
        started.add(restarted);
        String pause = awaitLine(restarted.getErrorStream(), l -> l.contains("restart pause level 2"), new ArrayList<>());
        long pid = Long.parseLong(pause.replaceAll(".* pid (\\d+) waits.*", "$1"));
        List<String> out = new ArrayList<>();
        Thread outReader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(restarted.getInputStream()))) {
                String x;
                while ((x = r.readLine()) != null) {
                    synchronized (out) {
                        out.add(x);
                    }
                }
            } catch (IOException e) {
                // closed
            }
        });
        outReader.setDaemon(true);
        outReader.start();
        Path image;
        try (Stream<Path> s = Files.list(tmp.resolve("ck/ckpt_rank_0"))) {
            image = s.filter(p -> p.toString().endsWith(".mana")).findFirst().orElseThrow();
        }

        DebugPlugin.getDefault().addDebugEventListener(listener);
        ILaunch launch = new Launch(null, ILaunchManager.DEBUG_MODE, null);
        DebugPlugin.getDefault().getLaunchManager().addLaunch(launch);
        RankDebugTarget target = RankDebugTarget.attach(launch, 0, pid, image);
        assertEquals("rank 0 (pid " + pid + ")", target.getName());
        assertTrue(target.isSuspended());
        assertTrue(target.installedBreakpoints().containsKey(bp), "breakpoint inserted before release");
        assertArrayEquals(new Object[] {target}, launch.getDebugTargets());

        target.releaseAndResume();
        DebugEvent hit = awaitEvent(e -> e.getKind() == DebugEvent.SUSPEND && e.getDetail() == DebugEvent.BREAKPOINT
                && e.getSource() instanceof RankThread, "breakpoint suspend");
        RankThread thread = (RankThread) hit.getSource();
        assertArrayEquals(new IBreakpoint[] {bp}, thread.getBreakpoints());
        IStackFrame[] frames = thread.getStackFrames();
        RankStackFrame top = (RankStackFrame) frames[0];
        assertEquals(20, top.getLineNumber());
        assertEquals("[upper] after_step at splitapp.c:20", top.getName());
        assertTrue(top.getSourcePath().endsWith("splitapp.c"), top.getSourcePath());
        assertTrue(frames[1].getName().startsWith("[upper] main at splitapp.c:"), frames[1].getName());

        // locals and arguments of after_step: acc, i (arguments), mixed
        IVariable[] vars = top.getVariables();
        List<String> names = Arrays.stream(vars).map(v -> {
            try {
                return v.getName();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).toList();
        assertTrue(names.containsAll(List.of("acc", "i", "mixed")), names.toString());
        long i = Long.parseLong(vars[names.indexOf("i")].getValue().getValueString());
        assertTrue(i > 0 && i < Long.parseLong(STEPS), "i = " + i);
        // main's argv expands through a variable object: *argv is the program
        IVariable argv = Arrays.stream(frames[1].getVariables()).filter(v -> {
            try {
                return v.getName().equals("argv");
            } catch (Exception e) {
                return false;
            }
        }).findFirst().orElseThrow();
        assertTrue(argv.getValue().hasVariables());
        IVariable[] children = argv.getValue().getVariables();
        assertEquals(1, children.length);
        assertTrue(children[0].getValue().getValueString().contains("splitapp"), children[0].getValue().getValueString());

        // remove the breakpoint, resume: the rank ends and the target terminates
        DebugPlugin.getDefault().getBreakpointManager().removeBreakpoint(bp, true);
        assertTrue(target.installedBreakpoints().isEmpty());
        target.resume();
        awaitEvent(e -> e.getKind() == DebugEvent.TERMINATE && e.getSource() == target, "terminate");
        assertTrue(target.isTerminated());
        assertEquals(0, restarted.waitFor());
        outReader.join(10_000);
        synchronized (out) {
            assertTrue(out.contains(nativeResult), out + " vs " + nativeResult);
        }
        project.delete(false, true, null);
    }
}
