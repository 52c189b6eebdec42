package dev.mana.coordinator;

import dev.mana.coordinator.internal.CoordinatorServer;
import dev.mana.coordinator.protocol.Protocol;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The MANA coordinator as an embeddable object: what {@code mana_coordinator} runs, and what the
 * Eclipse plugins host in-process.
 *
 * <pre>{@code
 * Coordinator c = Coordinator.builder().port(0).statusFile(rc).listener(myListener).build().start();
 * CheckpointResult r = c.checkpoint("", false, p -> ...).get();
 * c.close();
 * }</pre>
 *
 * All methods are thread-safe. Operations return futures completed on the coordinator's event
 * thread; they fail with {@link CoordinatorException} once the coordinator has stopped.
 */
public final class Coordinator implements AutoCloseable {

    /** Configuration; every setting has a default. */
    /** Default limits on connections before authentication (the CLI's defaults too; {@link Builder}). */
    public static final int DEFAULT_MAX_HANDSHAKES = 4096;
    public static final int DEFAULT_MAX_HANDSHAKES_PER_ADDRESS = 1024;
    public static final int DEFAULT_MAX_HELD = 16384;
    public static final int DEFAULT_MAX_HELD_PER_ADDRESS = 8192;

    public static final class Builder {
        private String bindHost;
        private String advertisedHost;
        private int port = Protocol.DEFAULT_PORT;
        private String secret;
        private Path statusFile;
        private String slurmJobId;
        private int intervalSeconds;
        private boolean exitOnLast;
        private Duration helloTimeout = Duration.ofSeconds(Protocol.HELLO_TIMEOUT_SECONDS);
        private CoordinatorListener listener;
        private int ioThreads = Math.min(2, Runtime.getRuntime().availableProcessors());
        private int maxUnauthenticated = DEFAULT_MAX_HANDSHAKES;
        private int maxUnauthenticatedPerAddress = DEFAULT_MAX_HANDSHAKES_PER_ADDRESS;
        private int maxHeld = DEFAULT_MAX_HELD;
        private int maxHeldPerAddress = DEFAULT_MAX_HELD_PER_ADDRESS;

        private Builder() {}

        /** Address to listen on (default: all interfaces). */
        public Builder bindHost(String host) { this.bindHost = host; return this; }

        /** Host name written to the status file (default: the bind host, else this machine's name). */
        public Builder advertisedHost(String host) { this.advertisedHost = host; return this; }

        /** TCP port; 0 = any free port (see {@link Coordinator#port()}). Default 7779. */
        public Builder port(int port) { this.port = port; return this; }

        /** Shared secret; default: 32 random bytes as 64 hex digits. Empty = no authentication. */
        public Builder secret(String secret) { this.secret = secret; return this; }

        /** Status file to write at start (mode 0600) and remove at stop; default none. */
        public Builder statusFile(Path file) { this.statusFile = file; return this; }

        /** Adds the {@code SLURM_JOB_ID:} line to the status file. */
        public Builder slurmJobId(String id) { this.slurmJobId = id; return this; }

        /** Interval checkpoints every {@code seconds} (0 = off, the default). */
        public Builder interval(int seconds) { this.intervalSeconds = Math.max(0, seconds); return this; }

        /** Stop when, after at least one rank registered, no rank is connected (default false here; true in mana_coordinator). */
        public Builder exitOnLast(boolean exit) { this.exitOnLast = exit; return this; }

        /** How long a new connection has to send HELLO (default 10 s). */
        public Builder helloTimeout(Duration d) { this.helloTimeout = Objects.requireNonNull(d); return this; }

        /** Receives rank, job and checkpoint events on the coordinator's event thread. */
        public Builder listener(CoordinatorListener l) { this.listener = l; return this; }

        /** Selector threads the connections are spread over (default: 2, or 1 on one CPU). */
        /**
         * Limits on started handshakes (CHALLENGE sent, AUTH not yet handled): in all, and per
         * remote address (defaults 4,096 and 1,024). A connection beyond them is held until a
         * handshake ends ({@link #maxHeld}); a started handshake is never closed because others arrive.
         */
        public Builder maxUnauthenticated(int total, int perAddress) {
            this.maxUnauthenticated = Math.max(1, total);
            this.maxUnauthenticatedPerAddress = Math.max(1, perAddress);
            return this;
        }

        /**
         * Limits on held connections (accepted, waiting for a handshake slot; nothing sent or read):
         * in all, and per remote address (defaults 16,384 and 8,192). Past {@code perAddress} a new
         * connection from that address is refused ({@code ERROR PROTOCOL}, "too many connections
         * waiting to authenticate"); with {@code total} held the coordinator stops accepting until
         * one is started (further connects wait in the kernel's listen backlog).
         */
        public Builder maxHeld(int total, int perAddress) {
            this.maxHeld = Math.max(1, total);
            this.maxHeldPerAddress = Math.max(1, perAddress);
            return this;
        }

        public Builder ioThreads(int n) { this.ioThreads = Math.max(1, n); return this; }

        public Coordinator build() { return new Coordinator(this); }
    }

    public static Builder builder() { return new Builder(); }

    /** A fresh secret: 32 random bytes as 64 hex digits. */
    public static String newSecret() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    private final Builder config;
    private final String secret;
    private final CoordinatorServer server;
    private String host;
    private volatile boolean started;
    private volatile CompletableFuture<String> terminated;

