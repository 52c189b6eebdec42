package dev.mana.coordinator.internal;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.CoordinatorException;
import dev.mana.coordinator.CoordinatorListener;
import dev.mana.coordinator.JobStatus;
import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.RankState;
import dev.mana.coordinator.RefusedRank;
import dev.mana.coordinator.protocol.ErrorCode;
import dev.mana.coordinator.protocol.Frame;
import dev.mana.coordinator.protocol.Message;
import dev.mana.coordinator.protocol.MessageCodec;
import dev.mana.coordinator.protocol.MessageDispatcher;
import dev.mana.coordinator.protocol.MessageHandler;
import dev.mana.coordinator.protocol.Messages.*;
import dev.mana.coordinator.protocol.Protocol;
import dev.mana.coordinator.protocol.ProtocolException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The coordinator's state machine, without sockets: jobs and their ranks ({@link RankRegistry}),
 * collectives ({@link Collectives}), checkpoint runs ({@link CheckpointMachine}), and here the
 * messages of each connection ({@link Session}), per-job records and intervals, listener events and the
 * coordination between those parts. {@link CoordinatorServer} feeds it the
 * frames of authenticated connections ({@link #received}), their ends ({@link #closed}), API calls
 * and timer ticks, all under its single lock; what it sends goes out through each connection's
 * {@link Peer}. Unit tests drive it directly with recording peers and a fake clock
 * (CoordinatorStateTest). Not thread-safe: one caller at a time.
 */
public final class CoordinatorState {

    /** One connection as the state machine sees it: where its frames go. */
    public interface Peer {
        /** Queues a frame. */
        void send(int requestId, Message m);

        /** Queues a pre-encoded frame (broadcasts encode once) with its request id patched in. */
        void sendFrame(byte[] frame, int requestId);

        /** Sends ERROR, then closes the connection once it is written. */
        void reject(ErrorCode code, String message, int requestId);

        /** Closes the connection now; {@link #closed} follows. */
        void close(String reason);

        boolean isClosed();
    }

    private static final int MAX_RANKS = 1 << 20;
    private static final long KV_LIMIT_BYTES = 64L << 20;
    private static final Job NO_JOB = new Job("");

    private final CoordinatorListener listener;
    private final Consumer<Runnable> events;
    private final Consumer<String> stop;
    private final LongSupplier clock;
    private final boolean exitOnLast;

    private int broadcastStamp;
    private int intervalSeconds;  // the default of every job (-i, Builder.interval, setInterval(int))
    /** SET_INTERVAL of a job (by name, so it outlives a run of the job and may precede its ranks). */
    private final Map<String, Integer> jobIntervals = new HashMap<>();
    private boolean everHadRank;

    // the parts this class coordinates: each keeps its own bookkeeping, and calls back here for what
    // crosses them (events, broadcasts, rank states, intervals)
    final RankRegistry registry = new RankRegistry();
    final CheckpointMachine checkpoints = new CheckpointMachine(this);
    final Collectives collectives = new Collectives(this);

    /**
     * @param listener     receives events through {@code events}; may be null
     * @param events       runs a task on the event thread, in order (the listener's thread)
     * @param stop         asks the coordinator to stop, with the reason ("quit", "last rank exited")
     * @param clock        monotonic nanoseconds (System::nanoTime; tests pass their own)
     */
    public CoordinatorState(CoordinatorListener listener, int intervalSeconds, boolean exitOnLast,
                            Consumer<Runnable> events, Consumer<String> stop, LongSupplier clock) {
        this.listener = listener;
        this.intervalSeconds = intervalSeconds;
        this.exitOnLast = exitOnLast;
        this.events = events;
        this.stop = stop;
        this.clock = clock;
    }

    // ================================================================ connections

    /** An authenticated connection; its frames go to {@link #received}. */
    public Session open(Peer peer, int clientId) {
        return new Session(peer, clientId);
    }

    /** One frame of an authenticated connection: handled, or answered with ERROR (the connection then closes). */
    public void received(Session s, Frame f) {
        if (s.peer.isClosed()) return;
        try {
            MessageDispatcher.dispatch(f, s);
        } catch (ProtocolException e) {
            s.peer.reject(e.code(), e.getMessage(), f.requestId());
        } catch (IOException e) {
            s.peer.close(e.getMessage());
        }
    }

    /** The connection is gone: its ranks exited (outside a checkpoint) or abort the checkpoint. */
    public void closed(Session c, String reason) {
        Slot s = c.slot;
        if (s != null && s.conn == c) {
            c.slot = null;
            rankGone(s, reason);
        }
        if (c.members != null && c.liveMembers > 0) {
            Job j = c.job;
            if (j.ckpt != null) {
                checkpoints.abort(j, "rank group " + c.describeGroup() + " disconnected during checkpoint " + j.ckpt.generation);
            }
            c.liveMembers = 0;
            for (Slot m : c.members) if (m.live && m.conn == c) rankGone(m, reason);
        }
    }

    // ================================================================ embedding API

    public List<String> jobNames() {
        return new ArrayList<>(registry.jobs.keySet());
    }

    /** @throws IllegalStateException wrapping a CoordinatorException for an unknown or ambiguous job */
    public List<RankInfo> list(String job) {
        Job j = registry.resolveOrThrow(job);
        List<RankInfo> out = new ArrayList<>();
        if (j != null) for (Slot s : j.slots) if (s != null) out.add(s.info());
        return out;
    }

    public JobStatus status(String job) {
        return jobStatus(registry.resolveOrThrow(job), job);
    }

    /** Starts a checkpoint of the job; {@code f} completes (on the event thread) when it ends or is refused. */
    public void checkpoint(String job, boolean exitAfter, CompletableFuture<CheckpointResult> f,
                           Consumer<CheckpointProgress> progress) {
        Job j;
        try {
            j = registry.resolveOrThrow(job);
        } catch (RuntimeException e) {
            Throwable t = e.getCause();
            post(() -> f.completeExceptionally(t));
            return;
        }
        checkpoints.start(j, job, exitAfter, 0, new FutureWaiter(f, progress), true);
    }

    /** Sets the interval of every job (the default, and the jobs that set their own). */
    public void setInterval(int seconds) {
        applyInterval(seconds);
    }

    /** Sets one job's interval (empty name: the only job, or "default" while there is none). */
    public void setInterval(String job, int seconds) {
        String name = intervalJobName(job);
        if (name == null) registry.resolveOrThrow(job); // throws: several jobs, none named
        applyJobInterval(name, seconds);
    }

    public void killJob(String job) {
        Job j = registry.resolveOrThrow(job);
        if (j != null) killJob(j);
    }

    /** KILL to every rank of every job, then the coordinator stops. */
    public void quit() {
        quitAll();
    }

    /** At stop: every waiting checkpoint gets "coordinator stopped". */
    public void shutdown() {
        checkpoints.shutdown(registry.jobs.values());
    }

    // ================================================================ timers

    /** The next interval checkpoint due (clock value), or {@code Long.MAX_VALUE}. */
    public long nextTimerNs() {
        long next = Long.MAX_VALUE;
        for (Job j : registry.jobs.values()) if (j.nextIntervalNs != 0) next = Math.min(next, j.nextIntervalNs);
        return next;
    }

    /** Starts the interval checkpoints that are due. */
    public void timers() {
        long now = clock.getAsLong();
        for (Job j : registry.jobs.values()) {
            if (j.nextIntervalNs != 0 && now - j.nextIntervalNs >= 0) {
                j.nextIntervalNs = 0;
                if (intervalOf(j.name) > 0 && j.ckpt == null) checkpoints.start(j, j.name, false, 0, null, false);
                if (j.ckpt == null) scheduleInterval(j);
            }
        }
    }

    // ================================================================ output

    static void send(Session c, int requestId, Message m) {
        c.peer.send(requestId, m);
    }

    static void sendTemplate(Session c, byte[] frame, int requestId) {
        c.peer.sendFrame(frame, requestId);
    }

    private static void reject(Session c, ErrorCode code, String message, int requestId) {
        c.peer.reject(code, message, requestId);
    }

    /** The clock's now (monotonic nanoseconds). */
    long now() {
        return clock.getAsLong();
    }

    private void requestStop(String reason) {
        stop.accept(reason);
    }

    // ================================================================ jobs and ranks

    private JobStatus jobStatus(Job j, String name) {
        if (j == null) {
            String key = name == null || name.isEmpty() ? "default" : name;
            return new JobStatus(name == null ? "" : name, 0, 0, 0, false, 0, 0, 0, "", intervalOf(key),
                    registry.refusedRanks(key));
        }
        return new JobStatus(j.name, j.nranks, j.live, j.generation, j.ckpt != null, j.lastCkptUnixMs, j.lastCkptNs,
                j.lastCkptBytes, j.lastCkptDir, intervalOf(j.name), registry.refusedRanks(j.name));
    }

    // ================================================================ ranks refused and gone

    /** A rank HELLO of job {@code name} was refused: remember it, and abort the job's checkpoint in progress. */
    private void rankRefused(String name, RefusedRank r) {
        if (!registry.refused(name, r)) return;
        Job j = registry.jobs.get(name);
        if (j != null && j.ckpt != null) checkpoints.abort(j, registry.refusalText(name));
    }

    private void rankGone(Slot s, String reason) {
        Job j = s.job;
        if (!s.live) return;
        s.live = false;
        j.live--;
        if (j.live == 0) registry.runEnded(j.name); // the run is over; the next one starts clean
        RankState prev = s.state;
        s.state = RankState.EXITED;
        if (j.ckpt != null) {
            checkpoints.abort(j, "rank " + s.rank + " " + (s.byeReason >= 0 ? "exited" : "disconnected") + " during checkpoint "
                    + j.ckpt.generation);
        }
        if (listener != null) {
            RankInfo info = s.info();
            emit(l -> {
                l.rankStateChanged(info, prev);
                l.rankExited(info, reason);
            });
        }
        collectives.rankGone(j, s);
        j.nextIntervalNs = 0;
        if (exitOnLast && everHadRank && registry.totalLive() == 0) requestStop("last rank exited");
    }

    private void killJob(Job j) {
        broadcast(j, encodeBytes(new Kill()));
    }

    /** Sends a pre-encoded frame once to every connection that carries a live rank of the job. */
    void broadcast(Job j, byte[] frame) {
        int stamp = ++broadcastStamp;
        for (Slot s : j.slots) {
            if (s != null && s.live && s.conn.stamp != stamp) {
                s.conn.stamp = stamp;
                sendTemplate(s.conn, frame, 0);
            }
        }
    }

    private void quitAll() {
        for (Job j : registry.jobs.values()) killJob(j);
        requestStop("quit");
    }

    private void applyInterval(int seconds) {
        intervalSeconds = Math.max(0, seconds);
        jobIntervals.clear();
        for (Job j : registry.jobs.values()) {
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
        Job j = registry.resolve("");
        if (j != null) return j.name;
        return registry.jobs.isEmpty() ? "default" : null;
    }

    private void applyJobInterval(String name, int seconds) {
        jobIntervals.put(name, Math.max(0, seconds));
        Job j = registry.jobs.get(name);
        if (j != null) {
            j.nextIntervalNs = 0;
            if (j.ckpt == null) scheduleInterval(j);
        }
    }

    void scheduleInterval(Job j) {
        int interval = intervalOf(j.name);
        if (interval > 0 && j.nranks > 0 && j.live == j.nranks) {
            j.nextIntervalNs = clock.getAsLong() + interval * 1_000_000_000L;
        } else {
            j.nextIntervalNs = 0;
        }
    }

    static byte[] encodeBytes(Message m) {
        try {
            return MessageCodec.encodeBytes(0, m);
        } catch (ProtocolException e) {
            throw new IllegalStateException(e);
        }
    }

    // ================================================================ rank states and events

    void setState(Slot s, RankState st) {
        if (st == null || s.state == st) return;
        RankState prev = s.state;
        s.state = st;
        if (listener != null) {
            RankInfo info = s.info();
            emit(l -> l.rankStateChanged(info, prev));
        }
    }

    /** Sends a listener event through the event thread, in order with every other event. */
    void emit(Consumer<CoordinatorListener> event) {
        if (listener != null) post(() -> event.accept(listener));
    }

    /** Runs {@code r} on the event thread, after every event emitted before it. */
    private void post(Runnable r) {
        events.accept(r);
    }

    // ================================================================ checkpoint waiters

    private final class ControlWaiter implements CheckpointWaiter {
        final Session conn;
        final int requestId;

        ControlWaiter(Session conn, int requestId) {
            this.conn = conn;
            this.requestId = requestId;
        }

        @Override public void progress(CkptProgress p, String job) { send(conn, requestId, p); }

        @Override public void result(CkptResult r, String job) { send(conn, requestId, r); }
    }

    private final class FutureWaiter implements CheckpointWaiter {
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
            CheckpointResult res = CheckpointMachine.toResult(r, job);
            post(() -> future.complete(res)); // after the listener's events, in order
        }
    }

    // ================================================================ one connection

    /** The state of one authenticated connection: its role, and the ranks it carries. */
    public final class Session implements MessageHandler {
        final Peer peer;
        final int clientId;
        int role;
        Slot slot;
        Slot[] self;          // {slot}, for a rank connection
        Slot[] members;       // a group connection's member ranks, by rank
        int[] memberRanks;    // their ranks, ascending
        int liveMembers;
        int stamp;            // broadcast() marks the connections it already served
        Job job;
        String controlJob = "";
        boolean byeSeen;

        Session(Peer peer, int clientId) {
            this.peer = peer;
            this.clientId = clientId;
        }

        /** True once BYE was received (the end of the connection is then no loss). */
        public boolean saidBye() { return byeSeen; }

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
                Job j = registry.resolve(controlJob);
                send(this, id, new Welcome(clientId, j == null ? 0 : j.generation,
                        intervalOf(j != null ? j.name : controlJob.isEmpty() ? "default" : controlJob),
                        j == null ? controlJob : j.name));
                return;
            }
            if (m.role() != Protocol.ROLE_RANK) {
                reject(this, ErrorCode.PROTOCOL, "unknown role " + m.role(), id);
                return;
            }
            String name = m.job().isEmpty() ? "default" : m.job();
            if (m.nranks() < 1 || m.nranks() > MAX_RANKS) {
                refuseRank(id, ErrorCode.TOO_LARGE, "nranks " + m.nranks() + " outside 1.." + MAX_RANKS, name,
                        m.rank(), m.nranks(), m.host(), m.pid());
                return;
            }
            if (m.rank() < 0 || m.rank() >= m.nranks()) {
                refuseRank(id, ErrorCode.PROTOCOL, "rank " + m.rank() + " outside 0.." + (m.nranks() - 1), name,
                        m.rank(), m.nranks(), m.host(), m.pid());
                return;
            }
            Job j = registry.jobs.get(name);
            boolean fresh = false;
            if (j == null) {
                j = new Job(name);
                registry.jobs.put(name, j);
                j.reset(m.nranks());
                fresh = true;
            } else if (j.live == 0 && j.ckpt == null) {
                j.reset(m.nranks()); // the previous run of this job is over: start afresh
                fresh = true;
            }
            if (j.nranks != m.nranks()) {
                refuseRank(id, ErrorCode.MISMATCH, "job '" + name + "' has " + j.nranks + " ranks, not " + m.nranks(),
                        name, m.rank(), m.nranks(), m.host(), m.pid());
                return;
            }
            Slot old = j.slots[m.rank()];
            if (old != null && old.live) {
                refuseRank(id, ErrorCode.DUPLICATE_RANK, "rank " + m.rank() + " of job '" + name
                        + "' is already registered (pid " + old.pid + " on " + old.host + ")", name, m.rank(),
                        m.nranks(), m.host(), m.pid());
                return;
            }
            Slot s = registry.register(j, new GroupMember(m.rank(), m.host(), m.pid(), m.mpi(), m.generation(),
                    m.restarting(), m.ckptdir(), m.program()), this, clientId);
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

        /** Sends ERROR for a rank's HELLO (the connection then closes) and remembers the refusal on its job. */
        private void refuseRank(int id, ErrorCode code, String message, String job, int rank, int nranks, String host,
                                int pid) {
            reject(this, code, message, id);
            rankRefused(job, new RefusedRank(rank, nranks, host, pid, message));
        }

        /** The same for a group HELLO: none of its members got in, so each is a refused rank of the job. */
        private void refuseGroup(int id, ErrorCode code, String message, String job, GroupHello m) {
            reject(this, code, message, id);
            for (GroupMember gm : m.members()) {
                rankRefused(job, new RefusedRank(gm.rank(), m.nranks(), gm.host(), gm.pid(), message));
            }
        }

        @Override public void onGroupHello(int id, GroupHello m) throws IOException {
            if (role != 0) throw new ProtocolException(ErrorCode.PROTOCOL, "second HELLO");
            int n = m.nranks();
            String name = m.job().isEmpty() ? "default" : m.job();
            if (n < 1 || n > MAX_RANKS) {
                refuseGroup(id, ErrorCode.TOO_LARGE, "nranks " + n + " outside 1.." + MAX_RANKS, name, m);
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
                    refuseGroup(id, ErrorCode.PROTOCOL, "member rank " + r + " outside 0.." + (n - 1), name, m);
                    return;
                }
                ranks[i] = r;
            }
            int[] sorted = ranks.clone();
            java.util.Arrays.sort(sorted);
            for (int i = 1; i < sorted.length; i++) {
                if (sorted[i] == sorted[i - 1]) {
                    refuseGroup(id, ErrorCode.PROTOCOL, "member rank " + sorted[i] + " listed twice", name, m);
                    return;
                }
            }
            Job j = registry.jobs.get(name);
            boolean fresh = j == null || (j.live == 0 && j.ckpt == null);
            if (!fresh) { // all checks before anything is registered: a group gets in whole or not at all
                if (j.nranks != n) {
                    refuseGroup(id, ErrorCode.MISMATCH, "job '" + name + "' has " + j.nranks + " ranks, not " + n,
                            name, m);
                    return;
                }
                for (int r : sorted) {
                    Slot old = j.slots[r];
                    if (old != null && old.live) {
                        refuseGroup(id, ErrorCode.DUPLICATE_RANK, "rank " + r + " of job '" + name
                                + "' is already registered (pid " + old.pid + " on " + old.host + ")", name, m);
                        return;
                    }
                }
            }
            if (j == null) {
                j = new Job(name);
                registry.jobs.put(name, j);
            }
            if (fresh) j.reset(n); // a new job, or the previous run of this job is over: start afresh
            Slot[] slots = new Slot[ms.size()];
            List<RankInfo> infos = listener == null ? null : new ArrayList<>(ms.size());
            for (GroupMember gm : ms) {
                Slot s = registry.register(j, gm, this, clientId);
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
                    checkpoints.abort(job, why);
                } else {
                    send(this, id, new ErrorMessage(ErrorCode.MISMATCH, why));
                }
                return;
            }
            contribute(id, m.generation(), m.phase(), m.op(), m.values(), members, liveMembers);
        }

        /**
         * One contribution to the collective (generation, phase), already reduced over the live ranks
         * among {@code covered} ({@code n} of them): the rank itself, or a group's live members. An
         * unknown op and a phase of a checkpoint that does not run are answered here; the rest is
         * {@link Collectives#contribute}'s.
         */
        private void contribute(int id, int generation, int phase, int op, long[] values, Slot[] covered, int n) {
            Job j = job;
            if (op > Protocol.OP_MIN) {
                send(this, id, new ErrorMessage(ErrorCode.PROTOCOL, "unknown collective op " + op));
                return;
            }
            CheckpointRun ck = j.ckpt;
            if (Protocol.isCheckpointPhase(phase) && (ck == null || ck.generation != generation)) {
                send(this, id, new CkptAbort(generation, "checkpoint " + generation + " is not in progress"));
                return;
            }
            collectives.contribute(this, id, j, ck, generation, phase, op, values, covered, n);
        }

        @Override public void onCkptWritten(int id, CkptWritten m) throws IOException {
            requireRank();
            checkpoints.written(job, m.generation(), m.imageBytes());
        }

        @Override public void onCkptFailed(int id, CkptFailed m) throws IOException {
            requireRank();
            checkpoints.failed(job, m.generation(), "rank " + slot.rank + ": " + m.reason());
        }

        @Override public void onGroupCkptWritten(int id, GroupCkptWritten m) throws IOException {
            requireGroup();
            if (member(id, m.rank()) == null) return;
            checkpoints.written(job, m.generation(), m.imageBytes());
        }

        @Override public void onGroupCkptFailed(int id, GroupCkptFailed m) throws IOException {
            requireGroup();
            if (member(id, m.rank()) == null) return;
            checkpoints.failed(job, m.generation(), "rank " + m.rank() + ": " + m.reason());
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
            List<Job.KvWaiter> waiting = j.kvWaiters.remove(m.key());
            if (waiting != null) {
                for (Job.KvWaiter w : waiting) send(w.conn(), w.requestId(), new KvValue(true, m.value()));
            }
        }

        @Override public void onKvGet(int id, KvGet m) throws IOException {
            requireRankOrGroup();
            byte[] v = job.kv.get(m.key());
            if (v != null || !m.waitForIt()) {
                send(this, id, new KvValue(v != null, v));
            } else {
                job.kvWaiters.computeIfAbsent(m.key(), k -> new ArrayList<>()).add(new Job.KvWaiter(this, id));
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
                    st.lastCheckpointDir(), st.intervalSeconds(), st.refused().stream()
                            .map(r -> new RefusedEntry(r.rank(), r.nranks(), r.host(), r.pid(), r.reason())).toList()));
        }

        @Override public void onCheckpoint(int id, Checkpoint m)
                throws IOException {
            requireControl();
            Job j = registry.resolve(controlJob);
            if (j == null && !controlJob.isEmpty() && !registry.hasRefusals(controlJob)) {
                send(this, id, new CkptResult(false, 0, 0, 0, 0, "", "no job named '" + controlJob + "'"));
                return;
            }
            if (j == null && registry.jobs.size() > 1) {
                send(this, id, new CkptResult(false, 0, 0, 0, 0, "", "several jobs (" + String.join(", ", registry.jobs.keySet())
                        + "): name one"));
                return;
            }
            checkpoints.start(j, controlJob, (m.flags() & Protocol.FLAG_EXIT_AFTER) != 0, m.flags() & Protocol.IMAGE_FLAGS,
                    new ControlWaiter(this, id), (m.flags() & Protocol.FLAG_WAIT) != 0);
        }

        /** The interval of this client's job only: an IDE joining a shared coordinator changes no one else's. */
        @Override public void onSetInterval(int id, SetInterval m) throws IOException {
            requireControl();
            String name = intervalJobName(controlJob);
            if (name == null) {
                send(this, id, new ErrorMessage(ErrorCode.UNKNOWN_JOB, "several jobs (" + String.join(", ", registry.jobs.keySet())
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
                Job j = registry.resolveOrThrow(controlJob);
                return j == null ? NO_JOB : j;
            } catch (IllegalStateException e) {
                CoordinatorException ce = (CoordinatorException) e.getCause();
                send(this, id, new ErrorMessage(ErrorCode.UNKNOWN_JOB, ce.getMessage()));
                return null;
            }
        }
    }
}
