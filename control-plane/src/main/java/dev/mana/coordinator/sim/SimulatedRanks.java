package dev.mana.coordinator.sim;

import dev.mana.coordinator.CoordinatorAddress;
import dev.mana.coordinator.CoordinatorException;
import dev.mana.coordinator.protocol.ErrorCode;
import dev.mana.coordinator.protocol.Frame;
import dev.mana.coordinator.protocol.Handshake;
import dev.mana.coordinator.protocol.FrameDecoder;
import dev.mana.coordinator.protocol.Message;
import dev.mana.coordinator.protocol.MessageCodec;
import dev.mana.coordinator.protocol.MessageDispatcher;
import dev.mana.coordinator.protocol.MessageHandler;
import dev.mana.coordinator.protocol.Messages.*;
import dev.mana.coordinator.protocol.Protocol;
import dev.mana.coordinator.protocol.ProtocolException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Simulated ranks: many rank connections driven by one selector thread, following the checkpoint
 * sequence of the protocol (§6) exactly as the native runtime does: on CKPT_REQUEST(g) each rank
 * sends COLLECTIVE(g, 1 SUSPENDED), a drain round (g, 16, sum of two counters), (g, 2 DRAINED), writes
 * its image ({@code *.tmp}, then CKPT_WRITTEN), (g, 3 CHECKPOINTED), renames it, (g, 4 COMMITTED),
 * and after the commit deletes older generations (and with the exit flag says BYE and leaves).
 * Used by the tests, the benchmark and {@code mana_simrank}.
 *
 * <p>By default every rank has a connection of its own, as the native runtime's ranks have. With
 * {@link Builder#groupSize(int)} the ranks are carried by rank-group connections (HELLO role 3, §4.8
 * of the protocol) of up to that many ranks each, as a node agent would: the group pre-reduces its
 * members' contributions and sends one GROUP_COLLECTIVE per collective, reports each member's image
 * with GROUP_CKPT_WRITTEN, and leaves with one BYE for all its members.
 */
public final class SimulatedRanks implements AutoCloseable {

    /** Configuration of a group of simulated ranks (all in one process). */
    public static final class Builder {
        private final CoordinatorAddress address;
        private String job = "";
        private int first;
        private int count = 1;
        private int nranks = -1;
        private String host = "simhost";
        private String mpi = "none";
        private Path ckptDir;
        private long imageBytes = 4096;
        private int restartGeneration = -1;
        private final Map<Integer, Integer> stalls = new HashMap<>();
        private Duration connectTimeout = Duration.ofSeconds(30);
        private int groupSize;
        private int[] ports;

        private Builder(CoordinatorAddress address) { this.address = address; }

        /**
         * Spread the connections over these ports of the address's host, in consecutive blocks of equal
         * size (connection c of n goes to {@code ports[c * ports.length / n]}), with the address's
         * secret: ranks of several nodes, each node's ranks connecting to its own node agent. Null or
         * empty (the default): every connection to the address's port.
         */
        public Builder ports(int[] ports) {
            this.ports = ports == null || ports.length == 0 ? null : ports.clone();
            return this;
        }

        public Builder job(String job) { this.job = job == null ? "" : job; return this; }

        /** This group simulates ranks {@code first .. first+count-1}. */
        public Builder ranks(int first, int count) { this.first = first; this.count = count; return this; }

        /** World size (default: first + count). */
        public Builder nranks(int n) { this.nranks = n; return this; }

        public Builder host(String host) { this.host = host; return this; }

        public Builder mpi(String mpi) { this.mpi = mpi; return this; }

        /** Write real image files under {@code dir/ckpt_rank_N/} (default: none, sizes only). */
        public Builder ckptDir(Path dir) { this.ckptDir = dir; return this; }

        /** Size of each rank's image (written, or only reported). */
        public Builder imageBytes(long n) { this.imageBytes = n; return this; }

