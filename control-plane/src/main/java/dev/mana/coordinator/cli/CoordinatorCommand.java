package dev.mana.coordinator.cli;

import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.Coordinator;
import dev.mana.coordinator.CoordinatorListener;
import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.RankState;
import dev.mana.coordinator.StatusFile;
import dev.mana.coordinator.protocol.Protocol;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code mana_coordinator}: runs the coordinator. By default as a daemon: this process starts a
 * detached copy of itself with {@code --foreground}, waits until that copy has written the status
 * file, and exits, so the next command (mana_launch, mana_status) finds it.
 */
@Command(name = "mana_coordinator", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Start the MANA coordinator: detached (a daemon) unless --foreground; it writes its host, "
                + "port and secret to ~/.mana.rc (~/.mana-slurm-$SLURM_JOB_ID.rc under Slurm), mode 0600, "
                + "and removes ~/.mana*.rc files older than 7 days."})
public final class CoordinatorCommand implements Callable<Integer> {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    @Spec CommandSpec spec;

    @Option(names = "--verbose", description = "Log every rank and checkpoint event (and, as a daemon, the child's command line).")
    boolean verbose;
    @Option(names = {"-q", "--quiet"}, description = "Print nothing but errors.")
    boolean quiet;
    @Option(names = {"-i", "--interval"}, paramLabel = "SEC", description = "Checkpoint every SEC seconds (0 = off, the default).")
    int interval;
    @Option(names = {"-p", "--port"}, paramLabel = "PORT", description = "Port to listen on; 0 = any free port (default 7779).")
    int port = 7779;
    @Option(names = "--bind", paramLabel = "HOST", description = "Listen on this address only (default: all).")
    String bind;
    @Option(names = "--foreground", description = "Stay in the foreground (the default is to detach as a daemon).")
    boolean foreground;
    @Option(names = "--exit-on-last", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Exit once the last rank has gone (default; --no-exit-on-last keeps running).")
    boolean exitOnLast = true;
    @Option(names = "--status-file", paramLabel = "PATH",
            description = "Status file to write (default ~/.mana.rc, or ~/.mana-slurm-$SLURM_JOB_ID.rc).")
    Path statusFile;
    @Option(names = "--log-file", paramLabel = "PATH", description = "As a daemon, append output here (default: discarded).")
    Path logFile;
    @Option(names = "--io-threads", paramLabel = "N", description = "Selector threads (default: 2, or 1 on one CPU).")
    Integer ioThreads;
    @Option(names = "--max-handshakes", paramLabel = "N", defaultValue = "" + Coordinator.DEFAULT_MAX_HANDSHAKES,
            description = "Handshakes in progress at once (CHALLENGE sent, AUTH not yet checked), in all "
                    + "(default: ${DEFAULT-VALUE}); a connection beyond this or the next limit waits, held, for a slot.")
    int maxHandshakes;
    @Option(names = "--max-handshakes-per-address", paramLabel = "N",
            defaultValue = "" + Coordinator.DEFAULT_MAX_HANDSHAKES_PER_ADDRESS,
            description = "Handshakes in progress at once from one address (default: ${DEFAULT-VALUE}).")
    int maxHandshakesPerAddress;
    @Option(names = "--max-held", paramLabel = "N", defaultValue = "" + Coordinator.DEFAULT_MAX_HELD,
            description = "Connections held waiting for a handshake slot, in all (default: ${DEFAULT-VALUE}); "
                    + "with this many held the coordinator stops accepting until one starts.")
    int maxHeld;
    @Option(names = "--max-held-per-address", paramLabel = "N", defaultValue = "" + Coordinator.DEFAULT_MAX_HELD_PER_ADDRESS,
            description = "Connections held from one address (default: ${DEFAULT-VALUE}); past it a new one from "
                    + "there is refused with a reason.")
    int maxHeldPerAddress;
    @Option(names = "--hello-timeout", paramLabel = "SEC", defaultValue = "" + Protocol.HELLO_TIMEOUT_SECONDS,
            description = "Seconds a started handshake may take before the connection is closed (default: ${DEFAULT-VALUE}).")
    int helloTimeout;
    @Option(names = "--help", usageHelp = true, description = "Show this help.")
    boolean help;

    public static void main(String[] args) {
        System.exit(new CommandLine(new CoordinatorCommand()).setUsageHelpWidth(100).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Map<String, String> env = System.getenv();
        Path home = StatusFile.userHome(env);
        String slurm = env.get("SLURM_JOB_ID");
        if (slurm != null && slurm.isBlank()) slurm = null;
        String nersc = env.get("NERSC_HOST");
        if (slurm == null && statusFile == null && ("cori".equals(nersc) || "gerty".equals(nersc))) {
            err.println("mana_coordinator: on " + nersc + " run inside a Slurm allocation (SLURM_JOB_ID is not set)");
            return 1;
        }
        StatusFile.removeStale(home, Duration.ofDays(7));
        Path rc = (statusFile != null ? statusFile : StatusFile.defaultPath(env, home)).toAbsolutePath();

        for (var limit : List.of(Map.entry("--max-handshakes", maxHandshakes),
                Map.entry("--max-handshakes-per-address", maxHandshakesPerAddress), Map.entry("--max-held", maxHeld),
                Map.entry("--max-held-per-address", maxHeldPerAddress), Map.entry("--hello-timeout", helloTimeout))) {
            if (limit.getValue() < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        limit.getKey() + " must be at least 1, not " + limit.getValue());
            }
        }
        if (!foreground) return daemonize(rc, out, err);

        String secret = env.get("MANA_COORD_SECRET");
        Coordinator.Builder b = Coordinator.builder()
                .maxUnauthenticated(maxHandshakes, maxHandshakesPerAddress)
                .maxHeld(maxHeld, maxHeldPerAddress)
                .helloTimeout(Duration.ofSeconds(helloTimeout));
        if (ioThreads != null) b.ioThreads(ioThreads);
        Coordinator c = b
                .bindHost(bind)
                .port(port)
                .secret(secret == null || secret.isBlank() ? null : secret.trim())
                .statusFile(rc)
                .slurmJobId(slurm)
                .interval(interval)
                .exitOnLast(exitOnLast)
                .listener(quiet ? null : new Log(out, verbose))
                .build();
        try {
            c.start();
        } catch (IOException e) {
            err.println("mana_coordinator: " + e.getMessage());
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(c::close, "mana-coordinator-shutdown"));
        if (!quiet) {
            out.println("mana_coordinator: listening on " + c.host() + ":" + c.port() + " (pid "
                    + ProcessHandle.current().pid() + ", status file " + rc + ")");
            if (interval > 0) out.println("mana_coordinator: checkpoint every " + interval + " s");
            out.flush();
        }
        String why = c.termination().get();
        if (!quiet) {
            out.println("mana_coordinator: exiting (" + why + ")");
            out.flush();
        }
        return why.startsWith("internal error") ? 1 : 0;
    }

    /** Starts a detached copy with --foreground and waits until it has written the status file. */
    private int daemonize(Path rc, PrintWriter out, PrintWriter err) throws Exception {
        List<String> cmd = new ArrayList<>();
        if (new File("/usr/bin/setsid").canExecute()) cmd.add("/usr/bin/setsid");
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        String opts = System.getenv("MANA_COORDINATOR_JVM_OPTS");
        if (opts == null) opts = "-XX:+UseSerialGC -Xms16m -Xmx1g -Xss512k -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData";
        for (String o : opts.trim().split("\\s+")) if (!o.isEmpty()) cmd.add(o);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(CoordinatorCommand.class.getName());
        cmd.addAll(Arrays.asList(spec.commandLine().getParseResult().originalArgs().toArray(new String[0])));
        cmd.add("--foreground");
        if (statusFile == null) {
            cmd.add("--status-file");
            cmd.add(rc.toString());
        }
        if (verbose) err.println("mana_coordinator: " + String.join(" ", cmd));

        Path log = logFile != null ? logFile.toAbsolutePath() : Files.createTempFile("mana_coordinator", ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectErrorStream(true);
        long logStart = Files.exists(log) ? Files.size(log) : 0; // --log-file may name a new file
        Process p = pb.start();
        long pid = p.pid();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try {
            while (true) {
                if (Files.isRegularFile(rc)) {
                    try {
                        StatusFile sf = StatusFile.read(rc);
                        if (sf.pid() == pid) {
                            if (!quiet) {
                                out.println("mana_coordinator: listening on " + sf.host() + ":" + sf.port() + " (pid "
                                        + pid + ", status file " + rc + ")");
                            }
                            return 0;
                        }
                    } catch (IOException e) {
                        // being written: look again
                    }
                }
                if (!p.isAlive()) {
                    err.println("mana_coordinator: the coordinator exited with status " + p.exitValue() + ":");
                    err.print(tail(log, logStart));
                    return 1;
                }
                if (System.nanoTime() > deadline) {
                    err.println("mana_coordinator: the coordinator (pid " + pid + ") did not write " + rc + " within 30 s");
                    p.destroy();
                    return 1;
                }
                Thread.sleep(10);
            }
        } finally {
            // the temporary log of a daemon that started is not needed (its output is discarded)
            if (logFile == null) Files.deleteIfExists(log);
            out.flush();
            err.flush();
        }
    }

    private static String tail(Path log, long from) {
        try {
            byte[] b = Files.readAllBytes(log);
            String s = new String(b, (int) Math.min(from, b.length), (int) Math.max(0, b.length - from),
                    StandardCharsets.UTF_8);
            return s.endsWith("\n") || s.isEmpty() ? s : s + "\n";
        } catch (IOException e) {
            return "";
        }
    }

    /** Prints coordinator events: checkpoints always, ranks with --verbose. */
    private static final class Log implements CoordinatorListener {
        private final PrintWriter out;
        private final boolean verbose;

        Log(PrintWriter out, boolean verbose) {
            this.out = out;
            this.verbose = verbose;
        }

        private void say(String s) {
            out.println("[" + LocalTime.now().format(CLOCK) + "] " + s);
            out.flush();
        }

        @Override public void jobStarted(String job, int nranks) { say("job '" + job + "' started: " + nranks + " ranks"); }

        @Override public void rankRegistered(RankInfo r) {
            if (verbose) say("rank " + r.rank() + " of '" + r.job() + "' registered: " + r.host() + " pid " + r.pid()
                    + (r.state() == RankState.RESTARTING ? " (restarting from generation " + r.generation() + ")" : ""));
        }

        @Override public void rankStateChanged(RankInfo r, RankState previous) {
            if (verbose && r.state() != RankState.EXITED) say("rank " + r.rank() + ": " + previous + " -> " + r.state());
        }

        @Override public void rankExited(RankInfo r, String reason) {
            if (verbose) say("rank " + r.rank() + " of '" + r.job() + "' " + reason);
        }

        @Override public void checkpointStarted(String job, int g, boolean exitAfter) {
            say("checkpoint " + g + " of '" + job + "' started" + (exitAfter ? " (exit after)" : ""));
        }

        @Override public void checkpointFinished(CheckpointResult r) {
            say(r.ok() ? "checkpoint " + r.generation() + " committed: " + r.ranks() + " ranks, "
                    + Format.bytes(r.totalBytes()) + " in " + Format.seconds(r.elapsedNanos())
                    : r.message());
        }

        @Override public void clientRejected(String remote, String reason) {
            say("refused " + remote + ": " + reason);
        }
    }
}
