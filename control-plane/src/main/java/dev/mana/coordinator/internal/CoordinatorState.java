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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The coordinator's state machine, without sockets: jobs and their ranks, collectives, checkpoint
 * runs, per-job records and intervals, listener events. {@link CoordinatorServer} feeds it the
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
    private static final long PROGRESS_EVERY_NS = 100_000_000L;
    private static final Job NO_JOB = new Job("");

    private final CoordinatorListener listener;
    private final Consumer<Runnable> events;
    private final Consumer<String> stop;
    private final LongSupplier clock;
    private final boolean exitOnLast;

    private final Map<String, Job> jobs = new LinkedHashMap<>();
    private int broadcastStamp;
    private int intervalSeconds;  // the default of every job (-i, Builder.interval, setInterval(int))
    /** SET_INTERVAL of a job (by name, so it outlives a run of the job and may precede its ranks). */
    private final Map<String, Integer> jobIntervals = new HashMap<>();
    private boolean everHadRank;
    /**
     * Ranks refused at HELLO, by job name. Such a rank runs on without checkpoints, so a checkpoint of
     * its job would be reported written without its image: the job's checkpoints are refused while
     * it has one. By name, not on the Job: the refusal may come before the job's first rank
     * registers (rank 1 of an mpirun before rank 0), and then it counts for the run that rank
     * starts. Cleared when the run ends (its last live rank leaves); a refused process that then
     * registers after all (a rank that followed an exec is briefly a duplicate of itself) takes its
     * refusal back.
     */
    private final Map<String, Refusals> refusals = new HashMap<>();

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
                abort(j, "rank group " + c.describeGroup() + " disconnected during checkpoint " + j.ckpt.generation);
            }
            c.liveMembers = 0;
            for (Slot m : c.members) if (m.live && m.conn == c) rankGone(m, reason);
        }
    }

    // ================================================================ embedding API

    public List<String> jobNames() {
        return new ArrayList<>(jobs.keySet());
    }

    /** @throws IllegalStateException wrapping a CoordinatorException for an unknown or ambiguous job */
    public List<RankInfo> list(String job) {
        Job j = resolveOrThrow(job);
        List<RankInfo> out = new ArrayList<>();
        if (j != null) for (Slot s : j.slots) if (s != null) out.add(s.info());
        return out;
    }

    public JobStatus status(String job) {
        return jobStatus(resolveOrThrow(job), job);
    }

    /** Starts a checkpoint of the job; {@code f} completes (on the event thread) when it ends or is refused. */
    public void checkpoint(String job, boolean exitAfter, CompletableFuture<CheckpointResult> f,
                           Consumer<CheckpointProgress> progress) {
        Job j;
        try {
            j = resolveOrThrow(job);
        } catch (RuntimeException e) {
            Throwable t = e.getCause();
            post(() -> f.completeExceptionally(t));
            return;
        }
        startCheckpoint(j, job, exitAfter, 0, new FutureWaiter(f, progress), true);
    }

    /** Sets the interval of every job (the default, and the jobs that set their own). */
    public void setInterval(int seconds) {
        applyInterval(seconds);
    }

    /** Sets one job's interval (empty name: the only job, or "default" while there is none). */
    public void setInterval(String job, int seconds) {
        String name = intervalJobName(job);
        if (name == null) resolveOrThrow(job); // throws: several jobs, none named
        applyJobInterval(name, seconds);
    }

    public void killJob(String job) {
        Job j = resolveOrThrow(job);
        if (j != null) killJob(j);
    }

    /** KILL to every rank of every job, then the coordinator stops. */
    public void quit() {
        quitAll();
    }

    /** At stop: every waiting checkpoint gets "coordinator stopped". */
    public void shutdown() {
        for (Job j : jobs.values()) {
            if (j.ckpt != null) {
                for (Waiter w : j.ckpt.waiters) {
                    w.result(new CkptResult(false, j.ckpt.generation, 0, 0, 0, "", "coordinator stopped"), j.name);
                }
            }
        }
    }

    // ================================================================ timers

    /** The next interval checkpoint due (clock value), or {@code Long.MAX_VALUE}. */
    public long nextTimerNs() {
        long next = Long.MAX_VALUE;
        for (Job j : jobs.values()) if (j.nextIntervalNs != 0) next = Math.min(next, j.nextIntervalNs);
        return next;
    }

    /** Starts the interval checkpoints that are due. */
    public void timers() {
        long now = clock.getAsLong();
        for (Job j : jobs.values()) {
            if (j.nextIntervalNs != 0 && now - j.nextIntervalNs >= 0) {
                j.nextIntervalNs = 0;
                if (intervalOf(j.name) > 0 && j.ckpt == null) startCheckpoint(j, j.name, false, 0, null, false);
                if (j.ckpt == null) scheduleInterval(j);
            }
        }
    }

    // ================================================================ output

    private static void send(Session c, int requestId, Message m) {
        c.peer.send(requestId, m);
    }

    private static void sendTemplate(Session c, byte[] frame, int requestId) {
        c.peer.sendFrame(frame, requestId);
    }

    private static void reject(Session c, ErrorCode code, String message, int requestId) {
        c.peer.reject(code, message, requestId);
    }

    private void requestStop(String reason) {
        stop.accept(reason);
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

    /**
     * The job a control request means; null when no job exists yet and none was named, or the named
     * one has no rank yet but a refused one (its status shows it, its checkpoint is refused for it).
     */
    private Job resolveOrThrow(String name) {
        Job j = resolve(name);
        if (j != null) return j;
        if (name != null && !name.isEmpty() && !refusals.containsKey(name)) {
            throw new IllegalStateException(new CoordinatorException("no job named '" + name + "'",
                    ErrorCode.UNKNOWN_JOB, null));
        }
        if (jobs.isEmpty()) return null;
        throw new IllegalStateException(new CoordinatorException("several jobs (" + String.join(", ", jobs.keySet())
                + "): name one", ErrorCode.UNKNOWN_JOB, null));
    }

    private JobStatus jobStatus(Job j, String name) {
        if (j == null) {
            String key = name == null || name.isEmpty() ? "default" : name;
            return new JobStatus(name == null ? "" : name, 0, 0, 0, false, 0, 0, 0, "", intervalOf(key),
                    refusedRanks(key));
        }
        return new JobStatus(j.name, j.nranks, j.live, j.generation, j.ckpt != null, j.lastCkptUnixMs, j.lastCkptNs,
                j.lastCkptBytes, j.lastCkptDir, intervalOf(j.name), refusedRanks(j.name));
    }

    // ================================================================ refused ranks

    /** A job's refused ranks: the first {@link #KEEP} listed, the rest counted. */
    private static final class Refusals {
        static final int KEEP = 64;    // what STATUS_REPLY lists; far below its 1 MiB
        final List<RefusedRank> kept = new ArrayList<>(1);
        int dropped;                   // beyond KEEP: never taken back, only cleared with the run

        int total() { return kept.size() + dropped; }
    }

    private List<RefusedRank> refusedRanks(String job) {
        Refusals rs = refusals.get(job);
        return rs == null ? List.of() : rs.kept;
    }

    /** A rank HELLO of job {@code name} was refused: remember it, and abort the job's checkpoint in progress. */
    private void rankRefused(String name, RefusedRank r) {
        Refusals rs = refusals.computeIfAbsent(name, k -> new Refusals());
        if (rs.kept.contains(r)) return;   // the same process, refused the same way again
        if (rs.kept.size() < Refusals.KEEP) {
            rs.kept.add(r);
        } else {
            rs.dropped++;
        }
        Job j = jobs.get(name);
        if (j != null && j.ckpt != null) abort(j, refusalText(name));
    }

    /** The process (host, pid) registered after all: its refusals of this job no longer hold. */
    private void refusalTakenBack(String name, String host, int pid) {
        Refusals rs = refusals.get(name);
        if (rs == null) return;
        rs.kept.removeIf(r -> r.pid() == pid && r.host().equals(host));
        if (rs.total() == 0) refusals.remove(name);
    }

    /** Why job {@code name} cannot be checkpointed, or null when no rank of it was refused. */
    private String refusalText(String name) {
        Refusals rs = refusals.get(name);
        if (rs == null || rs.total() == 0) return null;
        RefusedRank first = rs.kept.isEmpty() ? null : rs.kept.get(0);
        int more = rs.total() - (first == null ? 0 : 1);
        return "job '" + name + "' has a rank the coordinator refused at registration"
                + (first == null ? "" : ": " + first.describe())
                + (more > 0 ? " (and " + more + " more refused)" : "")
                + "; it runs without checkpoints, so a checkpoint would miss it (mana_status --list shows it)";
    }

    private void rankGone(Slot s, String reason) {
        Job j = s.job;
        if (!s.live) return;
        s.live = false;
        j.live--;
        if (j.live == 0) refusals.remove(j.name); // the run is over; the next one starts clean
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
        if (exitOnLast && everHadRank && totalLive() == 0) requestStop("last rank exited");
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
            j.nextIntervalNs = clock.getAsLong() + interval * 1_000_000_000L;
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
                Session c = pc.waiters[r];
                if (c != null) send(c, pc.requestIds[r], e);
            }
            for (GroupWaiter g : pc.groupWaiters) send(g.session(), g.requestId(), e);
            return;
        }
        CheckpointRun ck = j.ckpt;
        boolean ours = ck != null && Protocol.isCheckpointPhase(pc.phase) && pc.generation == ck.generation;
        // committed the moment phase 4 completes: a disconnect while the answers go out must not abort it
        if (ours && pc.phase == Protocol.PHASE_COMMITTED) j.ckpt = null;
        byte[] done = encodeBytes(new CollectiveDone(pc.generation, pc.phase, pc.op, pc.acc));
        for (int r = 0; r < j.nranks; r++) {
            Session c = pc.waiters[r];
            if (c != null) sendTemplate(c, done, pc.requestIds[r]);
        }
        for (GroupWaiter g : pc.groupWaiters) sendTemplate(g.session(), done, g.requestId());
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

    /** imageFlags: {@link Protocol#IMAGE_FLAGS} of the request, passed on to every rank unchanged. */
    private void startCheckpoint(Job j, String name, boolean exitAfter, int imageFlags, Waiter waiter, boolean wait) {
        // a refused rank first: it explains "1 of 2 ranks registered" too, and nothing else would stop
        // a checkpoint of the ranks that did register
        String refuse = refusalText(j != null ? j.name : name == null || name.isEmpty() ? "default" : name);
        if (refuse != null) {
            // refused below
        } else if (j == null || j.nranks == 0) {
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
        CheckpointRun ck = new CheckpointRun(Math.max(j.generation, j.lastAttempted) + 1, exitAfter,
                clock.getAsLong());
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
        int flags = (exitAfter ? Protocol.FLAG_EXIT_AFTER : 0) | (imageFlags & Protocol.IMAGE_FLAGS);
        broadcast(j, encodeBytes(new CkptRequest(ck.generation, flags, "")));
    }

    private void progress(Job j, CheckpointRun ck, RankState st, int reached, boolean force) {
        long now = clock.getAsLong();
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
        j.lastCkptNs = clock.getAsLong() - ck.startNs;
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
        CkptResult r = new CkptResult(false, ck.generation, clock.getAsLong() - ck.startNs, 0, j.nranks, "",
                "checkpoint " + ck.generation + " aborted: " + reason);
        emit(l -> l.checkpointFinished(toResult(r, j.name)));
        for (Waiter w : ck.waiters) w.result(r, j.name);
        scheduleInterval(j);
    }

    private static CheckpointResult toResult(CkptResult r, String job) {
        return new CheckpointResult(job, r.ok(), r.generation(), r.elapsedNs(), r.totalBytes(), r.ranks(), r.dir(),
                r.message());
    }

    /** Sends a listener event through the event thread, in order with every other event. */
    void emit(Consumer<CoordinatorListener> event) {
        if (listener != null) post(() -> event.accept(listener));
    }

    /** Runs {@code r} on the event thread, after every event emitted before it. */
    private void post(Runnable r) {
        events.accept(r);
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

    /** A group connection waiting for a collective: one COLLECTIVE_DONE for all its members. */
    private record GroupWaiter(Session session, int requestId) {}

    /** A KV_GET with wait, answered by the PUT of its key. */
    private record KvWaiter(Session conn, int requestId) {}

    private static final class Slot {
        final Job job;
        final int rank;
        Session conn;
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
        final Session[] waiters;          // per-rank connections, by rank
        final int[] requestIds;
        final boolean[] participated;  // covered by a contribution (of its own or of its group)
        final List<GroupWaiter> groupWaiters = new ArrayList<>(0);
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
            this.waiters = new Session[j.nranks];
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
        final long startNs;
        final List<Waiter> waiters = new ArrayList<>(1);
        long totalBytes;
        long lastProgressNs;

        CheckpointRun(int generation, boolean exitAfter, long startNs) {
            this.generation = generation;
            this.exitAfter = exitAfter;
            this.startNs = startNs;
        }
    }

    /** Someone waiting for a checkpoint: a control connection or an in-process future. */
    private interface Waiter {
        void progress(CkptProgress p, String job);

        void result(CkptResult r, String job);
    }

    private final class ControlWaiter implements Waiter {
        final Session conn;
        final int requestId;

        ControlWaiter(Session conn, int requestId) {
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
            // A restarted rank, and one that lost its coordinator and registers with this one, bring
            // the generation they last committed: the next checkpoint must be newer than it.
            j.generation = Math.max(j.generation, m.generation());
            j.slots[m.rank()] = s;
            j.live++;
            refusalTakenBack(j.name, s.host, s.pid);
            return s;
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
            Job j = jobs.get(name);
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
                pc.groupWaiters.add(new GroupWaiter(this, id));
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
                    st.lastCheckpointDir(), st.intervalSeconds(), st.refused().stream()
                            .map(r -> new RefusedEntry(r.rank(), r.nranks(), r.host(), r.pid(), r.reason())).toList()));
        }

        @Override public void onCheckpoint(int id, Checkpoint m)
                throws IOException {
            requireControl();
            Job j = resolve(controlJob);
            if (j == null && !controlJob.isEmpty() && !refusals.containsKey(controlJob)) {
                send(this, id, new CkptResult(false, 0, 0, 0, 0, "", "no job named '" + controlJob + "'"));
                return;
            }
            if (j == null && jobs.size() > 1) {
                send(this, id, new CkptResult(false, 0, 0, 0, 0, "", "several jobs (" + String.join(", ", jobs.keySet())
                        + "): name one"));
                return;
            }
            startCheckpoint(j, controlJob, (m.flags() & Protocol.FLAG_EXIT_AFTER) != 0, m.flags() & Protocol.IMAGE_FLAGS,
                    new ControlWaiter(this, id), (m.flags() & Protocol.FLAG_WAIT) != 0);
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
}