        /** Register as restarted from {@code generation} and run the restart phases 32-34. */
        public Builder restartFrom(int generation) { this.restartGeneration = generation; return this; }

        /** Rank {@code rank} stops before sending checkpoint phase {@code phase} (for fault tests). */
        public Builder stallAt(int rank, int phase) { stalls.put(rank, phase); return this; }

        public Builder connectTimeout(Duration d) { this.connectTimeout = d; return this; }

        /**
         * 0 (the default): one rank connection per rank. {@code k >= 1}: the ranks are carried by group
         * connections of up to {@code k} ranks each (consecutive ranks; the last group may be smaller).
         */
        public Builder groupSize(int k) {
            if (k < 0) throw new IllegalArgumentException("group size " + k);
            this.groupSize = k;
            return this;
        }

        public SimulatedRanks build() { return new SimulatedRanks(this); }
    }

    public static Builder builder(CoordinatorAddress address) { return new Builder(address); }

    /** Start and end (System.nanoTime) of one collective, as seen by this group. */
    public record Timing(long startNs, long endNs) {
        public long nanos() { return endNs - startNs; }
    }

    private final Builder cfg;
    private final Map<Integer, Integer> stalls;
    private final int nranks;
    private final Selector selector;
    private final List<Rank> ranks = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean running = true;

    // observable state (written by the I/O thread)
    private volatile int committed;
    private volatile int aborted;
    private volatile int latestGeneration;
    private volatile String lostReason;
    private volatile String lastError;
    private volatile boolean killed;
    private int open;
    private final CompletableFuture<Void> allWelcomed = new CompletableFuture<>();
    private final CompletableFuture<Void> allClosed = new CompletableFuture<>();
    private int welcomed;
    private int expected;     // connections start() makes
    private Bench bench;

    private SimulatedRanks(Builder b) {
        this.cfg = b;
        this.stalls = new HashMap<>(b.stalls);
        this.nranks = b.nranks > 0 ? b.nranks : b.first + b.count;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        this.thread = new Thread(this::loop, "mana-simrank");
        this.thread.setDaemon(true);
    }

