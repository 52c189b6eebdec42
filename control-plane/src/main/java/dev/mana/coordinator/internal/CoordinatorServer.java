package dev.mana.coordinator.internal;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.CoordinatorException;
import dev.mana.coordinator.CoordinatorListener;
import dev.mana.coordinator.JobStatus;
import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.RankState;
import dev.mana.coordinator.protocol.ErrorCode;
import dev.mana.coordinator.protocol.Frame;
import dev.mana.coordinator.protocol.FrameDecoder;
import dev.mana.coordinator.protocol.Handshake;
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
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The coordinator. A few selector threads ({@link Reactor}s) share the connections: each reads,
 * decodes and writes only its own, without locks, and handles the frames of one select round under
 * the single state lock (jobs, ranks, collectives, checkpoints). Frames to send are queued under the
 * lock and written by the connection's reactor, so a broadcast to 4,096 ranks is written by all
 * reactors in parallel. Calls from other threads (the embedding API) are queued to reactor 0;
 * listener events leave through a single event thread.
 */
public final class CoordinatorServer {

    /** What the server needs to know; filled by {@code Coordinator.Builder}. */
    public static final class Settings {
        public String bindHost;           // null = all interfaces
        public int port = Protocol.DEFAULT_PORT;
        public String secret = "";
        public int intervalSeconds;
        public boolean exitOnLast;
        public long helloTimeoutMillis = Protocol.HELLO_TIMEOUT_SECONDS * 1000L;
        /**
         * Connections that have not authenticated yet, in all and per remote address. Beyond either
         * limit the oldest such connection (of that address) is closed: an honest client
         * authenticates within a round trip, so only a flood's idle connections grow old.
         */
        public int maxUnauthenticated = 4096;
        public int maxUnauthenticatedPerAddress = 1024;
        /** Selector threads (connections are spread over them); default: up to 2 per the CPUs. */
        public int ioThreads = Math.min(2, Runtime.getRuntime().availableProcessors());
        public CoordinatorListener listener;
    }

    private static final int MAX_RANKS = 1 << 20;
    private static final long KV_LIMIT_BYTES = 64L << 20;
    private static final long PROGRESS_EVERY_NS = 100_000_000L;
    private static final Job NO_JOB = new Job("");
    /** Connections accepted per select round: a flood of connects cannot keep reactor 0 from its other work. */
    private static final int ACCEPTS_PER_ROUND = 64;
    private static final System.Logger LOG = System.getLogger("dev.mana.coordinator");

    private final Settings settings;
    private final byte[] secret;
    private final CoordinatorListener listener;
    private final ExecutorService events;
    /** API calls, run by reactor 0 under the state lock. */
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final CompletableFuture<String> terminated = new CompletableFuture<>();
    /** API futures not completed yet: failed at stop (one entry per call, gone when it completes). */
    private final Set<CompletableFuture<?>> pending = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private Reactor[] reactors;
    private ServerSocketChannel server;
    private int boundPort;
    private volatile boolean started;
    private volatile boolean stopping;

    // ---- coordinator state: guarded by the lock (this) ----
    private final Map<String, Job> jobs = new LinkedHashMap<>();
    /** Connections that have not authenticated yet, oldest first, in all and by remote address. */
    private final LinkedHashSet<Conn> unauthenticated = new LinkedHashSet<>();
    private final Map<java.net.InetAddress, LinkedHashSet<Conn>> unauthenticatedByAddress = new HashMap<>();
    private final Set<Conn> conns = new HashSet<>();
    private int nextClientId = 1;
    private int broadcastStamp;
    private int nextReactor;
    private int intervalSeconds;  // the default of every job (-i, Builder.interval, setInterval(int))
    /** SET_INTERVAL of a job (by name, so it outlives a run of the job and may precede its ranks). */
    private final Map<String, Integer> jobIntervals = new HashMap<>();
    private boolean everHadRank;
    private String stopReason;