    private Coordinator(Builder b) {
        this.config = b;
        this.secret = b.secret == null ? newSecret() : b.secret;
        CoordinatorServer.Settings s = new CoordinatorServer.Settings();
        s.bindHost = b.bindHost;
        s.port = b.port;
        s.secret = secret;
        s.intervalSeconds = b.intervalSeconds;
        s.exitOnLast = b.exitOnLast;
        s.helloTimeoutMillis = b.helloTimeout.toMillis();
        s.listener = b.listener;
        s.ioThreads = b.ioThreads;
        s.maxUnauthenticated = b.maxUnauthenticated;
        s.maxUnauthenticatedPerAddress = b.maxUnauthenticatedPerAddress;
        s.maxHeld = b.maxHeld;
        s.maxHeldPerAddress = b.maxHeldPerAddress;
        this.server = new CoordinatorServer(s);
    }

    /** Binds, writes the status file, starts serving. Returns this. */
    public synchronized Coordinator start() throws IOException {
        if (started) throw new IllegalStateException("already started");
        server.bind();
        host = config.advertisedHost != null ? config.advertisedHost
                : config.bindHost != null && !config.bindHost.equals("0.0.0.0") ? config.bindHost : localHostName();
        if (config.statusFile != null) {
            try {
                new StatusFile(host, server.port(), secret, ProcessHandle.current().pid(), config.slurmJobId)
                        .write(config.statusFile);
            } catch (IOException e) {
                server.closeUnstarted();
                throw new IOException("cannot write status file " + config.statusFile + ": " + e.getMessage(), e);
            }
        }
        // callers see the end only after the status file is gone
        terminated = server.termination().thenApply(reason -> {
            if (config.statusFile != null) removeStatusFile();
            return reason;
        });
        server.start();
        started = true;
        return this;
    }

    private static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    private void removeStatusFile() {
        Path p = config.statusFile;
        try {
            // only if it is still ours (another coordinator may have taken the name since)
            if (Files.isRegularFile(p) && StatusFile.read(p).pid() == ProcessHandle.current().pid()
                    && StatusFile.read(p).port() == server.port()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException ignored) {
            // nothing to clean
        }
    }

    /** The port listened on (the real one when configured with 0). */
    public int port() { return server.port(); }

    /** The host name clients should use (the one in the status file). */
    public String host() { return host; }

    public String secret() { return secret; }

    /** The status file, or null. */
    public Path statusFile() { return config.statusFile; }

    /** Host, port and secret, for {@link CoordinatorClient#connect} or a rank client. */
    public CoordinatorAddress address() {
        return new CoordinatorAddress(host, port(), secret, "in-process");
    }

    /** A loopback address (for clients on this machine, whatever the host name resolves to). */
    public CoordinatorAddress loopbackAddress() {
        return new CoordinatorAddress("127.0.0.1", port(), secret, "in-process");
    }

    public boolean isRunning() { return started && server.isRunning(); }

    /** Names of the jobs known (jobs whose ranks all exited stay until a new run of the same name). */
    public CompletableFuture<List<String>> jobs() { return server.jobNames(); }

    /** The ranks of a job ({@code ""} = the only job), by rank. */
    public CompletableFuture<List<RankInfo>> list(String job) { return server.list(job); }

    public CompletableFuture<JobStatus> status(String job) { return server.status(job); }

    /**
     * Checkpoints a job; the future completes when it is committed or aborted (never exceptionally
     * for a refused or aborted checkpoint: see {@link CheckpointResult#ok()}).
     *
     * @param progress called on the event thread as ranks reach each phase; may be null
     */
    public CompletableFuture<CheckpointResult> checkpoint(String job, boolean exitAfter,
                                                          Consumer<CheckpointProgress> progress) {
        return server.checkpoint(job, exitAfter, progress);
    }

    /** Interval checkpoints for every job (0 = off). */
    public CompletableFuture<Void> setInterval(int seconds) { return server.setInterval(seconds); }

    /**
     * Sets the interval of one job (what a control client's SET_INTERVAL does); the others keep
     * theirs. Empty name: the only job, or "default" while no job exists.
     */
    public CompletableFuture<Void> setInterval(String job, int seconds) { return server.setInterval(job, seconds); }

    /** For tests: API futures not completed yet. */
    int pendingCalls() { return server.pendingCalls(); }

    /** For tests: what waits on the server's termination (must not grow with the calls made). */
    int terminationDependents() { return server.termination().getNumberOfDependents(); }

    /** Sends KILL to every rank of the job. */
    public CompletableFuture<Void> killJob(String job) { return server.killJob(job); }

    /** Sends KILL to every rank of every job, then stops. */
    public CompletableFuture<Void> quit() { return server.quit(); }

    /** For tests: the number of open connections (ranks, rank groups, control clients, not yet HELLO). */
    CompletableFuture<Integer> connectionCount() { return server.connectionCount(); }

    /** For tests: connections that have not authenticated yet. */
    CompletableFuture<Integer> unauthenticatedCount() { return server.unauthenticatedCount(); }

    /** For tests: connections held until a handshake slot frees (protocol §2). */
    CompletableFuture<Integer> heldCount() { return server.heldCount(); }

    /** For tests: the pre-authentication counts (started, held, accepting paused, refused). */
    CompletableFuture<CoordinatorServer.PreAuthCounts> preAuthCounts() { return server.preAuthCounts(); }

    /**
     * Completes with the reason once stopped (quit, exit-on-last, {@link #close()}) and the status
     * file is removed.
     */
    public CompletableFuture<String> termination() {
        CompletableFuture<String> t = terminated;
        return t != null ? t : server.termination();
    }

    /** Waits for the coordinator to stop; returns the reason, or null on timeout. */
    public String awaitTermination(Duration timeout) throws InterruptedException {
        try {
            return termination().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return null;
        } catch (ExecutionException e) {
            return String.valueOf(e.getCause());
        }
    }

    /** Stops serving (ranks are not killed; they lose their coordinator) and removes the status file. */
    @Override
    public void close() {
        if (!started) return;
        server.stop("closed");
        try {
            termination().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // best effort
        }
    }
}
