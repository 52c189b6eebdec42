package dev.mana.coordinator;

import static org.junit.jupiter.api.Assertions.*;

import dev.mana.testing.Await;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the installed commands (bin/mana_coordinator, bin/mana_status, bin/mana_simrank) as
 * subprocesses, with a temporary HOME, so the real ~/.mana.rc is never touched. JAVA_HOME is removed
 * from their environment: they run on the default java (17).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CommandsIT {
    @TempDir Path home;
    private Path bin;
    private final List<Process> started = new ArrayList<>();
    private final Map<String, String> extraEnv = new HashMap<>();

    record Result(int exit, String out, String err) {
        @Override public String toString() { return "exit " + exit + "\nstdout: " + out + "\nstderr: " + err; }
    }

    @BeforeEach
    void findBin() {
        String root = System.getProperty("mana.root", "..");
        bin = Path.of(root, "bin").toAbsolutePath().normalize();
        assertTrue(Files.isExecutable(bin.resolve("mana_coordinator")), "run after package: " + bin);
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : started) p.destroyForcibly();
        // a daemon coordinator this test started (its pid is in the status file)
        try (var files = Files.newDirectoryStream(home, ".mana*.rc")) {
            for (Path rc : files) {
                long pid = StatusFile.read(rc).pid();
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    private ProcessBuilder builder(String cmd, String... args) {
        List<String> c = new ArrayList<>();
        c.add(cmd.startsWith("/") ? cmd : bin.resolve(cmd).toString());
        c.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(c).directory(home.toFile());
        pb.environment().remove("JAVA_HOME");
        pb.environment().keySet().removeIf(k -> k.startsWith("MANA_") || k.startsWith("DMTCP_") || k.startsWith("SLURM_"));
        pb.environment().put("HOME", home.toString());
        pb.environment().putAll(extraEnv);
        return pb;
    }

    private static boolean portIsFree(int port) {
        try (java.net.ServerSocket s = new java.net.ServerSocket()) {
            s.bind(new java.net.InetSocketAddress("localhost", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** A port nothing listens on: one the kernel just handed out and took back. */
    private static int closedPort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private Result run(String cmd, String... args) throws Exception {
        Path out = Files.createTempFile(home, "out", ".txt");
        Path err = Files.createTempFile(home, "err", ".txt");
        Process p = builder(cmd, args).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(cmd + " " + String.join(" ", args) + " did not finish in 60 s");
        }
        Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        Files.delete(out);
        Files.delete(err);
        return r;
    }

    private Process background(Path log, String cmd, String... args) throws IOException {
        Process p = builder(cmd, args).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        started.add(p);
        return p;
    }

    private void waitForConnected(int n) throws Exception {
        // each look starts a mana_status JVM: a look every 100 ms at most
        Await.value(Duration.ofSeconds(30), Duration.ofMillis(100), n + " ranks registered (mana_status --status --json)",
                () -> run("mana_status", "--status", "--json"),
                r -> r.exit() == 0 && r.out().contains("\"connected\":" + n + ","), null);
    }

    @Test
    void daemonStatusListCheckpointQuit() throws Exception {
        Path stale = home.resolve(".mana-slurm-1.rc");
        Files.writeString(stale, "Host: x\nPort: 1\n");
        Files.setLastModifiedTime(stale, FileTime.from(Instant.now().minus(Duration.ofDays(8))));

        Result start = run("mana_coordinator", "-p", "0");
        assertEquals(0, start.exit(), start.toString());
        assertTrue(start.out().contains("listening on"), start.toString());
        Path rc = home.resolve(".mana.rc");
        assertTrue(Files.exists(rc));
        assertFalse(Files.exists(stale), "rc files older than 7 days are removed");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(rc)));
        StatusFile sf = StatusFile.read(rc);
        assertEquals(64, sf.secret().length());
        ProcessHandle daemon = ProcessHandle.of(sf.pid()).orElseThrow(() -> new AssertionError("daemon not running"));

        Path ck = home.resolve("ck");
        Process a = background(home.resolve("a.log"), "mana_simrank", "-n", "3", "--nranks", "4", "--ckptdir", ck.toString());
        waitForConnected(3);
        // rank 3 is not connected yet: it runs unprotected, and both views say so
        Result partial = run("mana_status", "--list");
        assertEquals(0, partial.exit(), partial.toString());
        List<String> rows = partial.out().lines().toList();
        assertEquals(5, rows.size(), partial.out());
        assertTrue(rows.get(4).trim().startsWith("3 ") && rows.get(4).contains("UNPROTECTED"), partial.out());
        assertEquals(3, rows.stream().filter(l -> l.contains("RUNNING")).count(), partial.out());
        Result summary = run("mana_status");
        assertTrue(summary.out().contains("3 connected of 4 (1 unprotected: not connected, no checkpoints)"), summary.out());
        Process b = background(home.resolve("b.log"), "mana_simrank", "-n", "1", "--first", "3", "--nranks", "4",
                "--ckptdir", ck.toString());
        waitForConnected(4);

        Result list = run("mana_status", "--list");
        assertEquals(0, list.exit(), list.toString());
        assertEquals(5, list.out().lines().count(), list.out());
        assertEquals(4, list.out().lines().filter(l -> l.contains("RUNNING")).count(), list.out());

        Result c1 = run("mana_status", "--checkpoint");
        assertEquals(0, c1.exit(), c1.toString());
        assertTrue(c1.out().startsWith("checkpoint 1 written: 4 ranks, 16.0 KiB in "), c1.out());
        assertTrue(Files.exists(ck.resolve("ckpt_rank_3/ckpt_1.img")));

        Result c2 = run("mana_status", "-c", "--json");
        assertEquals(0, c2.exit(), c2.toString());
        assertTrue(c2.out().contains("\"ok\":true") && c2.out().contains("\"generation\":2"), c2.out());

        if (Files.isExecutable(Path.of("/usr/bin/script"))) {
            // on a terminal (script(1) gives it a pty) --checkpoint shows progress lines on stderr
            Result tty = run("/usr/bin/script", "-qec", bin.resolve("mana_status") + " --checkpoint", "/dev/null");
            assertEquals(0, tty.exit(), tty.toString());
            assertTrue(tty.out().contains("checkpoint 3: 4/4 ranks SUSPENDED"), tty.out());
            assertTrue(tty.out().contains("checkpoint 3 written: 4 ranks"), tty.out());
        }

        Result st = run("mana_status", "--status");
        assertEquals(0, st.exit(), st.toString());
        assertTrue(st.out().contains("Latest generation: " + (Files.isExecutable(Path.of("/usr/bin/script")) ? 3 : 2)),
                st.out());
        assertTrue(st.out().contains("Checkpoint dir:    " + ck), st.out());

        Result iv = run("mana_status", "--interval", "0", "--json");
        assertEquals(0, iv.exit(), iv.toString());
        assertEquals("{\"ok\":true}", iv.out().trim());

        Result quit = run("mana_status", "--quit");
        assertEquals(0, quit.exit(), quit.toString());
        assertTrue(a.waitFor(20, TimeUnit.SECONDS) && b.waitFor(20, TimeUnit.SECONDS), "simulated ranks exit on KILL");
        assertEquals(0, a.exitValue(), Files.readString(home.resolve("a.log")));
        assertTrue(daemon.onExit().get(20, TimeUnit.SECONDS) != null);
        assertFalse(Files.exists(rc), "the coordinator removes its status file");

        // With the status file gone, mana_status falls back to localhost:7779. A developer's machine may
        // run a coordinator there: then the fallback is checked on a port known to be closed instead.
        int port = 7779;
        if (!portIsFree(port)) {
            port = closedPort();
            extraEnv.put("MANA_COORD_PORT", Integer.toString(port));
        }
        Result gone = run("mana_status", "--status");
        assertEquals(3, gone.exit(), gone.toString());
        assertEquals("mana_status: cannot reach coordinator at localhost:" + port + ": Connection refused",
                gone.err().trim());
    }

    @Test
    void checkpointAndKillThenExitOnLastUnderSlurm() throws Exception {
        extraEnv.put("SLURM_JOB_ID", "777");
        Path log = home.resolve("new-coordinator.log"); // does not exist yet: --log-file creates it
        Result start = run("mana_start_coordinator", "-p", "0", "-q", "--log-file", log.toString());
        assertEquals(0, start.exit(), start.toString());
        assertEquals("", start.out());
        assertTrue(Files.isRegularFile(log), "the daemon's log file is created");
        Path rc = home.resolve(".mana-slurm-777.rc");
        StatusFile sf = StatusFile.read(rc);
        assertEquals("777", sf.slurmJobId());
        ProcessHandle daemon = ProcessHandle.of(sf.pid()).orElseThrow();
        Process a = background(home.resolve("a.log"), "mana_simrank", "-n", "2");
        waitForConnected(2);
        Result r = run("mana_status", "--checkpoint-and-kill");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("ranks exiting"), r.out());
        assertTrue(a.waitFor(20, TimeUnit.SECONDS));
        assertEquals(0, a.exitValue());
        daemon.onExit().get(20, TimeUnit.SECONDS); // --exit-on-last is the default
        assertFalse(Files.exists(rc));
    }

    @Test
    void coordinatorKilled_clientsReportAndExitNonZero() throws Exception {
        Path rc = home.resolve("coord.rc");
        extraEnv.put("MANA_RC", rc.toString());
        Process coord = background(home.resolve("coord.log"), "mana_coordinator", "--foreground", "-p", "0",
                "--status-file", rc.toString(), "--verbose");
        Await.until(Duration.ofSeconds(30), "the coordinator's status file " + rc, () -> {
            assertTrue(coord.isAlive(), "the coordinator died: " + Files.readString(home.resolve("coord.log")));
            return Files.exists(rc);
        }, null);
        Process a = background(home.resolve("a.log"), "mana_simrank", "-n", "2");
        waitForConnected(2);
        Path coordLog = home.resolve("coord.log");
        Await.value(Duration.ofSeconds(30), Duration.ofMillis(20), "--verbose to log rank 1's registration",
                () -> Files.readString(coordLog), log -> log.contains("rank 1 of 'default' registered"), null);
        coord.destroyForcibly();
        coord.waitFor(10, TimeUnit.SECONDS);
        assertTrue(a.waitFor(20, TimeUnit.SECONDS), "simulated ranks notice");
        assertEquals(3, a.exitValue());
        assertTrue(Files.readString(home.resolve("a.log")).contains("coordinator connection lost"));
        Result r = run("mana_status", "--list");
        assertEquals(3, r.exit(), r.toString());
        assertTrue(r.err().startsWith("mana_status: cannot reach coordinator at "), r.err());
    }

    @Test
    void helpUsageErrorsAndBusyPort() throws Exception {
        Result h = run("mana_coordinator", "--help");
        assertEquals(0, h.exit());
        assertTrue(h.out().contains("--[no-]exit-on-last") && h.out().contains("--status-file"), h.out());
        Result s = run("mana_status", "--help");
        assertEquals(0, s.exit());
        assertTrue(s.out().contains("--checkpoint") && s.out().contains("--json"), s.out());
        assertEquals(2, run("mana_status", "--no-such-flag").exit());
        assertEquals(2, run("mana_status", "--list", "--status").exit(), "one action at a time");

        try (var ss = new java.net.ServerSocket(0)) {
            Result busy = run("mana_coordinator", "-p", String.valueOf(ss.getLocalPort()),
                    "--status-file", home.resolve("busy.rc").toString());
            assertEquals(1, busy.exit(), busy.toString());
            assertTrue(busy.err().contains("cannot listen on"), busy.toString());
        }
    }

    /** The pre-authentication limits from the command line reach the server: one handshake and one
     *  held connection per address, so a third stranger from 127.0.0.1 is refused, with the reason. */
    @Test
    void preAuthLimitFlags() throws Exception {
        Result bad = run("mana_coordinator", "--foreground", "--max-held", "0");
        assertEquals(2, bad.exit(), bad.toString());
        assertTrue(bad.err().contains("--max-held must be at least 1"), bad.toString());
        Result help = run("mana_coordinator", "--help");
        assertTrue(help.out().contains("--max-handshakes-per-address") && help.out().contains("--hello-timeout"), help.out());

        Path rc = home.resolve("limits.rc");
        background(home.resolve("limits.log"), "mana_coordinator", "--foreground", "-p", "0", "--status-file",
                rc.toString(), "--max-handshakes-per-address", "1", "--max-held-per-address", "1", "--hello-timeout", "60");
        StatusFile sf = Await.value(Duration.ofSeconds(60), "the coordinator's status file " + rc, () -> {
            try {
                return Files.exists(rc) ? StatusFile.read(rc) : null;
            } catch (IOException e) {
                return null;   // being written
            }
        }, f -> f != null, null);
        try (java.net.Socket first = new java.net.Socket("127.0.0.1", sf.port());
             java.net.Socket held = new java.net.Socket("127.0.0.1", sf.port());
             java.net.Socket third = new java.net.Socket("127.0.0.1", sf.port())) {
            for (java.net.Socket s : List.of(first, held, third)) s.setSoTimeout(30_000);
            assertInstanceOf(dev.mana.coordinator.protocol.Messages.Challenge.class, RawClient.readFrame(first.getInputStream()).message(),
                    "the first stranger's handshake starts");
            var m = RawClient.readFrame(third.getInputStream()).message();
            var e = assertInstanceOf(dev.mana.coordinator.protocol.Messages.ErrorMessage.class, m, "the third is refused");
            assertTrue(e.message().startsWith("too many connections waiting to authenticate from 127.0.0.1"), e.message());
        }
    }
}