    public CoordinatorServer(Settings settings) {
        this.settings = settings;
        this.secret = settings.secret.getBytes(StandardCharsets.UTF_8);
        this.listener = settings.listener;
        this.intervalSeconds = settings.intervalSeconds;
        this.events = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "mana-coordinator-events");
            t.setDaemon(true);
            return t;
        });
    }

    // ================================================================ lifecycle (any thread)

    /** Binds the listening socket; the port is known when this returns. */
    public void bind() throws IOException {
        int n = Math.max(1, settings.ioThreads);
        reactors = new Reactor[n];
        try {
            for (int i = 0; i < n; i++) reactors[i] = new Reactor(i);
            server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            InetSocketAddress addr = settings.bindHost == null ? new InetSocketAddress(settings.port)
                    : new InetSocketAddress(settings.bindHost, settings.port);
            server.bind(addr, 4096);
            server.configureBlocking(false);
            server.register(reactors[0].selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            for (Reactor r : reactors) if (r != null) r.selector.close();
            if (server != null) server.close();
            throw new IOException("cannot listen on " + (settings.bindHost == null ? "*" : settings.bindHost) + ":"
                    + settings.port + ": " + e.getMessage(), e);
        }
        boundPort = ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    public int port() { return boundPort; }

    /** Releases what {@link #bind()} took when {@link #start()} will not be called. */
    public void closeUnstarted() {
        if (started) return;
        try {
            if (server != null) server.close();
            if (reactors != null) for (Reactor r : reactors) r.selector.close();
        } catch (IOException ignored) {
            // closing
        }
        events.shutdown();
        terminated.complete("not started");
    }

    public void start() {
        for (Reactor r : reactors) {
            r.thread = new Thread(r, r.index == 0 ? "mana-coordinator" : "mana-coordinator-io-" + r.index);
            r.thread.setDaemon(true); // an embedding application decides when the JVM ends
        }
        started = true;
        for (Reactor r : reactors) r.thread.start();
    }

    /** Completes with the stop reason once the coordinator has stopped and closed every socket. */
    public CompletableFuture<String> termination() { return terminated; }

    public boolean isRunning() { return started && !terminated.isDone(); }

    /** Asks the coordinator to stop (without killing ranks). */
    public void stop(String reason) {
        submit(() -> requestStop(reason));
    }

    /** Runs {@code task} on reactor 0, under the state lock. */
    private void submit(Runnable task) {
        if (terminated.isDone()) return;
        tasks.add(task);
        Reactor[] rs = reactors;
        if (rs != null) rs[0].selector.wakeup();
    }

    /**
     * Runs {@code task} on reactor 0 under the lock and completes the future with its result on the
     * event thread, after the listener events the task emitted (docs/control-plane.md).
     */
    private <T> CompletableFuture<T> call(Supplier<T> task) {
        CompletableFuture<T> f = track(new CompletableFuture<>());
        submit(() -> {
            T value;
            try {
                value = task.get();
            } catch (RuntimeException e) {
                Throwable t = e.getCause() instanceof CoordinatorException ? e.getCause() : e;
                post(() -> f.completeExceptionally(t));
                return;
            }
            post(() -> f.complete(value));
        });
        return f;
    }

    /**
     * Keeps an API future until it completes, so that a stop can fail it; nothing stays behind per
     * call (an IDE polling every second for hours must not grow the coordinator).
     */
    private <T> CompletableFuture<T> track(CompletableFuture<T> f) {
        pending.add(f);
        f.whenComplete((r, e) -> pending.remove(f));
        if (terminated.isDone()) f.completeExceptionally(new CoordinatorException("coordinator is not running"));
        return f;
    }

    /** For tests: API futures still pending. */
    public int pendingCalls() { return pending.size(); }

    // ================================================================ embedding API (any thread)

    public CompletableFuture<List<String>> jobNames() {
        return call(() -> new ArrayList<>(jobs.keySet()));
    }

    public CompletableFuture<List<RankInfo>> list(String job) {
        return call(() -> {
            Job j = resolveOrThrow(job);
            List<RankInfo> out = new ArrayList<>();
            if (j != null) for (Slot s : j.slots) if (s != null) out.add(s.info());
            return out;
        });
    }

    public CompletableFuture<JobStatus> status(String job) {
        return call(() -> jobStatus(resolveOrThrow(job), job));
    }

    public CompletableFuture<CheckpointResult> checkpoint(String job, boolean exitAfter,
                                                          Consumer<CheckpointProgress> progress) {
        CompletableFuture<CheckpointResult> f = track(new CompletableFuture<>());
        submit(() -> {
            Job j;
            try {
                j = resolveOrThrow(job);
            } catch (RuntimeException e) {
                Throwable t = e.getCause();
                post(() -> f.completeExceptionally(t));
                return;
            }
            startCheckpoint(j, job, exitAfter, new FutureWaiter(f, progress), true);
        });
        return f;
    }

    /** Sets the interval of every job (the default, and the jobs that set their own). */
    public CompletableFuture<Void> setInterval(int seconds) {
        return call(() -> {
            applyInterval(seconds);
            return null;
        });
    }

    /** Sets the interval of one job (empty name: the only job, or "default" while there is none). */
    public CompletableFuture<Void> setInterval(String job, int seconds) {
        return call(() -> {
            String name = intervalJobName(job);
            if (name == null) resolveOrThrow(job); // throws: several jobs, none named
            applyJobInterval(name, seconds);
            return null;
        });
    }

    public CompletableFuture<Void> killJob(String job) {
        return call(() -> {
            Job j = resolveOrThrow(job);
            if (j != null) killJob(j);
            return null;
        });
    }

    /** Kills every rank of every job, then stops. */
    public CompletableFuture<Void> quit() {
        return call(() -> {
            quitAll();
            return null;
        });
    }

    // ================================================================ I/O: reactors

    /**
     * One selector thread. Reactor 0 also accepts, runs API tasks and timers. Each reactor reads,
     * decodes and writes only its own connections, outside the lock; the frames it decoded in one
     * select round are then handled in one go under the state lock. Frames for a connection are
     * queued by whoever handles a message (under the lock) and written by its reactor.
     */
    private final class Reactor implements Runnable {
        final int index;
        final Selector selector;
        Thread thread;
        final ByteBuffer readBuf = ByteBuffer.allocateDirect(64 * 1024);
        final ConcurrentLinkedQueue<Conn> toRegister = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Conn> toFlush = new ConcurrentLinkedQueue<>();
        final AtomicBoolean wakePending = new AtomicBoolean();
        /** What the connections of this reactor sent in one round, handled in order under the lock. */
        final ArrayList<Received> batch = new ArrayList<>();

        Reactor(int index) throws IOException {
            this.index = index;
            this.selector = Selector.open();
        }

        /** Makes this reactor look at its flush queue soon (called from other threads). */
        void poke() {
            if (wakePending.compareAndSet(false, true)) selector.wakeup();
        }

        @Override
        public void run() {
            String reason = "stopped";
            try {
                while (!stopping) {
                    long timeout = 1000;
                    if (index == 0) {
                        synchronized (CoordinatorServer.this) {
                            timeout = nextTimeoutMillis();
                        }
                    }
                    selector.select(this::onSelected, timeout);
                    wakePending.set(false);
                    Conn c;
                    while ((c = toRegister.poll()) != null) register(c);
                    if (!batch.isEmpty() || index == 0) {
                        synchronized (CoordinatorServer.this) {
                            handleBatch();
                            if (index == 0) {
                                Runnable t;
                                while ((t = tasks.poll()) != null) t.run();
                                timers();
                                if (stopReason != null) stopping = true;
                            }
                        }
                    }
                    flushAll();
                }
                if (index == 0) {
                    synchronized (CoordinatorServer.this) {
                        reason = stopReason == null ? "stopped" : stopReason;
                    }
                }
            } catch (Throwable e) {
                reason = "internal error: " + e;
                LOG.log(System.Logger.Level.ERROR, "coordinator thread " + Thread.currentThread().getName() + " failed", e);
                stopping = true;
                if (index != 0) reactors[0].selector.wakeup();
            }
            for (Reactor r : reactors) if (r != this) r.selector.wakeup();
            drainWrites();
            if (index == 0) shutdown(reason);
        }

        private void register(Conn c) {
            try {
                c.key = c.ch.register(selector, SelectionKey.OP_READ, c);
                if (!c.out.isEmpty()) flush(c);
            } catch (IOException e) {
                synchronized (CoordinatorServer.this) {
                    disconnect(c, "cannot register: " + e.getMessage());
                }
            }
        }

        private void onSelected(SelectionKey key) {
            if (!key.isValid()) return;
            if (key.isAcceptable()) {
                accept();
                return;
            }
            Conn c = (Conn) key.attachment();
            if (key.isWritable()) flush(c);
            if (key.isValid() && key.isReadable()) read(c);
        }

        private void accept() {
            for (int accepted = 0; accepted < ACCEPTS_PER_ROUND; accepted++) {
                SocketChannel ch;
                try {
                    ch = server.accept();
                } catch (IOException e) {
                    return; // e.g. out of descriptors: leave it in the backlog
                }
                if (ch == null) return;
                Conn c;
                try {
                    ch.configureBlocking(false);
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                } catch (IOException e) {
                    closeQuietly(ch);
                    continue;
                }
                synchronized (CoordinatorServer.this) {
                    Reactor r = reactors[nextReactor++ % reactors.length];
                    c = new Conn(ch, nextClientId++, r);
                    conns.add(c);
                    enterPreAuth(c);
                    send(c, 0, new Challenge(c.nonce));
                }
                if (c.reactor == this) {
                    register(c);
                } else {
                    c.reactor.toRegister.add(c);
                    c.reactor.selector.wakeup();
                }
            }
        }

        /** Reads what arrived and decodes it into the batch (no lock). */
        private void read(Conn c) {
            for (int rounds = 0; rounds < 8 && !c.closed; rounds++) {
                readBuf.clear();
                boolean preAuth = !c.authenticated;
                if (preAuth) {
                    // before AUTH is handled, read no byte past the frame in progress: what follows
                    // (a HELLO sent right behind AUTH) waits in the socket until the limit is lifted
                    if (c.authPending) return;
                    readBuf.limit(c.decoder.bytesToFrameEnd());
                }
                int n;
                try {
                    n = c.ch.read(readBuf);
                } catch (IOException e) {
                    batch.add(new Received(c, null, null, "connection reset"));
                    return;
                }
                if (n < 0) {
                    batch.add(new Received(c, null, null, c.byeSeen ? "said BYE" : "connection closed"));
                    return;
                }
                if (n == 0) return;
                readBuf.flip();
                try {
                    Frame f;
                    while (!c.closing && (f = c.decoder.next(readBuf)) != null) {
                        batch.add(new Received(c, f, null, null));
                        if (preAuth) {
                            c.authPending = true; // one frame only, until it has been handled
                            return;
                        }
                    }
                } catch (ProtocolException e) {
                    batch.add(new Received(c, null, e, null));
                    c.closing = true;
                    return;
                }
                if (c.closing || n < readBuf.limit()) return;
            }
        }

        /** Handles the decoded frames of this round, in order (under the lock). */
        private void handleBatch() {
            for (Received r : batch) {
                Conn c = r.conn();
                if (c.closed) continue;
                if (r.frame() != null) {
                    Frame f = r.frame();
                    if (c.closing) continue;
                    try {
                        if (!c.authenticated) {
                            c.authPending = false;
                            if (!(f.message() instanceof Auth a)) {
                                reject(c, ErrorCode.PROTOCOL, "AUTH first (got " + f.message().type() + ")", f.requestId());
                                continue;
                            }
                            c.authenticate(f.requestId(), a);
                            continue;
                        }
                        MessageDispatcher.dispatch(f, c);
                    } catch (ProtocolException e) {
                        reject(c, e.code(), e.getMessage(), f.requestId());
                    } catch (IOException e) {
                        disconnect(c, e.getMessage());
                    }
                } else if (r.error() != null) {
                    reject(c, r.error().code(), r.error().getMessage(), 0);
                } else {
                    disconnect(c, r.closed());
                }
            }
            batch.clear();
        }

        private void flushAll() {
            Conn c;
            while ((c = toFlush.poll()) != null) {
                c.flushScheduled.set(false);
                flush(c);
            }
        }

        /** At stop: give queued frames (OK to QUIT, KILL, results) up to a second to leave. */
        private void drainWrites() {
            long deadline = System.nanoTime() + 1_000_000_000L;
            try {
                while (true) {
                    flushAll();
                    boolean pending = false;
                    for (SelectionKey k : selector.keys()) {
                        if (k.attachment() instanceof Conn c && !c.closed && !c.out.isEmpty()) pending = true;
                    }
                    if (!pending || System.nanoTime() > deadline) return;
                    selector.select(k -> {
                        if (k.isValid() && k.isWritable()) flush((Conn) k.attachment());
                    }, 20);
                }
            } catch (IOException | RuntimeException ignored) {
                // closing anyway
            }
        }
    }

    /** One item of a reactor's round: a frame, a malformed input, or the end of the connection. */
    private record Received(Conn conn, Frame frame, ProtocolException error, String closed) {}

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // gone
        }
    }

    private long nextTimeoutMillis() {
        long now = System.nanoTime();
        long next = now + 1_000_000_000L;
        if (!unauthenticated.isEmpty()) {
            next = Math.min(next, unauthenticated.iterator().next().openedNs + settings.helloTimeoutMillis * 1_000_000L);
        }
        for (Job j : jobs.values()) if (j.nextIntervalNs != 0) next = Math.min(next, j.nextIntervalNs);
        return Math.max(1, (next - now) / 1_000_000L + 1);
    }

    private void timers() {
        long now = System.nanoTime();
        while (!unauthenticated.isEmpty()) {
            Conn c = unauthenticated.iterator().next();
            if (now - c.openedNs < settings.helloTimeoutMillis * 1_000_000L) break;
            leavePreAuth(c);
            reject(c, ErrorCode.PROTOCOL, "no AUTH within " + settings.helloTimeoutMillis + " ms", 0);
        }
        for (Job j : jobs.values()) {
            if (j.nextIntervalNs != 0 && now - j.nextIntervalNs >= 0) {
                j.nextIntervalNs = 0;
                if (intervalOf(j.name) > 0 && j.ckpt == null) startCheckpoint(j, j.name, false, null, false);
                if (j.ckpt == null) scheduleInterval(j);
            }
        }
    }

    /** Under the lock. Reactor 0 notices at its next round. */
    private void requestStop(String reason) {
        if (stopReason == null) stopReason = reason;
        reactors[0].selector.wakeup();
    }

    /** Reactor 0, after every reactor stopped its loop. */
    private void shutdown(String reason) {
        for (Reactor r : reactors) {
            if (r.index != 0) {
                try {
                    r.thread.join(3000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        synchronized (this) {
            for (Conn c : new ArrayList<>(conns)) closeChannel(c);
            conns.clear();
            for (Job j : jobs.values()) {
                if (j.ckpt != null) {
                    for (Waiter w : j.ckpt.waiters) {
                        w.result(new CkptResult(false, j.ckpt.generation, 0, 0, 0, "", "coordinator stopped"), j.name);
                    }
                }
            }
        }
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Reactor r : reactors) {
            try {
                r.selector.close();
            } catch (IOException ignored) {
                // closing
            }
        }
        emit(l -> l.stopped(reason));
        events.shutdown();
        Runnable t;
        while ((t = tasks.poll()) != null) {
            try {
                synchronized (this) {
                    t.run();
                }
            } catch (RuntimeException ignored) {
                // futures fail through termination
            }
        }
        terminated.complete(reason);
        for (CompletableFuture<?> f : pending) f.completeExceptionally(new CoordinatorException("coordinator stopped"));
    }

    // ================================================================ output (under the lock)

    /** Queues a frame for a connection; its reactor writes it. */
    private void send(Conn c, int requestId, Message m) {
        if (c.closed) return;
        ByteBuffer b;
        try {
            b = MessageCodec.encode(requestId, m);
        } catch (ProtocolException e) {
            b = encodeUnchecked(requestId, new ErrorMessage(e.code(), e.getMessage()));
        }
        enqueue(c, b);
    }

    private static ByteBuffer encodeUnchecked(int requestId, Message m) {
        try {
            return MessageCodec.encode(requestId, m);
        } catch (ProtocolException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Queues a pre-encoded frame (broadcasts encode once) with its request id patched in. */
    private void sendTemplate(Conn c, byte[] frame, int requestId) {
        if (c.closed) return;
        ByteBuffer b = ByteBuffer.wrap(frame.clone());
        if (requestId != 0) b.order(ByteOrder.LITTLE_ENDIAN).putInt(12, requestId);
        enqueue(c, b);
    }

    private void enqueue(Conn c, ByteBuffer b) {
        c.out.add(b);
        long q = c.queued.addAndGet(b.remaining());
        if (q > Protocol.MAX_QUEUED_BYTES) {
            disconnect(c, "client does not read its replies (" + q + " bytes queued)");
            return;
        }
        scheduleFlush(c);
    }

    private void scheduleFlush(Conn c) {
        if (c.flushScheduled.compareAndSet(false, true)) {
            c.reactor.toFlush.add(c);
            if (Thread.currentThread() != c.reactor.thread) c.reactor.poke();
        }
    }

    /** Writes what is queued for a connection (its reactor's thread only, no lock). */
    private void flush(Conn c) {
        if (c.closed || c.key == null) return;
        try {
            ByteBuffer b;
            while ((b = c.out.peek()) != null) {
                int n = c.ch.write(b);
                c.queued.addAndGet(-n);
                if (b.hasRemaining()) {
                    if (!c.writeInterest && c.key.isValid()) {
                        c.key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                        c.writeInterest = true;
                    }
                    return;
                }
                c.out.poll();
            }
            if (c.writeInterest && c.key.isValid()) {
                c.key.interestOps(SelectionKey.OP_READ);
                c.writeInterest = false;
            }
        } catch (IOException | java.nio.channels.CancelledKeyException e) {
            synchronized (this) {
                disconnect(c, "connection reset");
            }
            return;
        }
        if (c.closing && c.out.isEmpty()) {
            synchronized (this) {
                disconnect(c, c.closeReason);
            }
        }
    }

    /** Answers with ERROR and closes the connection once the ERROR has been written. */
    private void reject(Conn c, ErrorCode code, String message, int requestId) {
        if (c.closed) return;
        String remote = c.remote();
        send(c, requestId, new ErrorMessage(code, message));
        emit(l -> l.clientRejected(remote, code + ": " + message));
        closeAfterFlush(c, code + ": " + message);
    }

    private void closeAfterFlush(Conn c, String reason) {
        c.closeReason = reason;
        c.closing = true;
        scheduleFlush(c);
    }

    private void closeChannel(Conn c) {
        c.closed = true;
        if (c.key != null) c.key.cancel();
        closeQuietly(c.ch);
    }

    private void disconnect(Conn c, String reason) {
        if (c.closed) return;
        closeChannel(c);
        conns.remove(c);
        leavePreAuth(c);
        c.out.clear();
        Slot s = c.slot;
        if (s != null && s.conn == c) {
            c.slot = null;
            rankGone(s, reason);
        }
        if (c.members != null && c.liveMembers > 0) {
            Job j = c.job;
            if (j.ckpt != null) {
                abort(j, "rank group " + c.describeGroup() + " disconnected during checkpoint " + j.ckpt.generation);
            }
            c.liveMembers = 0;
            for (Slot m : c.members) if (m.live && m.conn == c) rankGone(m, reason);
        }
    }

    // ================================================================ before authentication

    /** A new connection: counted against the limits, the oldest stranger closed beyond them. */
    private void enterPreAuth(Conn c) {
        LinkedHashSet<Conn> same = unauthenticatedByAddress.computeIfAbsent(c.address, a -> new LinkedHashSet<>());
        if (same.size() >= Math.max(1, settings.maxUnauthenticatedPerAddress)) {
            evict(same.iterator().next(), "too many unauthenticated connections from " + c.address.getHostAddress());
        }
        if (unauthenticated.size() >= Math.max(1, settings.maxUnauthenticated)) {
            evict(unauthenticated.iterator().next(), "too many unauthenticated connections");
        }
        unauthenticated.add(c);
        same.add(c);
    }

    private void evict(Conn old, String why) {
        leavePreAuth(old);
        reject(old, ErrorCode.PROTOCOL, why, 0);
    }

    private void leavePreAuth(Conn c) {
        if (!unauthenticated.remove(c)) return;
        LinkedHashSet<Conn> same = unauthenticatedByAddress.get(c.address);
        if (same != null) {
            same.remove(c);
            if (same.isEmpty()) unauthenticatedByAddress.remove(c.address);
        }
    }

    /** For tests and diagnostics: connections that have not authenticated yet. */
    public CompletableFuture<Integer> unauthenticatedCount() {
        return call(unauthenticated::size);
    }

    // ================================================================ jobs and ranks

    private Job resolve(String name) {
        if (name != null && !name.isEmpty()) return jobs.get(name);
        if (jobs.size() == 1) return jobs.values().iterator().next();
        Job only = null;
        for (Job j : jobs.values()) {
            if (j.live > 0) {
                if (only != null) return null;
                only = j;
            }
        }
        return only;
    }

    /** The job a control request means; null when no job exists yet and none was named. */
    private Job resolveOrThrow(String name) {
        Job j = resolve(name);
        if (j != null) return j;
        if (name != null && !name.isEmpty()) {
            throw new IllegalStateException(new CoordinatorException("no job named '" + name + "'",
                    ErrorCode.UNKNOWN_JOB, null));
        }
        if (jobs.isEmpty()) return null;
        throw new IllegalStateException(new CoordinatorException("several jobs (" + String.join(", ", jobs.keySet())
                + "): name one", ErrorCode.UNKNOWN_JOB, null));
    }

    private JobStatus jobStatus(Job j, String name) {
        if (j == null) {
            return new JobStatus(name == null ? "" : name, 0, 0, 0, false, 0, 0, 0, "",
                    intervalOf(name == null || name.isEmpty() ? "default" : name));
        }
        return new JobStatus(j.name, j.nranks, j.live, j.generation, j.ckpt != null, j.lastCkptUnixMs, j.lastCkptNs,
                j.lastCkptBytes, j.lastCkptDir, intervalOf(j.name));
    }

    private void rankGone(Slot s, String reason) {
        Job j = s.job;
        if (!s.live) return;
        s.live = false;
        j.live--;
        RankState prev = s.state;
        s.state = RankState.EXITED;
        if (j.ckpt != null) {
            abort(j, "rank " + s.rank + " " + (s.byeReason >= 0 ? "exited" : "disconnected") + " during checkpoint "
                    + j.ckpt.generation);
        }
        if (listener != null) {
            RankInfo info = s.info();
            emit(l -> {
                l.rankStateChanged(info, prev);
                l.rankExited(info, reason);
            });
        }
        // an exited rank no longer holds up collectives
        for (PendingCollective pc : new ArrayList<>(j.collectives.values())) {
            if (!pc.contributed[s.rank]) {
                pc.contributed[s.rank] = true;
                pc.done++;
                checkComplete(j, pc);
            }
        }
        j.nextIntervalNs = 0;
        if (settings.exitOnLast && everHadRank && totalLive() == 0) requestStop("last rank exited");
    }

    private int totalLive() {
        int n = 0;
        for (Job j : jobs.values()) n += j.live;
        return n;
    }

    private void killJob(Job j) {
        broadcast(j, encodeBytes(new Kill()));
    }

    /** Sends a pre-encoded frame once to every connection that carries a live rank of the job. */
    private void broadcast(Job j, byte[] frame) {
        int stamp = ++broadcastStamp;
        for (Slot s : j.slots) {
            if (s != null && s.live && s.conn.stamp != stamp) {
                s.conn.stamp = stamp;
                sendTemplate(s.conn, frame, 0);
            }
        }
    }

    private void quitAll() {
        for (Job j : jobs.values()) killJob(j);
        requestStop("quit");
    }

    private void applyInterval(int seconds) {
        intervalSeconds = Math.max(0, seconds);
        jobIntervals.clear();
        for (Job j : jobs.values()) {
            j.nextIntervalNs = 0;
            if (j.ckpt == null) scheduleInterval(j);
        }
    }

    private int intervalOf(String job) {
        return jobIntervals.getOrDefault(job, intervalSeconds);
    }

    /** The job a SET_INTERVAL means: the named one, the only one, "default" while none exists; null = ambiguous. */
    private String intervalJobName(String name) {
        if (name != null && !name.isEmpty()) return name;
        Job j = resolve("");
        if (j != null) return j.name;
        return jobs.isEmpty() ? "default" : null;
    }

    private void applyJobInterval(String name, int seconds) {
        jobIntervals.put(name, Math.max(0, seconds));
        Job j = jobs.get(name);
        if (j != null) {
            j.nextIntervalNs = 0;
            if (j.ckpt == null) scheduleInterval(j);
        }
    }

    private void scheduleInterval(Job j) {
        int interval = intervalOf(j.name);
        if (interval > 0 && j.nranks > 0 && j.live == j.nranks) {
            j.nextIntervalNs = System.nanoTime() + interval * 1_000_000_000L;
        } else {
            j.nextIntervalNs = 0;
        }
    }

    private static byte[] encodeBytes(Message m) {
        try {
            return MessageCodec.encodeBytes(0, m);
        } catch (ProtocolException e) {
            throw new IllegalStateException(e);
        }
    }

    // ================================================================ collectives

    private void checkComplete(Job j, PendingCollective pc) {
        if (pc.done < j.nranks || pc.contributions == 0) return;
        j.collectives.remove(pc.key);
        if (pc.mismatch) {
            ErrorMessage e = new ErrorMessage(ErrorCode.MISMATCH, "collective (" + pc.generation + ", " + pc.phase
                    + "): ranks disagree on op or count");
            for (int r = 0; r < j.nranks; r++) {
                Conn c = pc.waiters[r];
                if (c != null) send(c, pc.requestIds[r], e);
            }
            for (int i = 0; i < pc.groupWaiters.size(); i++) send(pc.groupWaiters.get(i), pc.groupRequestIds.get(i), e);
            return;
        }
        CheckpointRun ck = j.ckpt;
        boolean ours = ck != null && Protocol.isCheckpointPhase(pc.phase) && pc.generation == ck.generation;
        // committed the moment phase 4 completes: a disconnect while the answers go out must not abort it
        if (ours && pc.phase == Protocol.PHASE_COMMITTED) j.ckpt = null;
        byte[] done = encodeBytes(new CollectiveDone(pc.generation, pc.phase, pc.op, pc.acc));
        for (int r = 0; r < j.nranks; r++) {
            Conn c = pc.waiters[r];
            if (c != null) sendTemplate(c, done, pc.requestIds[r]);
        }
        for (int i = 0; i < pc.groupWaiters.size(); i++) {
            sendTemplate(pc.groupWaiters.get(i), done, pc.groupRequestIds.get(i));
        }
        if (ours) {
            progress(j, ck, stateOfPhase(pc.phase), j.nranks, true);
            if (pc.phase == Protocol.PHASE_COMMITTED) commit(j, ck);
        } else if (pc.phase == Protocol.PHASE_RESUMED) {
            for (int r = 0; r < j.nranks; r++) {
                Slot s = j.slots[r];
                if (pc.participated[r] && s != null && s.live) setState(s, RankState.RUNNING);
            }
            if (j.live == j.nranks) scheduleInterval(j);
        }
    }

    private static RankState stateOfPhase(int phase) {
        switch (phase) {
            case Protocol.PHASE_SUSPENDED: return RankState.SUSPENDED;
            case Protocol.PHASE_CHECKPOINTED: return RankState.CHECKPOINTED;
            case Protocol.PHASE_COMMITTED: return RankState.COMMITTED;
            case Protocol.PHASE_RESTARTED: case Protocol.PHASE_REFILLED: return RankState.RESTARTING;
            case Protocol.PHASE_RESUMED: return RankState.RUNNING;
            default:
                return phase == Protocol.PHASE_DRAINED
                        || (phase >= Protocol.PHASE_DRAIN_FIRST && phase <= Protocol.PHASE_DRAIN_LAST)
                        ? RankState.DRAINED : null;
        }
    }

    private void setState(Slot s, RankState st) {
        if (st == null || s.state == st) return;
        RankState prev = s.state;
        s.state = st;
        if (listener != null) {
            RankInfo info = s.info();
            emit(l -> l.rankStateChanged(info, prev));
        }
    }

    // ================================================================ checkpoints

    private void startCheckpoint(Job j, String name, boolean exitAfter, Waiter waiter, boolean wait) {
        String refuse = null;
        if (j == null || j.nranks == 0) {
            refuse = "no ranks registered";
        } else if (j.ckpt != null) {
            refuse = "checkpoint already in progress";
        } else if (j.live < j.nranks) {
            refuse = j.live + " of " + j.nranks + " ranks registered";
        } else {
            int restarting = 0;
            for (Slot s : j.slots) if (s.state == RankState.RESTARTING) restarting++;
            if (restarting > 0) refuse = restarting + " of " + j.nranks + " ranks still restarting";
        }
        if (refuse != null) {
            if (waiter != null) {
                waiter.result(new CkptResult(false, j == null ? 0 : j.generation, 0, 0, 0, "", refuse),
                        j == null ? (name == null ? "" : name) : j.name);
            }
            return;
        }
        CheckpointRun ck = new CheckpointRun(Math.max(j.generation, j.lastAttempted) + 1, exitAfter);
        j.ckpt = ck;
        j.lastAttempted = ck.generation;
        j.nextIntervalNs = 0;
        if (waiter != null) {
            if (wait) {
                ck.waiters.add(waiter);
            } else {
                waiter.result(new CkptResult(true, ck.generation, 0, 0, 0, "", "started"), j.name);
            }
        }
        String jobName = j.name;
        emit(l -> l.checkpointStarted(jobName, ck.generation, exitAfter));
        broadcast(j, encodeBytes(new CkptRequest(ck.generation, exitAfter ? Protocol.FLAG_EXIT_AFTER : 0, "")));
    }

    private void progress(Job j, CheckpointRun ck, RankState st, int reached, boolean force) {
        long now = System.nanoTime();
        if (!force && now - ck.lastProgressNs < PROGRESS_EVERY_NS) return;
        ck.lastProgressNs = now;
        CkptProgress p = new CkptProgress(ck.generation, st.code, reached, j.nranks);
        CheckpointProgress cp = new CheckpointProgress(j.name, ck.generation, st, reached, j.nranks);
        emit(l -> l.checkpointProgress(cp));
        for (Waiter w : ck.waiters) w.progress(p, j.name);
    }

    private void commit(Job j, CheckpointRun ck) {
        j.ckpt = null;
        j.generation = ck.generation;
        j.lastCkptUnixMs = System.currentTimeMillis();
        j.lastCkptNs = System.nanoTime() - ck.startNs;
        j.lastCkptBytes = ck.totalBytes;
        Slot first = j.slots[0];
        j.lastCkptDir = first == null ? "" : first.ckptdir;
        for (Slot s : j.slots) {
            if (s != null && s.live) {
                s.generation = ck.generation;
                setState(s, RankState.RUNNING);
            }
        }
        CkptResult r = new CkptResult(true, ck.generation, j.lastCkptNs, ck.totalBytes, j.nranks, j.lastCkptDir, "");
        emit(l -> l.checkpointFinished(toResult(r, j.name)));
        for (Waiter w : ck.waiters) w.result(r, j.name);
        scheduleInterval(j);
    }

    private void abort(Job j, String reason) {
        CheckpointRun ck = j.ckpt;
        if (ck == null) return;
        j.ckpt = null;
        j.collectives.values().removeIf(pc -> pc.generation == ck.generation && Protocol.isCheckpointPhase(pc.phase));
        broadcast(j, encodeBytes(new CkptAbort(ck.generation, reason)));
        for (Slot s : j.slots) if (s != null && s.live) setState(s, RankState.RUNNING);
        CkptResult r = new CkptResult(false, ck.generation, System.nanoTime() - ck.startNs, 0, j.nranks, "",
                "checkpoint " + ck.generation + " aborted: " + reason);
        emit(l -> l.checkpointFinished(toResult(r, j.name)));
        for (Waiter w : ck.waiters) w.result(r, j.name);
        scheduleInterval(j);
    }

    private static CheckpointResult toResult(CkptResult r, String job) {
        return new CheckpointResult(job, r.ok(), r.generation(), r.elapsedNs(), r.totalBytes(), r.ranks(), r.dir(),
                r.message());
    }

    private void emit(Consumer<CoordinatorListener> event) {
        if (listener != null) post(() -> event.accept(listener));
    }

    /** Runs {@code r} on the event thread, after every event emitted before it. */
    private void post(Runnable r) {
        try {
            events.execute(() -> {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "a coordinator listener failed", e);
                }
            });
        } catch (RuntimeException ignored) {
            // events stopped
        }
    }

    // ================================================================ state classes

    private static final class Job {
        final String name;
        int nranks;
        Slot[] slots;
        int live;
        int generation;
        int lastAttempted;
        CheckpointRun ckpt;
        final Map<Long, PendingCollective> collectives = new HashMap<>();
        final Map<String, byte[]> kv = new HashMap<>();
        final Map<String, List<KvWaiter>> kvWaiters = new HashMap<>();
        long kvBytes;
        long lastCkptUnixMs, lastCkptNs, lastCkptBytes;
        String lastCkptDir = "";
        long nextIntervalNs;

        Job(String name) { this.name = name; }

        void reset(int n) {
            nranks = n;
            slots = new Slot[n];
            live = 0;
            generation = 0;
            lastAttempted = 0;
            ckpt = null;
            collectives.clear();
            kv.clear();
            kvWaiters.clear();
            kvBytes = 0;
            lastCkptUnixMs = lastCkptNs = lastCkptBytes = 0;
            lastCkptDir = "";
            nextIntervalNs = 0;
        }
    }

    /** A KV_GET with wait, answered by the PUT of its key. */
    private record KvWaiter(Conn conn, int requestId) {}

    private static final class Slot {
        final Job job;
        final int rank;
        Conn conn;
        String host, mpi, ckptdir, program;
        int pid, generation, clientId;
        RankState state;
        boolean live = true;
        int byeReason = -1;

        Slot(Job job, int rank) {
            this.job = job;
            this.rank = rank;
        }

        RankInfo info() {
            return new RankInfo(job.name, rank, host, pid, state, generation, mpi, clientId, program, ckptdir);
        }
    }

    private static final class PendingCollective {
        final long key;
        final int generation, phase, op;
        final long[] acc;
        final boolean[] contributed;
        final Conn[] waiters;          // per-rank connections, by rank
        final int[] requestIds;
        final boolean[] participated;  // covered by a contribution (of its own or of its group)
        final List<Conn> groupWaiters = new ArrayList<>(0);
        final List<Integer> groupRequestIds = new ArrayList<>(0);
        int contributions, done;       // both counted in ranks
        boolean mismatch;

        PendingCollective(long key, int generation, int phase, int op, int count, Job j) {
            this.key = key;
            this.generation = generation;
            this.phase = phase;
            this.op = op;
            this.acc = new long[count];
            long init = op == Protocol.OP_MAX ? Long.MIN_VALUE : op == Protocol.OP_MIN ? Long.MAX_VALUE : 0;
            java.util.Arrays.fill(acc, init);
            this.contributed = new boolean[j.nranks];
            this.waiters = new Conn[j.nranks];
            this.requestIds = new int[j.nranks];
            this.participated = new boolean[j.nranks];
            for (int r = 0; r < j.nranks; r++) {
                Slot s = j.slots[r];
                if (s != null && !s.live) {
                    contributed[r] = true;
                    done++;
                }
            }
        }

        void add(long[] v) {
            switch (op) {
                case Protocol.OP_SUM: for (int i = 0; i < v.length; i++) acc[i] += v[i]; break;
                case Protocol.OP_MAX: for (int i = 0; i < v.length; i++) acc[i] = Math.max(acc[i], v[i]); break;
                case Protocol.OP_MIN: for (int i = 0; i < v.length; i++) acc[i] = Math.min(acc[i], v[i]); break;
                case Protocol.OP_OR: for (int i = 0; i < v.length; i++) acc[i] |= v[i]; break;
                default: break;
            }
        }
    }

    private static final class CheckpointRun {
        final int generation;
        final boolean exitAfter;
        final long startNs = System.nanoTime();
        final List<Waiter> waiters = new ArrayList<>(1);
        long totalBytes;
        long lastProgressNs;

        CheckpointRun(int generation, boolean exitAfter) {
            this.generation = generation;
            this.exitAfter = exitAfter;
        }
    }

    /** Someone waiting for a checkpoint: a control connection or an in-process future. */
    private interface Waiter {
        void progress(CkptProgress p, String job);

        void result(CkptResult r, String job);
    }

    private final class ControlWaiter implements Waiter {
        final Conn conn;
        final int requestId;

        ControlWaiter(Conn conn, int requestId) {
            this.conn = conn;
            this.requestId = requestId;
        }

        @Override public void progress(CkptProgress p, String job) { send(conn, requestId, p); }

        @Override public void result(CkptResult r, String job) { send(conn, requestId, r); }
    }

    private final class FutureWaiter implements Waiter {
        final CompletableFuture<CheckpointResult> future;
        final Consumer<CheckpointProgress> progress;

        FutureWaiter(CompletableFuture<CheckpointResult> future, Consumer<CheckpointProgress> progress) {
            this.future = future;
            this.progress = progress;
        }

        @Override public void progress(CkptProgress p, String job) {
            if (progress == null) return;
            CheckpointProgress cp = new CheckpointProgress(job, p.generation(), RankState.of(p.state()), p.reached(),
                    p.nranks());
            post(() -> progress.accept(cp));
        }

        @Override public void result(CkptResult r, String job) {
            CheckpointResult res = toResult(r, job);
            post(() -> future.complete(res)); // after the listener's events, in order
        }
    }

    // ================================================================ one connection

    private final class Conn implements MessageHandler {
        final SocketChannel ch;
        final int clientId;
        final Reactor reactor;
        final long openedNs = System.nanoTime();
        final FrameDecoder decoder = new FrameDecoder(Protocol.PRE_AUTH_MAX_BODY); // its reactor only
        final java.net.InetAddress address;
        final byte[] nonce = Handshake.nonce();  // of CHALLENGE
        volatile boolean authenticated;
        boolean authPending;  // its reactor only: an AUTH was read and waits to be handled
        final ConcurrentLinkedQueue<ByteBuffer> out = new ConcurrentLinkedQueue<>();
        final AtomicLong queued = new AtomicLong();
        final AtomicBoolean flushScheduled = new AtomicBoolean();
        volatile SelectionKey key;
        volatile boolean closed, closing;
        boolean byeSeen, writeInterest;
        volatile String closeReason;
        int role;
        Slot slot;
        Slot[] self;          // {slot}, for a rank connection
        Slot[] members;       // a group connection's member ranks, by rank
        int[] memberRanks;    // their ranks, ascending
        int liveMembers;
        int stamp;            // broadcast() marks the connections it already served
        Job job;
        String controlJob = "";

        Conn(SocketChannel ch, int clientId, Reactor reactor) {
            this.ch = ch;
            this.clientId = clientId;
            this.reactor = reactor;
            java.net.InetAddress a;
            try {
                a = ((InetSocketAddress) ch.getRemoteAddress()).getAddress();
            } catch (IOException | RuntimeException e) {
                a = java.net.InetAddress.getLoopbackAddress();
            }
            this.address = a;
        }

        /** AUTH: the client's proof of the secret over both nonces; answered with ours, or ERROR AUTH. */
        void authenticate(int id, Auth m) {
            leavePreAuth(this);
            if (!Handshake.matches(Handshake.clientProof(secret, nonce, m.nonce()), m.mac())) {
                reject(this, ErrorCode.AUTH, "wrong secret", id);
                return;
            }
            authenticated = true;
            decoder.maxBody(Protocol.MAX_BODY);
            send(this, id, new AuthOk(Handshake.coordinatorProof(secret, nonce, m.nonce())));
        }

        String remote() {
            try {
                return String.valueOf(ch.getRemoteAddress());
            } catch (IOException e) {
                return "?";
            }
        }

        private void requireRank() throws ProtocolException {
            if (role != Protocol.ROLE_RANK || slot == null) {
                throw new ProtocolException(ErrorCode.PROTOCOL, role == 0 ? "HELLO first"
                        : role == Protocol.ROLE_GROUP ? "a group connection sends the GROUP_ variant of this message"
                        : "rank messages need role rank");
            }
        }

        private void requireGroup() throws ProtocolException {
            if (role != Protocol.ROLE_GROUP) {
                throw new ProtocolException(ErrorCode.PROTOCOL, role == 0 ? "HELLO first"
                        : "group messages need role group");
            }
        }

        /** Rank and group connections share the per-job records. */
        private void requireRankOrGroup() throws ProtocolException {
            if (role == Protocol.ROLE_GROUP) return;
            requireRank();
        }

        /** A live member of this group, or null after ERROR PROTOCOL was sent (the connection stays). */
        private Slot member(int id, int rank) {
            int i = java.util.Arrays.binarySearch(memberRanks, rank);
            if (i >= 0 && members[i].live && members[i].conn == this) return members[i];
            send(this, id, new ErrorMessage(ErrorCode.PROTOCOL, "rank " + rank + " is not a live member of this group"));
            return null;
        }

        String describeGroup() {
            return "of " + members.length + " ranks (" + memberRanks[0] + ".." + memberRanks[memberRanks.length - 1]
                    + ", client " + clientId + ")";
        }

        private void requireControl() throws ProtocolException {
            if (role != Protocol.ROLE_CONTROL) {
                throw new ProtocolException(ErrorCode.PROTOCOL, role == 0 ? "HELLO first" : "control messages need role control");
            }
        }

        @Override public void onAuth(int id, Auth m) throws ProtocolException {
            throw new ProtocolException(ErrorCode.PROTOCOL, "second AUTH");
        }

        @Override public void unexpected(int id, Message m) throws ProtocolException {
            throw new ProtocolException(ErrorCode.PROTOCOL, role == 0 ? "HELLO first (got " + m.type() + ")"
                    : "message " + m.type() + " not allowed from this client");
        }

        // ---- registration

        @Override public void onHello(int id, Hello m) throws IOException {
            if (role != 0) throw new ProtocolException(ErrorCode.PROTOCOL, "second HELLO");
            if (m.role() == Protocol.ROLE_CONTROL) {
                role = Protocol.ROLE_CONTROL;
                controlJob = m.job();
                Job j = resolve(controlJob);
                send(this, id, new Welcome(clientId, j == null ? 0 : j.generation,
                        intervalOf(j != null ? j.name : controlJob.isEmpty() ? "default" : controlJob),
                        j == null ? controlJob : j.name));
                return;
            }
            if (m.role() != Protocol.ROLE_RANK) {
                reject(this, ErrorCode.PROTOCOL, "unknown role " + m.role(), id);
                return;
            }
            if (m.nranks() < 1 || m.nranks() > MAX_RANKS) {
                reject(this, ErrorCode.TOO_LARGE, "nranks " + m.nranks() + " outside 1.." + MAX_RANKS, id);
                return;
            }
            if (m.rank() < 0 || m.rank() >= m.nranks()) {
                reject(this, ErrorCode.PROTOCOL, "rank " + m.rank() + " outside 0.." + (m.nranks() - 1), id);
                return;
            }
            String name = m.job().isEmpty() ? "default" : m.job();
            Job j = jobs.get(name);
            boolean fresh = false;
            if (j == null) {
                j = new Job(name);
                jobs.put(name, j);
                j.reset(m.nranks());
                fresh = true;
            } else if (j.live == 0 && j.ckpt == null) {
                j.reset(m.nranks()); // the previous run of this job is over: start afresh
                fresh = true;
            }
            if (j.nranks != m.nranks()) {
                reject(this, ErrorCode.MISMATCH, "job '" + name + "' has " + j.nranks + " ranks, not " + m.nranks(), id);
                return;
            }
            Slot old = j.slots[m.rank()];
            if (old != null && old.live) {
                reject(this, ErrorCode.DUPLICATE_RANK, "rank " + m.rank() + " of job '" + name
                        + "' is already registered (pid " + old.pid + " on " + old.host + ")", id);
                return;
            }
            Slot s = register(j, new GroupMember(m.rank(), m.host(), m.pid(), m.mpi(), m.generation(),
                    m.restarting(), m.ckptdir(), m.program()));
            role = Protocol.ROLE_RANK;
            slot = s;
            self = new Slot[] {s};
            job = j;
            everHadRank = true;
            send(this, id, new Welcome(clientId, j.generation, intervalOf(name), name));
            if (listener != null) {
                int n = j.nranks;
                RankInfo info = s.info();
                boolean started = fresh;
                emit(l -> {
                    if (started) l.jobStarted(name, n);
                    l.rankRegistered(info);
                });
            }
            if (j.live == j.nranks && j.ckpt == null) scheduleInterval(j);
        }

        /** Registers one rank of job j on this connection, from a rank HELLO or one member of a group HELLO. */
        private Slot register(Job j, GroupMember m) {
            Slot s = new Slot(j, m.rank());
            s.conn = this;
            s.host = m.host();
            s.pid = m.pid();
            s.mpi = m.mpi();
            s.ckptdir = m.ckptdir();
            s.program = m.program();
            s.generation = m.generation();
            s.clientId = clientId;
            s.state = m.restarting() ? RankState.RESTARTING : RankState.RUNNING;
            if (m.restarting()) j.generation = Math.max(j.generation, m.generation());
            j.slots[m.rank()] = s;
            j.live++;
            return s;
        }

        @Override public void onGroupHello(int id, GroupHello m) throws IOException {
            if (role != 0) throw new ProtocolException(ErrorCode.PROTOCOL, "second HELLO");
            int n = m.nranks();
            if (n < 1 || n > MAX_RANKS) {
                reject(this, ErrorCode.TOO_LARGE, "nranks " + n + " outside 1.." + MAX_RANKS, id);
                return;
            }
            List<GroupMember> ms = m.members();
            if (ms.isEmpty()) {
                reject(this, ErrorCode.PROTOCOL, "a rank group needs at least one member", id);
                return;
            }
            int[] ranks = new int[ms.size()];
            for (int i = 0; i < ranks.length; i++) {
                int r = ms.get(i).rank();
                if (r < 0 || r >= n) {
                    reject(this, ErrorCode.PROTOCOL, "member rank " + r + " outside 0.." + (n - 1), id);
                    return;
                }
                ranks[i] = r;
            }
            int[] sorted = ranks.clone();
            java.util.Arrays.sort(sorted);
            for (int i = 1; i < sorted.length; i++) {
                if (sorted[i] == sorted[i - 1]) {
                    reject(this, ErrorCode.PROTOCOL, "member rank " + sorted[i] + " listed twice", id);
                    return;
                }
            }
            String name = m.job().isEmpty() ? "default" : m.job();
            Job j = jobs.get(name);
            boolean fresh = j == null || (j.live == 0 && j.ckpt == null);
            if (!fresh) { // all checks before anything is registered: a group gets in whole or not at all
                if (j.nranks != n) {
                    reject(this, ErrorCode.MISMATCH, "job '" + name + "' has " + j.nranks + " ranks, not " + n, id);
                    return;
                }
                for (int r : sorted) {
                    Slot old = j.slots[r];
                    if (old != null && old.live) {
                        reject(this, ErrorCode.DUPLICATE_RANK, "rank " + r + " of job '" + name
                                + "' is already registered (pid " + old.pid + " on " + old.host + ")", id);
                        return;
                    }
                }
            }
            if (j == null) {
                j = new Job(name);
                jobs.put(name, j);
            }
            if (fresh) j.reset(n); // a new job, or the previous run of this job is over: start afresh
            Slot[] slots = new Slot[ms.size()];
            List<RankInfo> infos = listener == null ? null : new ArrayList<>(ms.size());
            for (GroupMember gm : ms) {
                Slot s = register(j, gm);
                slots[java.util.Arrays.binarySearch(sorted, gm.rank())] = s;
                if (infos != null) infos.add(s.info());
            }
            role = Protocol.ROLE_GROUP;
            members = slots;
            memberRanks = sorted;
            liveMembers = slots.length;
            job = j;
            everHadRank = true;
            send(this, id, new Welcome(clientId, j.generation, intervalOf(name), name));
            if (listener != null) {
                boolean started = fresh;
                emit(l -> {
                    if (started) l.jobStarted(name, n);
                    for (RankInfo info : infos) l.rankRegistered(info);
                });
            }
            if (j.live == j.nranks && j.ckpt == null) scheduleInterval(j);
        }

        // ---- rank messages

        @Override public void onCollective(int id, Collective m) throws IOException {
            requireRank();
            contribute(id, m.generation(), m.phase(), m.op(), m.values(), self, 1);
        }

        @Override public void onGroupCollective(int id, GroupCollective m) throws IOException {
            requireGroup();
            if (liveMembers == 0) {
                send(this, id, new ErrorMessage(ErrorCode.PROTOCOL, "this group has no live member rank"));
                return;
            }
            CheckpointRun running = job.ckpt;
            boolean stale = Protocol.isCheckpointPhase(m.phase())
                    && (running == null || running.generation != m.generation());
            if (m.members() != liveMembers && !stale) { // (a stale phase message is answered with CKPT_ABORT below)
                String why = "group " + describeGroup() + " has " + liveMembers + " live ranks, its contribution to ("
                        + m.generation() + ", " + m.phase() + ") covers " + Integer.toUnsignedString(m.members());
                CheckpointRun ck = job.ckpt;
                if (Protocol.isCheckpointPhase(m.phase()) && ck != null && ck.generation == m.generation()) {
                    abort(job, why);
                } else {
                    send(this, id, new ErrorMessage(ErrorCode.MISMATCH, why));
                }
                return;
            }
            contribute(id, m.generation(), m.phase(), m.op(), m.values(), members, liveMembers);
        }

        /**
         * One contribution to the collective (generation, phase), already reduced over the live ranks
         * among {@code covered} ({@code n} of them): the rank itself, or a group's live members.
         */
        private void contribute(int id, int generation, int phase, int op, long[] values, Slot[] covered, int n) {
            Job j = job;
            if (op > Protocol.OP_MIN) {
                send(this, id, new ErrorMessage(ErrorCode.PROTOCOL, "unknown collective op " + op));
                return;
            }
            CheckpointRun ck = j.ckpt;
            boolean ckptPhase = Protocol.isCheckpointPhase(phase);
            if (ckptPhase && (ck == null || ck.generation != generation)) {
                send(this, id, new CkptAbort(generation, "checkpoint " + generation + " is not in progress"));
                return;
            }
            long key = ((long) generation << 16) | phase;
            PendingCollective pc = j.collectives.get(key);
            if (pc == null) {
                pc = new PendingCollective(key, generation, phase, op, values.length, j);
                j.collectives.put(key, pc);
            }
            Slot first = null;
            for (Slot s : covered) {
                if (s.live && s.conn == this) {
                    first = s;
                    break;
                }
            }
            if (first == null) return; // cannot happen: callers check for a live rank
            if (pc.contributed[first.rank]) {
                send(this, id, new ErrorMessage(ErrorCode.PROTOCOL, (role == Protocol.ROLE_GROUP ? "group "
                        + describeGroup() : "rank " + first.rank) + " is already in collective (" + generation + ", "
                        + phase + ")"));
                return;
            }
            if (pc.op != op || pc.acc.length != values.length) {
                pc.mismatch = true;
            } else {
                pc.add(values);
            }
            RankState st = stateOfPhase(phase);
            boolean setStates = ckptPhase || phase == Protocol.PHASE_RESTARTED || phase == Protocol.PHASE_REFILLED;
            for (Slot s : covered) {
                if (!s.live || s.conn != this) continue;
                pc.contributed[s.rank] = true;
                pc.participated[s.rank] = true;
                if (setStates) setState(s, st);
            }
            if (role == Protocol.ROLE_GROUP) {
                pc.groupWaiters.add(this);
                pc.groupRequestIds.add(id);
            } else {
                pc.waiters[first.rank] = this;
                pc.requestIds[first.rank] = id;
            }
            pc.contributions += n;
            pc.done += n;
            if (ckptPhase) {
                if (pc.mismatch) {
                    abort(j, "ranks disagree on op or count in phase " + phase);
                    return;
                }
                progress(j, ck, st, pc.contributions, false);
            }
            checkComplete(j, pc);
        }

        @Override public void onCkptWritten(int id, CkptWritten m) throws IOException {
            requireRank();
            CheckpointRun ck = job.ckpt;
            if (ck == null || ck.generation != m.generation()) return;
            ck.totalBytes += m.imageBytes();
        }

        @Override public void onCkptFailed(int id, CkptFailed m) throws IOException {
            requireRank();
            CheckpointRun ck = job.ckpt;
            if (ck == null || ck.generation != m.generation()) return;
            abort(job, "rank " + slot.rank + ": " + m.reason());
        }

        @Override public void onGroupCkptWritten(int id, GroupCkptWritten m) throws IOException {
            requireGroup();
            if (member(id, m.rank()) == null) return;
            CheckpointRun ck = job.ckpt;
            if (ck == null || ck.generation != m.generation()) return;
            ck.totalBytes += m.imageBytes();
        }

        @Override public void onGroupCkptFailed(int id, GroupCkptFailed m) throws IOException {
            requireGroup();
            if (member(id, m.rank()) == null) return;
            CheckpointRun ck = job.ckpt;
            if (ck == null || ck.generation != m.generation()) return;
            abort(job, "rank " + m.rank() + ": " + m.reason());
        }

        @Override public void onGroupBye(int id, GroupBye m) throws IOException {
            requireGroup();
            Slot s = member(id, m.rank());
            if (s == null) return;
            memberLeaves(s, m.reason(), m.status());
        }

        private void memberLeaves(Slot s, int reason, int status) {
            s.byeReason = reason;
            if (--liveMembers == 0) byeSeen = true;
            rankGone(s, reason == Protocol.BYE_AFTER_CHECKPOINT ? "exited after checkpoint" : "exited with status " + status);
        }

        @Override public void onKvPut(int id, KvPut m) throws IOException {
            requireRankOrGroup();
            Job j = job;
            byte[] old = j.kv.get(m.key());
            long grow = m.value().length + (old == null ? m.key().length() : -old.length);
            if (j.kvBytes + grow > KV_LIMIT_BYTES) {
                send(this, id, new ErrorMessage(ErrorCode.TOO_LARGE, "job records over " + (KV_LIMIT_BYTES >> 20)
                        + " MiB"));
                return;
            }
            j.kvBytes += grow;
            j.kv.put(m.key(), m.value());
            send(this, id, new Ok());
            List<KvWaiter> waiting = j.kvWaiters.remove(m.key());
            if (waiting != null) {
                for (KvWaiter w : waiting) send(w.conn(), w.requestId(), new KvValue(true, m.value()));
            }
        }

        @Override public void onKvGet(int id, KvGet m) throws IOException {
            requireRankOrGroup();
            byte[] v = job.kv.get(m.key());
            if (v != null || !m.waitForIt()) {
                send(this, id, new KvValue(v != null, v));
            } else {
                job.kvWaiters.computeIfAbsent(m.key(), k -> new ArrayList<>()).add(new KvWaiter(this, id));
            }
        }

        @Override public void onBye(int id, Bye m) throws IOException {
            if (role == Protocol.ROLE_GROUP) { // every member still live leaves
                for (Slot s : members) if (s.live && s.conn == this) memberLeaves(s, m.reason(), m.status());
                byeSeen = true;
                return;
            }
            requireRank();
            byeSeen = true;
            Slot s = slot;
            s.byeReason = m.reason();
            slot = null;
            rankGone(s, m.reason() == Protocol.BYE_AFTER_CHECKPOINT ? "exited after checkpoint"
                    : "exited with status " + m.status());
        }

        // ---- control messages

        @Override public void onList(int id, ListRequest m) throws IOException {
            requireControl();
            Job j = controlJobOrError(id);
            if (j == null) return;
            List<RankEntry> out = new ArrayList<>();
            if (j != NO_JOB) {
                for (Slot s : j.slots) {
                    if (s != null) out.add(new RankEntry(s.rank, s.host, s.pid, s.state.code, s.generation, s.mpi,
                            s.clientId));
                }
            }
            send(this, id, new ListReply(out));
        }

        @Override public void onStatus(int id, StatusRequest m) throws IOException {
            requireControl();
            Job j = controlJobOrError(id);
            if (j == null) return;
            JobStatus st = jobStatus(j == NO_JOB ? null : j, controlJob);
            send(this, id, new StatusReply(st.job(), st.nranks(), st.connected(), st.generation(), st.checkpointing(),
                    st.lastCheckpointUnixMs(), st.lastCheckpointNanos(), st.lastCheckpointBytes(),
                    st.lastCheckpointDir(), st.intervalSeconds()));
        }

        @Override public void onCheckpoint(int id, Checkpoint m)
                throws IOException {
            requireControl();
            Job j = resolve(controlJob);
            if (j == null && !controlJob.isEmpty()) {
                send(this, id, new CkptResult(false, 0, 0, 0, 0, "", "no job named '" + controlJob + "'"));
                return;
            }
            if (j == null && jobs.size() > 1) {
                send(this, id, new CkptResult(false, 0, 0, 0, 0, "", "several jobs (" + String.join(", ", jobs.keySet())
                        + "): name one"));
                return;
            }
            startCheckpoint(j, controlJob, (m.flags() & Protocol.FLAG_EXIT_AFTER) != 0, new ControlWaiter(this, id),
                    (m.flags() & Protocol.FLAG_WAIT) != 0);
        }

        /** The interval of this client's job only: an IDE joining a shared coordinator changes no one else's. */
        @Override public void onSetInterval(int id, SetInterval m) throws IOException {
            requireControl();
            String name = intervalJobName(controlJob);
            if (name == null) {
                send(this, id, new ErrorMessage(ErrorCode.UNKNOWN_JOB, "several jobs (" + String.join(", ", jobs.keySet())
                        + "): name one"));
                return;
            }
            applyJobInterval(name, m.seconds());
            send(this, id, new Ok());
        }

        @Override public void onKillJob(int id, KillJob m) throws IOException {
            requireControl();
            Job j = controlJobOrError(id);
            if (j == null) return;
            if (j != NO_JOB) killJob(j);
            send(this, id, new Ok());
        }

        @Override public void onQuit(int id, Quit m) throws IOException {
            requireControl();
            send(this, id, new Ok());
            quitAll();
        }

        /**
         * The job this control client means: {@link #NO_JOB} while none exists and none was named; null
         * with ERROR UNKNOWN_JOB sent when the name is unknown or ambiguous.
         */
        private Job controlJobOrError(int id) {
            try {
                Job j = resolveOrThrow(controlJob);
                return j == null ? NO_JOB : j;
            } catch (IllegalStateException e) {
                CoordinatorException ce = (CoordinatorException) e.getCause();
                send(this, id, new ErrorMessage(ErrorCode.UNKNOWN_JOB, ce.getMessage()));
                return null;
            }
        }
    }

    /** For tests and diagnostics: the number of open connections. */
    public CompletableFuture<Integer> connectionCount() {
        return call(conns::size);
    }
}