    /**
     * Connects every rank, sends HELLO and waits for every WELCOME (restarting ranks then also run
     * the restart phases in the background).
     */
    public SimulatedRanks start() throws CoordinatorException {
        int per = cfg.groupSize > 0 ? cfg.groupSize : 1;
        expected = (cfg.count + per - 1) / per;
        open = expected;
        // the I/O thread runs while the others connect: each connection answers the coordinator's
        // CHALLENGE at once, as a real rank would (the coordinator closes strangers that wait)
        thread.start();
        for (int i = 0; i < cfg.count; i += per) {
            int conn = i / per;
            int port = cfg.ports == null ? cfg.address.port()
                    : cfg.ports[(int) ((long) conn * cfg.ports.length / expected)];
            int[] members = new int[Math.min(per, cfg.count - i)];
            for (int k = 0; k < members.length; k++) members[k] = cfg.first + i + k;
            SocketChannel ch = null;
            try {
                ch = SocketChannel.open();
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.socket().connect(new InetSocketAddress(cfg.address.host(), port),
                        (int) Math.min(cfg.connectTimeout.toMillis(), 10_000));
                ch.configureBlocking(false);
                Rank rank = new Rank(members, cfg.groupSize > 0, ch);
                SocketChannel c = ch;
                post(() -> {
                    ranks.add(rank);
                    try {
                        rank.key = c.register(selector, SelectionKey.OP_READ, rank);
                    } catch (IOException e) {
                        rank.close("cannot register: " + e.getMessage());
                    }
                });
            } catch (IOException e) {
                closeQuietly(ch);
                post(this::closeAll);
                allWelcomed.completeExceptionally(new CoordinatorException("cannot reach coordinator at " + cfg.address
                        + ": " + e.getMessage(), null, e));
                break;
            }
        }
        try {
            allWelcomed.get(cfg.connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            close();
            throw e.getCause() instanceof CoordinatorException ce ? ce
                    : new CoordinatorException(String.valueOf(e.getCause()), null, e.getCause());
        } catch (TimeoutException e) {
            close();
            throw new CoordinatorException("not all ranks were welcomed within " + cfg.connectTimeout.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new CoordinatorException("interrupted");
        }
        if (cfg.restartGeneration >= 0) {
            post(() -> {
                for (Rank r : ranks) r.sendCollective(Collective.barrier(cfg.restartGeneration, Protocol.PHASE_RESTARTED));
            });
        }
        return this;
    }

    // ------------------------------------------------------------------ observation

    public int committedCheckpoints() { return committed; }

    public int abortedCheckpoints() { return aborted; }

    /** Generation of the latest commit seen (or of the restart). */
    public int latestGeneration() { return latestGeneration; }

    /** Set when the coordinator went away unexpectedly: {@code coordinator connection lost: ...}. */
    public String connectionLost() { return lostReason; }

    /** The latest ERROR received, if any. */
    public String lastError() { return lastError; }

    /** True once KILL arrived. */
    public boolean killed() { return killed; }

    /** Waits until every connection of this group is closed (KILL, exit after checkpoint, loss). */
    public boolean awaitAllClosed(Duration timeout) throws InterruptedException {
        try {
            allClosed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /** Waits until at least {@code n} checkpoints were committed. */
    public boolean awaitCommitted(int n, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (committed < n) {
            if (System.nanoTime() > end) return false;
            Thread.sleep(2);
        }
        return true;
    }

    /**
     * Waits until every open connection has handled at least {@code n} aborted checkpoints (deleted its
     * images of them), so a caller may look at the files right after.
     */
    public boolean awaitAborted(int n, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!ranks.stream().allMatch(r -> r.closed || r.aborts >= n)) {
            if (System.nanoTime() > end) return false;
            Thread.sleep(2);
        }
        return true;
    }

    /** Path of a rank's image of a generation (whether or not it exists). */
    public Path imagePath(int rank, int generation) {
        return cfg.ckptDir.resolve("ckpt_rank_" + rank).resolve("ckpt_" + generation + ".img");
    }

    // ------------------------------------------------------------------ actions

    /** From now on, rank {@code rank} stops before sending checkpoint phase {@code phase} (0 = never). */
    public void stallAt(int rank, int phase) {
        post(() -> {
            if (phase == 0) stalls.remove(rank); else stalls.put(rank, phase);
        });
    }

    /**
     * Closes one rank's connection abruptly, as if its process died (with groups: the connection
     * that carries this rank, so every member of that group goes).
     */
    public void crash(int rank) {
        post(() -> {
            for (Rank r : ranks) if (r.carries(rank)) r.close(null);
        });
    }

    /** Number of connections this object holds (ranks, or rank groups). */
    public int connections() { return ranks.size(); }

    /**
     * Runs {@code iterations} collectives: every rank of this group contributes {@code values} with
     * its rank added to element 0 (so a sum's element 0 is the sum of the ranks). Collectives use
     * generation 0 and a free phase (64 and up). Returns this group's timing of each.
     */
    public List<Timing> runCollectives(int iterations, int op, int count, int phase, Duration timeout)
            throws CoordinatorException, InterruptedException {
        CompletableFuture<List<Timing>> done = new CompletableFuture<>();
        post(() -> {
            bench = new Bench(iterations, op, count, phase, done);
            bench.next();
        });
        try {
            return done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof CoordinatorException ce ? ce
                    : new CoordinatorException(String.valueOf(e.getCause()), null, e.getCause());
        } catch (TimeoutException e) {
            throw new CoordinatorException("collectives did not finish within " + timeout.toSeconds() + " s");
        }
    }

    /** Says BYE(0) on every connection and closes them. */
    public void exit(int status) {
        post(() -> {
            for (Rank r : ranks) {
                if (!r.closed) {
                    r.send(0, new Bye(Protocol.BYE_EXIT, status));
                    r.flushBlocking();
                    r.close(null);
                }
            }
        });
    }

    @Override
    public void close() {
        if (!running) return;
        post(this::closeAll);
        running = false;
        selector.wakeup();
        try {
            if (thread.isAlive() && thread != Thread.currentThread()) thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeAll();
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    // ------------------------------------------------------------------ I/O thread

    private void post(Runnable r) {
        tasks.add(r);
        selector.wakeup();
    }

    private void loop() {
        ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
        try {
            while (running) {
                selector.select(k -> {
                    Rank r = (Rank) k.attachment();
                    if (k.isValid() && k.isWritable()) r.flush();
                    if (k.isValid() && k.isReadable()) r.read(buf);
                }, 1000);
                Runnable t;
                while ((t = tasks.poll()) != null) t.run();
            }
        } catch (IOException | RuntimeException e) {
            lostReason = "simulated ranks failed: " + e;
        } finally {
            Runnable t;
            while ((t = tasks.poll()) != null) {
                try {
                    t.run();
                } catch (RuntimeException ignored) {
                    // closing
                }
            }
        }
    }

    private void closeAll() {
        for (Rank r : ranks) r.close(null);
    }

    private void rankClosed(Rank r, String lost) {
        if (lost != null && lostReason == null) lostReason = "coordinator connection lost: " + lost;
        if (!allWelcomed.isDone()) {
            allWelcomed.completeExceptionally(new CoordinatorException(lastError != null ? lastError
                    : "coordinator closed the connection of " + r.who() + (lost == null ? "" : ": " + lost),
                    lastErrorCode, null));
        }
        if (bench != null && !bench.done.isDone()) {
            bench.done.completeExceptionally(new CoordinatorException(lostReason != null ? lostReason
                    : r.who() + " closed during collectives"));
        }
        if (--open == 0) allClosed.complete(null);
    }

    private volatile ErrorCode lastErrorCode;

    private final class Bench {
        final int iterations, op, count, phase;
        final CompletableFuture<List<Timing>> done;
        final List<Timing> timings = new ArrayList<>();
        int pending;
        long start;

        Bench(int iterations, int op, int count, int phase, CompletableFuture<List<Timing>> done) {
            this.iterations = iterations;
            this.op = op;
            this.count = count;
            this.phase = phase;
            this.done = done;
        }

        void next() {
            if (timings.size() == iterations) {
                bench = null;
                done.complete(timings);
                return;
            }
            pending = ranks.size();
            start = System.nanoTime();
            for (Rank r : ranks) {
                int n = op == Protocol.OP_BARRIER ? 0 : count;
                long[][] each = new long[r.members.length][];
                for (int k = 0; k < each.length; k++) {
                    long[] v = new long[n];
                    if (n > 0) v[0] = r.members[k];
                    for (int i = 1; i < n; i++) v[i] = 1;
                    each[k] = v;
                }
                r.sendCollective(0, phase, op, each);
            }
        }

        void arrived(CollectiveDone d) {
            if (op == Protocol.OP_SUM && d.result().length > 0) {
                long expect = (long) nranks * (nranks - 1) / 2;
                if (d.result()[0] != expect) {
                    done.completeExceptionally(new CoordinatorException("wrong sum " + d.result()[0] + ", expected "
                            + expect));
                    return;
                }
            }
            if (--pending == 0) {
                timings.add(new Timing(start, System.nanoTime()));
                next();
            }
        }
    }

    /** The element-wise reduction of the members' vectors with {@code op} (what a group pre-reduces). */
    static long[] reduce(int op, long[][] each) {
        long[] acc = each[0].clone();
        for (int k = 1; k < each.length; k++) {
            long[] v = each[k];
            for (int i = 0; i < acc.length; i++) {
                switch (op) {
                    case Protocol.OP_SUM: acc[i] += v[i]; break;
                    case Protocol.OP_MAX: acc[i] = Math.max(acc[i], v[i]); break;
                    case Protocol.OP_MIN: acc[i] = Math.min(acc[i], v[i]); break;
                    case Protocol.OP_OR: acc[i] |= v[i]; break;
                    default: break;
                }
            }
        }
        return acc;
    }

    /**
     * One connection and its checkpoint state machine: a rank connection ({@code members} = one rank),
     * or a rank group whose members act together (they are simulated in one place, so they reach each
     * phase at once, as a node agent's would after gathering them).
     */
    private final class Rank implements MessageHandler {
        final int rank;          // the first member (the rank itself for a rank connection)
        final int[] members;
        final boolean group;
        final SocketChannel ch;
        final FrameDecoder decoder = new FrameDecoder(Protocol.PRE_AUTH_MAX_BODY); // lifted at AUTH_OK
        final ArrayDeque<ByteBuffer> out = new ArrayDeque<>(2);
        SelectionKey key;
        volatile boolean closed;
        boolean gotWelcome, saidBye;
        byte[] myNonce, coordinatorNonce;
        volatile int aborts;  // aborted checkpoints this connection handled (written by the I/O thread)
        int nextId = 1;
        int ckpt;            // generation in progress, 0 = none
        boolean exitAfter;
        final Path[] tmp, img;

        Rank(int[] members, boolean group, SocketChannel ch) {
            this.rank = members[0];
            this.members = members;
            this.group = group;
            this.ch = ch;
            this.tmp = new Path[members.length];
            this.img = new Path[members.length];
        }

        boolean carries(int r) {
            for (int m : members) if (m == r) return true;
            return false;
        }

        void send(int id, Message m) {
            if (closed) return;
            ByteBuffer b;
            try {
                b = MessageCodec.encode(id, m);
            } catch (ProtocolException e) {
                throw new IllegalStateException(e);
            }
            if (out.isEmpty()) {
                try {
                    ch.write(b);
                } catch (IOException e) {
                    close(e.getMessage());
                    return;
                }
                if (!b.hasRemaining()) return;
            }
            out.add(b);
            key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        }

        /** Every member contributes the same {@code values}. */
        void sendCollective(Collective c) {
            long[][] each = new long[members.length][];
            java.util.Arrays.fill(each, c.values());
            sendCollective(c.generation(), c.phase(), c.op(), each);
        }

        /** Member k contributes {@code each[k]}: a COLLECTIVE, or one pre-reduced GROUP_COLLECTIVE. */
        void sendCollective(int generation, int phase, int op, long[][] each) {
            if (group) {
                send(nextId++, new GroupCollective(generation, phase, op, members.length, reduce(op, each)));
            } else {
                send(nextId++, new Collective(generation, phase, op, each[0]));
            }
        }

        void flush() {
            try {
                while (!out.isEmpty()) {
                    ByteBuffer b = out.peek();
                    ch.write(b);
                    if (b.hasRemaining()) return;
                    out.poll();
                }
                key.interestOps(SelectionKey.OP_READ);
            } catch (IOException e) {
                close(e.getMessage());
            }
        }

        void flushBlocking() {
            long end = System.nanoTime() + 1_000_000_000L;
            while (!out.isEmpty() && !closed && System.nanoTime() < end) {
                flush();
                if (!out.isEmpty()) Thread.onSpinWait();
            }
        }

        void read(ByteBuffer buf) {
            buf.clear();
            int n;
            try {
                n = ch.read(buf);
            } catch (IOException e) {
                close(e.getMessage());
                return;
            }
            if (n < 0) {
                close(saidBye ? null : "connection closed by the coordinator");
                return;
            }
            buf.flip();
            try {
                Frame f;
                while (!closed && (f = decoder.next(buf)) != null) MessageDispatcher.dispatch(f, this);
            } catch (IOException e) {
                close("bad frame from coordinator: " + e.getMessage());
            }
        }

        void close(String lost) {
            if (closed) return;
            closed = true;
            if (key != null) key.cancel();
            closeQuietly(ch);
            rankClosed(this, lost);
        }

        private String who() {
            return group ? "ranks " + members[0] + ".." + members[members.length - 1] : "rank " + rank;
        }

        /** The HELLO of this connection (sent right behind AUTH, protocol §2). */
        private Message hello() {
            boolean restarting = cfg.restartGeneration >= 0;
            int pid = (int) ProcessHandle.current().pid();
            int generation = restarting ? cfg.restartGeneration : 0;
            String dir = cfg.ckptDir == null ? "" : cfg.ckptDir.toAbsolutePath().toString();
            if (group) {
                List<GroupMember> ms = new ArrayList<>(members.length);
                for (int m : members) {
                    ms.add(new GroupMember(m, cfg.host, pid, cfg.mpi, generation, restarting, dir, "mana_simrank"));
                }
                return new GroupHello(cfg.job, nranks, ms);
            }
            return Hello.rank(cfg.job, rank, nranks, cfg.host, pid, cfg.mpi, generation, restarting, dir,
                    "mana_simrank");
        }

        @Override public void onChallenge(int id, Challenge m) {
            byte[] key = Handshake.secretBytes(cfg.address.secret());
            myNonce = Handshake.nonce();
            coordinatorNonce = m.nonce();
            send(0, new Auth(myNonce, Handshake.clientProof(key, coordinatorNonce, myNonce)));
        }

        @Override public void onAuthOk(int id, AuthOk m) {
            byte[] key = Handshake.secretBytes(cfg.address.secret());
            if (myNonce == null || !Handshake.matches(Handshake.coordinatorProof(key, coordinatorNonce, myNonce), m.mac())) {
                lastError = "coordinator at " + cfg.address + " does not know the secret (its AUTH_OK proof is wrong)";
                close(lastError);
                return;
            }
            decoder.maxBody(Protocol.MAX_BODY); // the coordinator proved the secret
            send(0, hello()); // only now: see CoordinatorClient
        }

        @Override public void onWelcome(int id, Welcome m) {
            gotWelcome = true;
            if (++SimulatedRanks.this.welcomed == expected) allWelcomed.complete(null);
        }

        @Override public void onError(int id, ErrorMessage m) {
            lastError = "coordinator refused " + who() + ": " + m.errorCode() + ": " + m.message();
            lastErrorCode = m.errorCode();
            if (bench != null && m.errorCode() == ErrorCode.MISMATCH) {
                bench.done.completeExceptionally(new CoordinatorException(lastError, m.errorCode(), null));
            }
        }

        @Override public void onKill(int id, Kill m) {
            killed = true;
            saidBye = true;
            close(null);
        }

        @Override public void onCkptRequest(int id, CkptRequest m) {
            ckpt = m.generation();
            exitAfter = m.exitAfter();
            phase(Protocol.PHASE_SUSPENDED, Collective.barrier(ckpt, Protocol.PHASE_SUSPENDED));
        }

        /** Sends a checkpoint-phase collective unless a member is told to stall there. */
        private void phase(int phase, Collective c) {
            for (int r : members) {
                Integer stall = stalls.get(r);
                if (stall != null && stall == phase) return;
            }
            sendCollective(c);
        }

        @Override public void onCkptAbort(int id, CkptAbort m) {
            if (ckpt == 0 || m.generation() != ckpt) return; // a late duplicate: not ours any more
            for (int k = 0; k < members.length; k++) {
                deleteQuietly(tmp[k]);
                deleteQuietly(img[k]);
            }
            ckpt = 0;
            aborts++;
            aborted++;
        }

        private void failed(int k, String reason) {
            send(0, group ? new GroupCkptFailed(members[k], ckpt, reason) : new CkptFailed(ckpt, reason));
        }

        @Override public void onCollectiveDone(int id, CollectiveDone m) {
            if (bench != null && m.generation() == 0 && m.phase() == bench.phase) {
                bench.arrived(m);
                return;
            }
            if (cfg.restartGeneration >= 0 && m.phase() >= Protocol.PHASE_RESTARTED
                    && m.phase() < Protocol.PHASE_RESUMED) {
                sendCollective(Collective.barrier(m.generation(), m.phase() + 1));
                return;
            }
            if (m.phase() == Protocol.PHASE_RESUMED) {
                latestGeneration = Math.max(latestGeneration, m.generation());
                return;
            }
            if (ckpt == 0 || m.generation() != ckpt) return;
            switch (m.phase()) {
                case Protocol.PHASE_SUSPENDED:
                    // one drain round: global sums of sent and received counters (all zero here)
                    phase(Protocol.PHASE_DRAIN_FIRST, new Collective(ckpt, Protocol.PHASE_DRAIN_FIRST, Protocol.OP_SUM,
                            new long[] {0, 0}));
                    break;
                case Protocol.PHASE_DRAIN_FIRST:
                    phase(Protocol.PHASE_DRAINED, Collective.barrier(ckpt, Protocol.PHASE_DRAINED));
                    break;
                case Protocol.PHASE_DRAINED: {
                    for (int k = 0; k < members.length; k++) {
                        long t0 = System.nanoTime();
                        String path;
                        try {
                            path = writeImage(k);
                        } catch (IOException e) {
                            failed(k, "cannot write image: " + e.getMessage());
                            return;
                        }
                        long ns = System.nanoTime() - t0;
                        send(0, group ? new GroupCkptWritten(members[k], ckpt, cfg.imageBytes, ns, path)
                                : new CkptWritten(ckpt, cfg.imageBytes, ns, path));
                    }
                    phase(Protocol.PHASE_CHECKPOINTED, Collective.barrier(ckpt, Protocol.PHASE_CHECKPOINTED));
                    break;
                }
                case Protocol.PHASE_CHECKPOINTED:
                    for (int k = 0; k < members.length; k++) {
                        try {
                            if (tmp[k] != null) Files.move(tmp[k], img[k], StandardCopyOption.REPLACE_EXISTING,
                                    StandardCopyOption.ATOMIC_MOVE);
                        } catch (IOException e) {
                            failed(k, "cannot rename image: " + e.getMessage());
                            return;
                        }
                    }
                    phase(Protocol.PHASE_COMMITTED, Collective.barrier(ckpt, Protocol.PHASE_COMMITTED));
                    break;
                case Protocol.PHASE_COMMITTED: {
                    int g = ckpt;
                    ckpt = 0;
                    if (cfg.ckptDir != null) {
                        for (int r : members) for (int old = 1; old < g; old++) deleteQuietly(imagePath(r, old));
                    }
                    java.util.Arrays.fill(tmp, null);
                    java.util.Arrays.fill(img, null);
                    if (this == ranks.get(0)) {
                        committed++;
                        latestGeneration = g;
                    }
                    if (exitAfter) { // one BYE: on a group connection it stands for every member
                        saidBye = true;
                        send(0, new Bye(Protocol.BYE_AFTER_CHECKPOINT, 0));
                        flushBlocking();
                        close(null);
                    }
                    break;
                }
                default:
                    break;
            }
        }

        private String writeImage(int k) throws IOException {
            if (cfg.ckptDir == null) return "";
            int r = members[k];
            Path dir = cfg.ckptDir.resolve("ckpt_rank_" + r);
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            img[k] = imagePath(r, ckpt);
            tmp[k] = img[k].resolveSibling(img[k].getFileName() + ".tmp");
            byte[] data = new byte[(int) Math.min(cfg.imageBytes, 1 << 20)];
            java.util.Arrays.fill(data, (byte) r);
            Files.write(tmp[k], data);
            return img[k].toString();
        }

        @Override public void unexpected(int id, Message m) {
            lastError = "unexpected " + m.type() + " for " + who();
        }
    }

    private static void deleteQuietly(Path p) {
        if (p == null) return;
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        if (ch == null) return;
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
