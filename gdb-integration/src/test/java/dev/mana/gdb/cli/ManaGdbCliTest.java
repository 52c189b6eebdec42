package dev.mana.gdb.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.gdb.testsupport.CheckpointFixture;
import dev.mana.gdb.testsupport.LineWatcher;
import dev.mana.gdb.testsupport.ManaRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real launcher script (src/main/sh/mana_gdb, with the module's class path) and the real gdb:
 * usage errors are one line, and a batch session on a rank restarting at pause level 4 loads both
 * halves, stops at a breakpoint after the checkpoint point and lets the program finish.
 */
@Timeout(180)
class ManaGdbCliTest {
    record Run(int status, String out, String err) {
    }

    static Run manaGdb(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of("src/main/sh/mana_gdb").toAbsolutePath().toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("MANA_GDB_CP", System.getProperty("java.class.path"));
        pb.environment().putAll(env);
        Path err = Files.createTempFile("mana_gdb", ".err");
        try {
            Process p = pb.redirectError(err.toFile()).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("mana_gdb did not end");
            }
            return new Run(p.exitValue(), out, Files.readString(err));
        } finally {
            Files.deleteIfExists(err);
        }
    }

    @Test
    void usageAndLookupErrorsAreOneLine() throws Exception {
        Run r = manaGdb(Map.of());
        assertEquals(2, r.status(), r.toString());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertEquals("mana_gdb: which rank? give --rank R (or --pid P of its process)", r.err().strip());

        r = manaGdb(Map.of(), "--rank", "0", "--pid", "1", "--level", "9");
        assertEquals(2, r.status(), r.toString());
        assertEquals("mana_gdb: --level must be 1-4, not 9", r.err().strip());

        r = manaGdb(Map.of(), "--rank", "0", "--restartdir", "/nonexistent/ck");
        assertEquals(1, r.status(), r.toString());
        assertEquals("mana_gdb: restart directory /nonexistent/ck does not exist", r.err().strip());

        Path empty = Files.createTempDirectory("mana_gdb-empty");
        r = manaGdb(Map.of(), "--rank", "3", "--restartdir", empty.toString(), "--wait", "0");
        assertEquals(1, r.status(), r.toString());
        assertTrue(r.err().startsWith("mana_gdb: no process restores rank 3 from " + empty), r.err());
        Files.delete(empty);

        r = manaGdb(Map.of(), "--rank", "0", "--pid", "999999999");
        assertEquals(1, r.status(), r.toString());
        assertEquals("mana_gdb: no process 999999999", r.err().strip());

        r = manaGdb(Map.of("MANA_RC", "/nonexistent/rc", "MANA_COORD_PORT", "1"), "--rank", "0");
        assertEquals(3, r.status(), r.toString());
        assertTrue(r.err().startsWith("mana_gdb: coordinator: "), r.err());

        r = manaGdb(Map.of(), "--help");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.out().contains("--restartdir=D"), r.out());
    }

    @Test
    void batchSessionAtPauseLevel4() throws Exception {
        CheckpointFixture fx = CheckpointFixture.get();
        fx.rt.startCoordinator();
        ManaRuntime.Rank rank = fx.rt.restart(fx.ckpt, "a", 4, Map.of());
        // no waiting for the pause line here: mana_gdb finds the process and waits for the pause itself
        Run r = manaGdb(Map.of("MANA_RC", fx.rt.rc.toString()), "--rank", "0", "--restartdir", fx.ckpt.toString(),
                "--level", "4", "--batch", "-ex", "bt 1", "-ex", "break after_step", "-ex", "continue", "-ex", "bt",
                "-ex", "mana-halves", "-ex", "print iteration", "--", "-nx");
        assertEquals(0, r.status(), () -> r + "\nthe rank's stderr: " + rank.err().lines());
        String err = r.err();
        assertTrue(err.contains("restart pause level 4"), err);
        assertTrue(err.matches("(?s).*upper .*match +add-symbol-file .*/splitapp\n.*"), err);
        assertTrue(err.matches("(?s).*lower .*match +gdb loads it +.*/bin/lower-half\n.*"), err);
        String out = r.out();
        // before release, the paused thread is in the lower half
        assertTrue(out.contains("[lower] lh_restart_pause (level=level@entry=4"), out);
        assertTrue(out.contains("hit Breakpoint 1, after_step ("), out);
        // frames carry their half (the command file's frame filter)
        assertTrue(out.matches("(?s).*#0  \\[upper\\] after_step \\(.*\\) at splitapp\\.c:20\n.*"), out);
        assertTrue(out.matches("(?s).*#1 .* in \\[upper\\] main \\(.*\\) at splitapp\\.c:\\d+.*"), out);
        assertTrue(out.matches("(?s).*upper 0x[0-9a-f]+-0x[0-9a-f]+ bias 0x[0-9a-f]+ .*/libsplitstep\\.so.*"), out);
        long i = Long.parseLong(out.lines().filter(l -> l.startsWith("$1 = ")).findFirst().orElseThrow().substring(5));
        assertTrue(i == fx.iterationAtCheckpoint || i == fx.iterationAtCheckpoint + 1, out);
        // gdb detached at the end of the batch: the program runs to its end, with the reference result
        String result = rank.awaitOut(l -> l.startsWith("result "), Duration.ofSeconds(60), "result");
        assertEquals(fx.nativeResult, result);
        assertEquals(0, rank.process().waitFor());
        // the launcher removed its command file
        try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith("mana_gdb.")
                    && Files.exists(p.resolve("gdb.args"))), "left a mana_gdb.* directory");
        }
        LineWatcher unused = rank.err();
        assertTrue(unused.lines().stream().anyMatch(l -> l.contains("restart pause level 4")));
    }

    /** A running (launched) rank: its pid comes from the coordinator's rank list of the job. */
    @Test
    void runningRankFoundThroughTheCoordinator() throws Exception {
        CheckpointFixture fx = CheckpointFixture.get();
        fx.rt.startCoordinator();
        // 20 s of steps: three mana_gdb runs (a JVM and a gdb each) must find it still running (with 1 s, a
        // loaded machine saw it gone: "/proc/PID/maps" unreadable, or a backtrace of a process that had just exited)
        ManaRuntime.Rank rank = fx.rt.launch(fx.tmp.resolve("ck-d"), List.of("--job", "d"),
                List.of(fx.prog.app.toString(), "2000", "10000"));
        rank.awaitOut(l -> l.startsWith("started "), Duration.ofSeconds(30), "started");
        Run r = manaGdb(Map.of("MANA_RC", fx.rt.rc.toString()), "--rank", "0", "-j", "d", "--batch",
                "-ex", "thread apply all bt", "-ex", "mana-halves", "--", "-nx");
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.err().startsWith("mana_gdb: pid " + rank.pid() + "\n"), r.err());
        assertTrue(r.out().matches("(?s).*upper 0x[0-9a-f]+-0x[0-9a-f]+ bias 0x[0-9a-f]+ .*/splitapp\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*lower 0x[0-9a-f]+-0x[0-9a-f]+ bias 0x[0-9a-f]+ .*/bin/lower-half\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*in \\[upper\\] main \\(.*"), r.out());
        assertTrue(r.out().matches("(?s).*in \\[upper\\] ckpt_thread \\(.*"), r.out());
        // --pid alone: the process says which rank it is; a --rank that disagrees is refused
        Run byPid = manaGdb(Map.of(), "--pid", Long.toString(rank.pid()), "--batch", "-ex", "mana-halves", "--", "-nx");
        assertEquals(0, byPid.status(), byPid.toString());
        assertTrue(byPid.out().matches("(?s).*upper 0x[0-9a-f]+-0x[0-9a-f]+ bias 0x[0-9a-f]+ .*/splitapp\n.*"), byPid.out());
        Run wrong = manaGdb(Map.of(), "--pid", Long.toString(rank.pid()), "--rank", "1", "--batch");
        assertEquals(1, wrong.status(), wrong.toString());
        assertEquals("mana_gdb: pid " + rank.pid() + " is rank 0, not 1", wrong.err().strip().lines().reduce((a, b) -> b).orElse(""));
        String result = rank.awaitOut(l -> l.startsWith("result "), Duration.ofSeconds(60), "result");
        assertTrue(result.startsWith("result "));
        assertEquals(0, rank.process().waitFor());
    }
}
