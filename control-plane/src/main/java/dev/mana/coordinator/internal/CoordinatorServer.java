package dev.mana.coordinator.internal;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.CoordinatorException;
import dev.mana.coordinator.CoordinatorListener;
import dev.mana.coordinator.JobStatus;
import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.protocol.ErrorCode;
import dev.mana.coordinator.protocol.Frame;
import dev.mana.coordinator.protocol.FrameDecoder;
import dev.mana.coordinator.protocol.Handshake;
import dev.mana.coordinator.protocol.Message;
import dev.mana.coordinator.protocol.MessageCodec;
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
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
 * The coordinator's network side: a few selector threads ({@link Reactor}s) share the connections;
 * each reads, decodes and writes only its own, without locks, and handles the frames of one select
 * round under the single lock. Strangers are handled here (CHALLENGE, AUTH, the limits of protocol
 * §2); the frames of authenticated connections go to the socket-free {@link CoordinatorState}
 * (jobs, ranks, collectives, checkpoints). Frames to send are queued under the lock and written by
 * the connection's reactor, so a broadcast to 4,096 ranks is written by all reactors in parallel.
 * Calls from other threads (the embedding API) are queued to reactor 0; listener events and API
 * results leave through a single event thread.
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
         * Started handshakes (CHALLENGE sent, AUTH due within the hello timeout), in all and per
         * remote address. A connection that finds no free start slot is held (below); a started one
         * is never closed because others arrive.
         */
        public int maxUnauthenticated = 4096;
        public int maxUnauthenticatedPerAddress = 1024;
        /**
         * Held connections: accepted, but nothing sent, nothing read and no timer until a start slot
         * frees (round-robin over the addresses). Past {@code maxHeldPerAddress} from one address the
         * new connection is refused; with {@code maxHeld} held in all the coordinator stops accepting
         * (the kernel's listen backlog keeps further connects) until one is started.
         */
        public int maxHeld = 16384;
        public int maxHeldPerAddress = 8192;
        /** Listen backlog asked for; the kernel caps it (Linux: net.core.somaxconn). */
        public int listenBacklog = 65535;
        /** Selector threads (connections are spread over them); default: up to 2 per the CPUs. */
        public int ioThreads = Math.min(2, Runtime.getRuntime().availableProcessors());
        public CoordinatorListener listener;
    }

    /** Connections accepted per select round: a flood of connects cannot keep reactor 0 from its other work. */
    private static final int ACCEPTS_PER_ROUND = 64;
    private static final System.Logger LOG = System.getLogger("dev.mana.coordinator");

    private final Settings settings;
    private final byte[] secret;
    private final ExecutorService events;
    /** Jobs, ranks, collectives, checkpoints: guarded by the lock (this). */
    private final CoordinatorState state;
    /** API calls, run by reactor 0 under the state lock. */
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final CompletableFuture<String> terminated = new CompletableFuture<>();
    /** API futures not completed yet: failed at stop (one entry per call, gone when it completes). */
    private final Set<CompletableFuture<?>> pending = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private Reactor[] reactors;
    private ServerSocketChannel server;
    private SelectionKey serverKey;  // reactor 0's; interest OP_ACCEPT, or none while accepting is paused
    private int boundPort;
    private volatile boolean started;
    private volatile boolean stopping;

    // ---- connections: guarded by the lock (this) ----
    /** Started handshakes (CHALLENGE sent, AUTH not handled yet), oldest first: the hello timer's order. */
    private final LinkedHashSet<Conn> unauthenticated = new LinkedHashSet<>();
    /** Per remote address: its started handshakes and its held connections (only while it has either). */
    private final Map<java.net.InetAddress, Origin> origins = new HashMap<>();
    /** Addresses with held connections and a free start slot of their own, in round-robin order. */
    private final ArrayDeque<Origin> ready = new ArrayDeque<>();
    private int heldTotal;
    private int heldPeak;
    private boolean acceptPaused;
    private long acceptPauses;
    private long acceptedTotal;
    private long refusedHeld;
    private final Set<Conn> conns = new HashSet<>();
    private int nextClientId = 1;
    private int nextReactor;
    private String stopReason;

    public CoordinatorServer(Settings settings) {
        this.settings = settings;
        this.secret = settings.secret.getBytes(StandardCharsets.UTF_8);
        this.events = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "mana-coordinator-events");
            t.setDaemon(true);
            return t;
        });
        this.state = new CoordinatorState(settings.listener, settings.intervalSeconds, settings.exitOnLast, this::post,
                this::requestStop, System::nanoTime);
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
            // connects wait in the kernel's backlog while accepting is paused (maxHeld) or descriptors run out
            server.bind(addr, Math.max(4096, settings.listenBacklog));
            server.configureBlocking(false);
            serverKey = server.register(reactors[0].selector, SelectionKey.OP_ACCEPT);
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
        return call(state::jobNames);
    }

    public CompletableFuture<List<RankInfo>> list(String job) {
        return call(() -> state.list(job));
    }

    public CompletableFuture<JobStatus> status(String job) {
        return call(() -> state.status(job));
    }

    public CompletableFuture<CheckpointResult> checkpoint(String job, boolean exitAfter,
                                                          Consumer<CheckpointProgress> progress) {
        CompletableFuture<CheckpointResult> f = track(new CompletableFuture<>());
        submit(() -> state.checkpoint(job, exitAfter, f, progress));
        return f;
    }

    /** Sets the interval of every job (the default, and the jobs that set their own). */
    public CompletableFuture<Void> setInterval(int seconds) {
        return call(() -> {
            state.setInterval(seconds);
            return null;
        });
    }

    /** Sets the interval of one job (empty name: the only job, or "default" while there is none). */
    public CompletableFuture<Void> setInterval(String job, int seconds) {
        return call(() -> {
            state.setInterval(job, seconds);
            return null;
        });
    }

    public CompletableFuture<Void> killJob(String job) {
        return call(() -> {
            state.killJob(job);
            return null;
        });
    }

    /** Kills every rank of every job, then stops. */
    public CompletableFuture<Void> quit() {
        return call(() -> {
            state.quit();
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
                                if (acceptPaused && heldTotal < Math.max(1, settings.maxHeld)) {
                                    acceptPaused = false;
                                    if (serverKey.isValid()) serverKey.interestOps(SelectionKey.OP_ACCEPT);
                                }
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
                java.net.InetAddress address;
                try {
                    ch.configureBlocking(false);
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    address = ((InetSocketAddress) ch.getRemoteAddress()).getAddress();
                } catch (IOException | RuntimeException e) {
                    closeQuietly(ch);
                    continue;
                }
                synchronized (CoordinatorServer.this) {
                    acceptedTotal++;
                    if (!enterPreAuth(ch, address)) return; // accepting paused: the rest wait in the backlog
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
                    batch.add(new Received(c, null, null, c.session != null && c.session.saidBye() ? "said BYE"
                            : "connection closed"));
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
                    if (!c.authenticated) {
                        c.authPending = false;
                        if (!(f.message() instanceof Auth a)) {
                            reject(c, ErrorCode.PROTOCOL, "AUTH first (got " + f.message().type() + ")", f.requestId());
                            continue;
                        }
                        c.authenticate(f.requestId(), a);
                        continue;
                    }
                    state.received(c.session, f);
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
        long interval = state.nextTimerNs();
        if (interval != Long.MAX_VALUE) next = Math.min(next, interval);
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
        state.timers();
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
            closeHeld();
            state.shutdown();
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
        state.emit(l -> l.stopped(reason));
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
        leavePreAuth(c);  // a stranger's handshake ends here: its slot is free at once
        String remote = c.remote();
        send(c, requestId, new ErrorMessage(code, message));
        state.emit(l -> l.clientRejected(remote, code + ": " + message));
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
        if (c.session != null) state.closed(c.session, reason);
    }

    /** Runs {@code r} on the event thread, after every event posted before it. */
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
            // events stopped: the futures still waiting fail through pending
        }
    }

    // ================================================================ before authentication
    //
    // Backpressure, not eviction (protocol §2): a started handshake ends only by its AUTH, a protocol
    // error, its own hello timeout or its close. A connection that finds no start slot is held in
    // its address's FIFO, untouched (not registered with a selector: nothing sent, nothing read, no
    // timer); a freed slot starts the next held connection, taking the addresses in turn so that one
    // address's crowd cannot starve the others. Held connections are bounded per address (the new
    // connection is refused) and in all (accepting pauses; the kernel's backlog keeps the rest).

    /** One remote address's share of the pre-authentication state. */
    private static final class Origin {
        final java.net.InetAddress address;
        int started;
        final ArrayDeque<SocketChannel> held = new ArrayDeque<>();
        boolean ready;  // in the round-robin queue

        Origin(java.net.InetAddress address) { this.address = address; }
    }

    private int perAddressLimit() { return Math.max(1, settings.maxUnauthenticatedPerAddress); }

    /**
     * A newly accepted connection (reactor 0, under the lock): started when its address and the
     * whole have a free start slot and nothing of its address waits before it; else held, or
     * refused when its address has {@code maxHeldPerAddress} held. False when accepting has just
     * been paused ({@code maxHeld} held in all).
     */
    private boolean enterPreAuth(SocketChannel ch, java.net.InetAddress address) {
        Origin o = origins.computeIfAbsent(address, Origin::new);
        if (o.held.isEmpty() && o.started < perAddressLimit()
                && unauthenticated.size() < Math.max(1, settings.maxUnauthenticated)) {
            startHandshake(ch, o);
            return true;
        }
        if (o.held.size() >= Math.max(1, settings.maxHeldPerAddress)) {
            refuseNew(ch, o);
            return true;
        }
        o.held.add(ch);
        heldTotal++;
        heldPeak = Math.max(heldPeak, heldTotal);
        if (!o.ready && o.started < perAddressLimit()) {
            o.ready = true;  // held for want of a slot in all: its turn comes in the round-robin
            ready.add(o);
        }
        if (heldTotal >= Math.max(1, settings.maxHeld)) {
            acceptPaused = true;
            acceptPauses++;
            serverKey.interestOps(0);
            return false;
        }
        return true;
    }

    /** Starts a handshake: CHALLENGE queued, hello timer running from now, read by its reactor. */
    private void startHandshake(SocketChannel ch, Origin o) {
        Reactor r = reactors[nextReactor++ % reactors.length];
        Conn c = new Conn(ch, nextClientId++, r, o.address);
        conns.add(c);
        unauthenticated.add(c);
        o.started++;
        send(c, 0, new Challenge(c.nonce));
        r.toRegister.add(c);
        r.selector.wakeup();
    }

    /**
     * The new connection of an address that has {@code maxHeldPerAddress} held: one ERROR written
     * straight to the fresh socket (its send buffer is empty, the frame is small), then closed.
     * Never an older connection.
     */
    private void refuseNew(SocketChannel ch, Origin o) {
        refusedHeld++;
        String why = "too many connections waiting to authenticate from " + o.address.getHostAddress() + " ("
                + o.held.size() + " waiting, " + o.started + " authenticating): try again later";
        try {
            ch.write(encodeUnchecked(0, new ErrorMessage(ErrorCode.PROTOCOL, why)));
        } catch (IOException ignored) {
            // gone already
        }
        closeQuietly(ch);
        if (o.started == 0 && o.held.isEmpty()) origins.remove(o.address);
        String remote = o.address.getHostAddress();
        state.emit(l -> l.clientRejected(remote, ErrorCode.PROTOCOL + ": " + why));
    }

    /** A started handshake ended (AUTH handled, refused, timed out or closed): its slot goes to a held one. */
    private void leavePreAuth(Conn c) {
        if (!unauthenticated.remove(c)) return;
        Origin o = origins.get(c.address);
        if (o != null) {
            o.started--;
            if (!o.held.isEmpty()) {
                if (!o.ready) {
                    o.ready = true;
                    ready.add(o);
                }
            } else if (o.started == 0) {
                origins.remove(o.address);
            }
        }
        startHeld();
    }

    /** Starts held connections while there are free slots, one address at a time in turn. */
    private void startHeld() {
        if (stopping) return;
        int max = Math.max(1, settings.maxUnauthenticated);
        while (unauthenticated.size() < max && !ready.isEmpty()) {
            Origin o = ready.poll();
            o.ready = false;
            SocketChannel ch = o.held.poll();
            heldTotal--;
            startHandshake(ch, o);
            if (!o.held.isEmpty() && o.started < perAddressLimit()) {
                o.ready = true;
                ready.add(o);
            }
        }
        if (acceptPaused && heldTotal < Math.max(1, settings.maxHeld)) reactors[0].selector.wakeup();
    }

    /** At shutdown: the held connections were never started; they are closed like the others. */
    private void closeHeld() {
        for (Origin o : origins.values()) {
            for (SocketChannel ch : o.held) closeQuietly(ch);
            o.held.clear();
        }
        heldTotal = 0;
        ready.clear();
    }

    /** For tests and diagnostics: started handshakes (connections that have not authenticated yet). */
    public CompletableFuture<Integer> unauthenticatedCount() {
        return call(unauthenticated::size);
    }

    /** For tests and diagnostics: connections held before their handshake starts. */
    public CompletableFuture<Integer> heldCount() {
        return call(() -> heldTotal);
    }

    /**
     * The pre-authentication counts at one moment: started handshakes, held connections (and the
     * most ever held), whether accepting is paused and how often it was, connections accepted in
     * all, and new connections refused because their address had {@code maxHeldPerAddress} held.
     */
    public record PreAuthCounts(int started, int held, int heldPeak, boolean acceptPaused, long acceptPauses,
                                long accepted, long refused) {}

    public CompletableFuture<PreAuthCounts> preAuthCounts() {
        return call(() -> new PreAuthCounts(unauthenticated.size(), heldTotal, heldPeak, acceptPaused, acceptPauses,
                acceptedTotal, refusedHeld));
    }

    // ================================================================ one connection

    /** One TCP connection: its bytes in and out; once authenticated, its {@link CoordinatorState.Session}. */
    private final class Conn implements CoordinatorState.Peer {
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
        boolean writeInterest;
        volatile String closeReason;
        CoordinatorState.Session session;  // after AUTH

        Conn(SocketChannel ch, int clientId, Reactor reactor, java.net.InetAddress address) {
            this.ch = ch;
            this.clientId = clientId;
            this.reactor = reactor;
            this.address = address;
        }

        /** AUTH: the client's proof of the secret over both nonces; answered with ours, or ERROR AUTH. */
        void authenticate(int id, Auth m) {
            leavePreAuth(this);
            if (!Handshake.matches(Handshake.clientProof(secret, nonce, m.nonce()), m.mac())) {
                CoordinatorServer.this.reject(this, ErrorCode.AUTH, "wrong secret", id);
                return;
            }
            authenticated = true;
            decoder.maxBody(Protocol.MAX_BODY);
            session = state.open(this, clientId);
            CoordinatorServer.this.send(this, id, new AuthOk(Handshake.coordinatorProof(secret, nonce, m.nonce())));
        }

        @Override public void send(int requestId, Message m) { CoordinatorServer.this.send(this, requestId, m); }

        @Override public void sendFrame(byte[] frame, int requestId) { sendTemplate(this, frame, requestId); }

        @Override public void reject(ErrorCode code, String message, int requestId) {
            CoordinatorServer.this.reject(this, code, message, requestId);
        }

        @Override public void close(String reason) { disconnect(this, reason); }

        @Override public boolean isClosed() { return closed; }

        String remote() {
            try {
                return String.valueOf(ch.getRemoteAddress());
            } catch (IOException e) {
                return "?";
            }
        }

    }

    /** For tests and diagnostics: the number of open connections. */
    public CompletableFuture<Integer> connectionCount() {
        return call(conns::size);
    }
}

