package dev.mana.gdb.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real runtime at the repository root (bin/, lib/ as `make build` lays them out), with a private
 * coordinator and status file per test directory: launch, checkpoint, kill, restart at a pause level.
 */
public final class ManaRuntime implements AutoCloseable {
    public final Path root;
    public final Path dir;
    public final Path rc;
    private final List<Process> started = new ArrayList<>();
    private boolean coordinatorUp;

    public ManaRuntime(Path dir) {
        this.root = root();
        this.dir = dir;
        this.rc = dir.resolve("mana.rc");
    }

    public static Path root() {
        String r = System.getProperty("mana.root");
        return (r != null ? Path.of(r) : Path.of("..")).toAbsolutePath().normalize();
    }

    public Path bin(String name) {
        return root.resolve("bin").resolve(name);
    }

    private ProcessBuilder pb(List<String> cmd) {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        Map<String, String> env = pb.environment();
        env.put("MANA_RC", rc.toString());
        env.keySet().removeIf(k -> k.startsWith("MANA_") && !k.equals("MANA_RC") || k.startsWith("DMTCP_"));
        return pb;
    }

    /** A coordinator on a free port (it detaches; it exits with the job's last rank). */
    public void startCoordinator() throws IOException, InterruptedException {
        // kept up between the tests' restarts (each restart is its own job; the coordinator would exit with
        // the last rank otherwise); close() stops it
        if (!coordinatorUp) {
            run(List.of(bin("mana_coordinator").toString(), "-p", "0", "--no-exit-on-last", "--status-file=" + rc),
                    Duration.ofSeconds(30));
            coordinatorUp = true;
        }
    }

    /** A running rank: stdout and stderr are watched. */
    public record Rank(Process process, LineWatcher out, LineWatcher err) {
        public long pid() {
            return process.pid();
        }

        /** A line of stdout; a failure also shows what the rank wrote to stderr. */
        public String awaitOut(java.util.function.Predicate<String> match, Duration timeout, String what)
                throws IOException, InterruptedException {
            try {
                return out.await(match, timeout, what);
            } catch (IOException e) {
                throw new IOException(e.getMessage() + "; stderr: " + err.lines()
                        + (process.isAlive() ? "" : "; exit status " + process.waitFor()), e);
            }
        }
    }

    public Rank launch(Path ckptDir, List<String> flags, List<String> program) throws IOException {
        return launch(ckptDir, flags, program, Map.of());
    }

    /** As above, with {@code env} added (e.g. {@code MANA_LAUNCH_PAUSE=1}). */
    public Rank launch(Path ckptDir, List<String> flags, List<String> program, Map<String, String> env)
            throws IOException {
        List<String> cmd = new ArrayList<>(List.of(bin("mana_launch").toString(), "--ckptdir", ckptDir.toString()));
        cmd.addAll(flags);
        cmd.addAll(program);
        ProcessBuilder pb = pb(cmd);
        pb.environment().putAll(env);
        return start(pb, "launch");
    }

    /** {@code mana_restart --restartdir DIR} with {@code MANA_RESTART_PAUSE=level} (0: none) and the rank's variable. */
    public Rank restart(Path restartDir, String job, int level, Map<String, String> extraEnv) throws IOException {
        ProcessBuilder pb = pb(List.of(bin("mana_restart").toString(), "--job", job, "--restartdir", restartDir.toString()));
        if (level > 0) {
            pb.environment().put("MANA_RESTART_PAUSE", Integer.toString(level));
        }
        pb.environment().putAll(extraEnv);
        return start(pb, "restart");
    }

    /**
     * {@code mpirun.openmpi -n N COMMAND...} (the whole job is one {@link Rank}: mpirun's output carries
     * every rank's), with {@code env} added; as root with Open MPI's consent variables.
     */
    public Rank mpirun(int n, List<String> command, Map<String, String> env) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("mpirun.openmpi", "--oversubscribe", "-n", Integer.toString(n)));
        cmd.addAll(command);
        ProcessBuilder pb = pb(cmd);
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        pb.environment().putAll(env);
        return start(pb, "mpirun");
    }

    /** Kills a job started by {@link #mpirun}: its ranks first (mpirun's descendants), then mpirun. */
    public static void killTree(Rank r) throws InterruptedException {
        r.process().descendants().forEach(ProcessHandle::destroyForcibly);
        r.process().destroyForcibly();
        r.process().waitFor();
    }

    private Rank start(ProcessBuilder pb, String what) throws IOException {
        Process p = pb.start();
        synchronized (started) {
            started.add(p);
        }
        return new Rank(p, new LineWatcher(p.getInputStream(), what + "-out"), new LineWatcher(p.getErrorStream(), what + "-err"));
    }

    /** {@code mana_status --checkpoint}: returns once every image is written. */
    public String checkpoint(String job) throws IOException, InterruptedException {
        // --timeout: a checkpoint that stalls (a rank stopped by gdb) fails here, not in readAllBytes for ever
        return run(List.of(bin("mana_status").toString(), "-j", job, "--checkpoint", "--timeout", "60"), Duration.ofSeconds(90));
    }

    /** The pid a paused restart prints: "... pid 4242 waits; attach with". */
    public static long pausedPid(Rank r, int level) throws IOException, InterruptedException {
        String line = r.err().await(l -> l.contains("restart pause level " + level) && l.contains(" waits"),
                Duration.ofSeconds(30), "restart pause line");
        String s = line.substring(line.indexOf(" pid ") + 5);
        return Long.parseLong(s.substring(0, s.indexOf(' ')));
    }

    /** The pid a rank in its launch pause prints: "lower-half: launch pause: pid 4242 waits; attach with". */
    public static long launchPausedPid(Rank r) throws IOException, InterruptedException {
        String line = r.err().await(l -> l.contains("launch pause: pid "), Duration.ofSeconds(30), "launch pause line");
        String s = line.substring(line.indexOf(" pid ") + 5);
        return Long.parseLong(s.substring(0, s.indexOf(' ')));
    }

    public String run(List<String> cmd, Duration timeout) throws IOException, InterruptedException {
        Process p = pb(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + ": timed out");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + ": exit " + p.exitValue() + ": " + out);
        }
        return out;
    }

    /** Kills what this runtime started and stops a coordinator that is still up. */
    @Override
    public void close() {
        synchronized (started) {
            for (Process p : started) {
                p.descendants().forEach(ProcessHandle::destroyForcibly); // an mpirun's ranks
                if (p.isAlive()) {
                    p.destroyForcibly();
                    try {
                        p.waitFor(5, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }
        if (Files.exists(rc)) {
            try {
                Process q = pb(List.of(bin("mana_status").toString(), "--quit")).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                q.waitFor(10, TimeUnit.SECONDS);
            } catch (IOException | InterruptedException e) {
                // nothing left to stop
            }
        }
    }
}
