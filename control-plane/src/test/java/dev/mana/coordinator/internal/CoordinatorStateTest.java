package dev.mana.coordinator.internal;

import static org.junit.jupiter.api.Assertions.*;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.RankState;
import dev.mana.coordinator.RefusedRank;
import dev.mana.coordinator.protocol.ErrorCode;
import dev.mana.coordinator.protocol.Frame;
import dev.mana.coordinator.protocol.FrameDecoder;
import dev.mana.coordinator.protocol.Message;
import dev.mana.coordinator.protocol.Messages.*;
import dev.mana.coordinator.protocol.Protocol;
import dev.mana.coordinator.protocol.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The coordinator's state machine without sockets or threads: recording peers stand for the
 * connections, a counter for the clock, and events run at once. Each test is a protocol exchange
 * from docs/coordinator-protocol.md checked frame by frame.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CoordinatorStateTest {

    /** What the state machine sent to one connection, decoded. */
    static final class Rec implements CoordinatorState.Peer {
        final List<Frame> got = new ArrayList<>();
        ErrorCode rejected;
        String closedBy;

        @Override public void send(int requestId, Message m) { got.add(new Frame(requestId, m)); }

        @Override public void sendFrame(byte[] frame, int requestId) {
            ByteBuffer b = ByteBuffer.wrap(frame.clone()).order(ByteOrder.LITTLE_ENDIAN);
            if (requestId != 0) b.putInt(12, requestId);
            try {
                got.add(new FrameDecoder().next(b));
            } catch (ProtocolException e) {
                throw new AssertionError(e);
            }
        }

        @Override public void reject(ErrorCode code, String message, int requestId) {
            got.add(new Frame(requestId, new ErrorMessage(code, message)));
            rejected = code;
        }

        @Override public void close(String reason) { closedBy = reason; }

        @Override public boolean isClosed() { return rejected != null || closedBy != null; }

        Message last() { return got.get(got.size() - 1).message(); }

        <T extends Message> T last(Class<T> type) { return type.cast(last()); }
    }

    long now = 1_000_000_000L;
    final List<String> stops = new ArrayList<>();

    CoordinatorState state(int interval, boolean exitOnLast) {
        return new CoordinatorState(null, interval, exitOnLast, Runnable::run, stops::add, () -> now);
    }

    final List<Rec> peers = new ArrayList<>();
    final List<CoordinatorState.Session> sessions = new ArrayList<>();

    /** n ranks of job "j", registered (WELCOME checked). */
    void ranks(CoordinatorState st, int n) {
        for (int r = 0; r < n; r++) {
            Rec p = new Rec();
            CoordinatorState.Session s = st.open(p, r + 1);
            st.received(s, new Frame(1, Hello.rank("j", r, n, "h", 100 + r, "none", 0, false, "/ck", "/bin/app")));
            Welcome w = p.last(Welcome.class);
            assertEquals(r + 1, w.clientId());
            assertEquals("j", w.job());
            peers.add(p);
            sessions.add(s);
        }
    }

    /** Every rank sends COLLECTIVE(g, phase); returns the replies of the last one. */
    void everyone(CoordinatorState st, int g, int phase) {
        for (int r = 0; r < sessions.size(); r++) {
            st.received(sessions.get(r), new Frame(10 + phase, Collective.barrier(g, phase)));
        }
    }

    /**
     * Ranks that reach each phase 200 ms apart (more than the 100 ms progress spacing): the fill-time events
     * count them, and each phase's "all reached" event goes out once, so COMMITTED is the last event (the
     * Eclipse job view's ManaWorkbenchFlowTest saw COMMITTED twice on a loaded machine).
     */
    @Test
    void slowRanksGetOneCompletionEventPerPhase() {
        CoordinatorState st = state(0, false);
        ranks(st, 2);
        List<CheckpointProgress> events = new ArrayList<>();
        CompletableFuture<CheckpointResult> f = new CompletableFuture<>();
        st.checkpoint("j", false, f, events::add);
        int[] phases = {Protocol.PHASE_SUSPENDED, Protocol.PHASE_DRAINED, Protocol.PHASE_CHECKPOINTED,
            Protocol.PHASE_COMMITTED};
        for (int phase : phases) {
            for (int r = 0; r < 2; r++) {
                now += 200_000_000L;
                if (phase == Protocol.PHASE_CHECKPOINTED) {
                    st.received(sessions.get(r), new Frame(0, new CkptWritten(1, 1000, 5, "/ck/x")));
                }
                st.received(sessions.get(r), new Frame(10 + phase, Collective.barrier(1, phase)));
            }
        }
        assertTrue(f.join().ok());
        List<String> seen = events.stream().map(p -> p.state() + " " + p.reached()).toList();
        assertEquals(List.of("SUSPENDED 1", "SUSPENDED 2", "DRAINED 1", "DRAINED 2", "CHECKPOINTED 1",
            "CHECKPOINTED 2", "COMMITTED 1", "COMMITTED 2"), seen);
    }

    @Test
    void aCheckpointRunsPhaseByPhaseAndCommits() {
        CoordinatorState st = state(0, false);
        ranks(st, 3);
        CompletableFuture<CheckpointResult> f = new CompletableFuture<>();
        st.checkpoint("j", false, f, null);
        for (Rec p : peers) assertEquals(new CkptRequest(1, 0, ""), p.last());
        everyone(st, 1, Protocol.PHASE_SUSPENDED);
        for (Rec p : peers) {
            assertEquals(new CollectiveDone(1, Protocol.PHASE_SUSPENDED, 0, new long[0]), p.last());
            assertEquals(10 + Protocol.PHASE_SUSPENDED, p.got.get(p.got.size() - 1).requestId(), "its own request id");
        }
        assertEquals(RankState.SUSPENDED, st.list("j").get(0).state());
        for (int r = 0; r < 3; r++) st.received(sessions.get(r), new Frame(0, new CkptWritten(1, 1000 + r, 5, "/ck/x")));
        everyone(st, 1, Protocol.PHASE_CHECKPOINTED);
        assertFalse(f.isDone(), "not committed before phase 4");
        // a rank still short of phase 4 holds the commit
        st.received(sessions.get(0), new Frame(20, Collective.barrier(1, Protocol.PHASE_COMMITTED)));
        st.received(sessions.get(1), new Frame(20, Collective.barrier(1, Protocol.PHASE_COMMITTED)));
        assertFalse(f.isDone());
        st.received(sessions.get(2), new Frame(20, Collective.barrier(1, Protocol.PHASE_COMMITTED)));
        CheckpointResult r = f.join();
        assertTrue(r.ok(), r.message());
        assertEquals(1, r.generation());
        assertEquals(3003, r.totalBytes());
        assertEquals(1, st.status("j").generation());
        assertTrue(st.list("j").stream().allMatch(i -> i.state() == RankState.RUNNING));
    }

    @Test
    void aDisconnectAbortsAndTheGenerationIsNotReused() {
        CoordinatorState st = state(0, false);
        ranks(st, 3);
        CompletableFuture<CheckpointResult> f = new CompletableFuture<>();
        st.checkpoint("j", false, f, null);
        everyone(st, 1, Protocol.PHASE_SUSPENDED);
        st.closed(sessions.get(1), "connection reset");
        CheckpointResult r = f.join();
        assertFalse(r.ok());
        assertTrue(r.message().contains("rank 1 disconnected during checkpoint 1"), r.message());
        assertEquals(new CkptAbort(1, "rank 1 disconnected during checkpoint 1"), peers.get(0).last());
        assertEquals(RankState.EXITED, st.list("j").get(1).state());
        // a late phase of the aborted attempt is answered with CKPT_ABORT, changing nothing
        st.received(sessions.get(0), new Frame(33, Collective.barrier(1, Protocol.PHASE_CHECKPOINTED)));
        assertEquals(new Frame(33, new CkptAbort(1, "checkpoint 1 is not in progress")),
                peers.get(0).got.get(peers.get(0).got.size() - 1));
        // 2 of 3 registered: refused; a restarted rank 1 comes back, and the next attempt is generation 2
        CompletableFuture<CheckpointResult> refused = new CompletableFuture<>();
        st.checkpoint("j", false, refused, null);
        assertEquals("2 of 3 ranks registered", refused.join().message());
        Rec p = new Rec();
        CoordinatorState.Session s = st.open(p, 9);
        st.received(s, new Frame(1, Hello.rank("j", 1, 3, "h", 7, "none", 0, false, "/ck", "/bin/app")));
        assertInstanceOf(Welcome.class, p.last());
        st.checkpoint("j", false, new CompletableFuture<>(), null);
        assertEquals(new CkptRequest(2, 0, ""), p.last());
    }

    @Test
    void intervalCheckpointsFollowTheClockPerJob() {
        CoordinatorState st = state(0, false);
        st.setInterval("j", 10);      // before the job exists: kept for it
        ranks(st, 2);
        assertEquals(10, st.status("j").intervalSeconds());
        assertEquals(now + 10_000_000_000L, st.nextTimerNs(), "counted from the last registration");
        now += 9_999_999_999L;
        st.timers();
        assertInstanceOf(Welcome.class, peers.get(0).last(), "not due yet");
        now += 1;
        st.timers();
        assertEquals(new CkptRequest(1, 0, ""), peers.get(0).last());
        assertEquals(Long.MAX_VALUE, st.nextTimerNs(), "no timer while a checkpoint runs");
        // another job's SET_INTERVAL does not touch this one
        Rec ctl = new Rec();
        CoordinatorState.Session c = st.open(ctl, 50);
        st.received(c, new Frame(1, Hello.control("other")));
        st.received(c, new Frame(2, new SetInterval(99)));
        assertEquals(new Ok(), ctl.last());
        assertEquals(10, st.status("j").intervalSeconds());
    }

    @Test
    void aCheckpointsImageFlagsReachEveryRankAndNothingElseDoes() {
        CoordinatorState st = state(0, false);
        ranks(st, 2);
        Rec ctl = new Rec();
        CoordinatorState.Session c = st.open(ctl, 50);
        st.received(c, new Frame(1, Hello.control("j")));
        // full + forked, exit after, wait: the ranks get exit and the image flags, not the control-only WAIT
        st.received(c, new Frame(2, new Checkpoint(Protocol.FLAG_FULL | Protocol.FLAG_FORKED
                | Protocol.FLAG_COMPRESS_STRONG | Protocol.FLAG_EXIT_AFTER | Protocol.FLAG_WAIT | 0x80)));
        for (Rec p : peers) {
            assertEquals(new CkptRequest(1, Protocol.FLAG_FULL | Protocol.FLAG_FORKED | Protocol.FLAG_COMPRESS_STRONG
                    | Protocol.FLAG_EXIT_AFTER, ""), p.last());
        }
    }

    @Test
    void anUnforkedRequestIsPassedOnAsItIs() {
        CoordinatorState st = state(0, false);
        ranks(st, 1);
        Rec ctl = new Rec();
        CoordinatorState.Session c = st.open(ctl, 50);
        st.received(c, new Frame(1, Hello.control("j")));
        st.received(c, new Frame(2, new Checkpoint(Protocol.FLAG_UNFORKED)));
        assertEquals(new CkptRequest(1, Protocol.FLAG_UNFORKED, ""), peers.get(0).last());
        assertInstanceOf(CkptResult.class, ctl.last(), "without WAIT the answer is 'started' at once");
    }

    @Test
    void ranksThatLostTheirCoordinatorBringTheirGenerationAndTheRestAreUnprotected() {
        CoordinatorState st = state(0, false);
        // rank 0 of 2 comes back from a coordinator that died after generation 7 (not restarting)
        Rec p = new Rec();
        CoordinatorState.Session s = st.open(p, 1);
        st.received(s, new Frame(1, Hello.rank("j", 0, 2, "h", 100, "none", 7, false, "/ck", "/bin/app")));
        assertEquals(7, p.last(Welcome.class).generation(), "the job goes on from the rank's generation");
        assertEquals(7, st.status("j").generation());
        assertEquals(2, st.status("j").nranks());
        assertEquals(1, st.status("j").connected(), "rank 1 is not back yet: unprotected");
        CompletableFuture<CheckpointResult> f = new CompletableFuture<>();
        st.checkpoint("j", false, f, null);
        assertFalse(f.join().ok(), "no checkpoint while a rank is not connected");
        Rec q = new Rec();
        st.received(st.open(q, 2), new Frame(1, Hello.rank("j", 1, 2, "h", 101, "none", 7, false, "/ck", "/bin/app")));
        CompletableFuture<CheckpointResult> g = new CompletableFuture<>();
        st.checkpoint("j", false, g, null);
        assertEquals(new CkptRequest(8, 0, ""), p.last(), "the next generation after the one the ranks committed");
    }

    @Test
    void theLastRankLeavingStopsAnExitOnLastCoordinator() {
        CoordinatorState st = state(0, true);
        ranks(st, 2);
        st.received(sessions.get(0), new Frame(0, new Bye(Protocol.BYE_EXIT, 0)));
        assertTrue(sessions.get(0).saidBye());
        assertEquals(List.of(), stops);
        st.closed(sessions.get(1), "connection closed");
        assertEquals(List.of("last rank exited"), stops);
    }

    @Test
    void messagesOutOfTurnAreRejected() {
        CoordinatorState st = state(0, false);
        Rec p = new Rec();
        CoordinatorState.Session s = st.open(p, 1);
        st.received(s, new Frame(4, Collective.barrier(0, 70)));
        assertEquals(ErrorCode.PROTOCOL, p.rejected);
        assertEquals(4, p.got.get(0).requestId());
        Rec q = new Rec();
        CoordinatorState.Session t = st.open(q, 2);
        st.received(t, new Frame(1, Hello.rank("j", 5, 2, "h", 1, "none", 0, false, "", "")));
        assertEquals(ErrorCode.PROTOCOL, q.rejected, "rank outside 0..nranks-1");
        assertTrue(st.jobNames().isEmpty() || st.list("j").isEmpty(), "nothing registered");
    }

    /** A rank HELLO on a fresh connection; returns its peer (WELCOME or ERROR is its last frame). */
    Rec hello(CoordinatorState st, int clientId, String job, int rank, int nranks, int pid) {
        Rec p = new Rec();
        CoordinatorState.Session s = st.open(p, clientId);
        st.received(s, new Frame(1, Hello.rank(job, rank, nranks, "h", pid, "none", 0, false, "/ck", "/bin/app")));
        peers.add(p);
        sessions.add(s);
        return p;
    }

    /** A checkpoint request that is refused at once; returns its result. */
    CheckpointResult refusedNow(CoordinatorState st, String job) {
        CompletableFuture<CheckpointResult> f = new CompletableFuture<>();
        st.checkpoint(job, false, f, null);
        assertTrue(f.isDone(), "refused at once");
        assertFalse(f.join().ok(), f.join().message());
        return f.join();
    }

    /** A checkpoint request that starts: CKPT_REQUEST(generation) goes to the rank of {@code p}. */
    void startsNow(CoordinatorState st, String job, Rec p, int generation) {
        CompletableFuture<CheckpointResult> f = new CompletableFuture<>();
        st.checkpoint(job, false, f, null);
        assertFalse(f.isDone(), () -> "refused: " + f.join().message());
        assertEquals(new CkptRequest(generation, 0, ""), p.last());
    }

    @Test
    void aRankRefusedAtRegistrationBlocksTheJobsCheckpointsUntilTheRunEnds() {
        // mpirun -n 2 of a program whose MPI the launcher missed: each rank says it is rank R of 1
        CoordinatorState st = state(0, false);
        assertInstanceOf(Welcome.class, hello(st, 1, "", 0, 1, 100).last());
        Rec refused = hello(st, 2, "", 1, 1, 101);
        assertEquals(ErrorCode.PROTOCOL, refused.rejected);
        assertEquals("rank 1 outside 0..0", refused.last(ErrorMessage.class).message());
        CheckpointResult r = refusedNow(st, "");     // a checkpoint of rank 0 alone would be reported written
        assertTrue(r.message().contains("rank 1 (pid 101 on h): rank 1 outside 0..0"), r.message());
        assertTrue(r.message().startsWith("job 'default' has a rank the coordinator refused"), r.message());
        assertInstanceOf(Welcome.class, peers.get(0).last(), "no CKPT_REQUEST went to rank 0");
        assertEquals(List.of(new RefusedRank(1, 1, "h", 101, "rank 1 outside 0..0")), st.status("").refused());
        // the run ends with its last rank: the next run of the job starts clean and checkpoints
        st.received(sessions.get(0), new Frame(0, new Bye(Protocol.BYE_EXIT, 0)));
        assertEquals(List.of(), st.status("").refused());
        Rec again = hello(st, 3, "", 0, 1, 200);
        assertInstanceOf(Welcome.class, again.last());
        startsNow(st, "", again, 1);
    }

    @Test
    void aRefusalBeforeTheFirstRankRegisteredCountsForTheRunItStarts() {
        CoordinatorState st = state(0, false);
        Rec refused = hello(st, 1, "j", 1, 1, 101);    // rank 1's HELLO came first
        assertEquals(ErrorCode.PROTOCOL, refused.rejected);
        assertEquals(1, st.status("j").refused().size(), "listed while the job has no rank yet");
        assertInstanceOf(Welcome.class, hello(st, 2, "j", 0, 1, 100).last());
        CheckpointResult r = refusedNow(st, "j");
        assertTrue(r.message().contains("rank 1 (pid 101 on h)"), r.message());
    }

    @Test
    void everyKindOfRefusedHelloIsRemembered() {
        CoordinatorState st = state(0, false);
        ranks(st, 2);                                           // job j: ranks 0 and 1 of 2
        assertEquals(ErrorCode.MISMATCH, hello(st, 10, "j", 0, 3, 300).rejected);
        assertEquals(ErrorCode.DUPLICATE_RANK, hello(st, 11, "j", 1, 2, 301).rejected);
        assertEquals(ErrorCode.TOO_LARGE, hello(st, 12, "j", 0, 0, 302).rejected);
        assertEquals(ErrorCode.DUPLICATE_RANK, hello(st, 11, "j", 1, 2, 301).rejected);   // the same again
        Rec g = new Rec();
        st.received(st.open(g, 13), new Frame(1, new GroupHello("j", 2, List.of(
                new GroupMember(0, "g", 400, "none", 0, false, "", ""), new GroupMember(1, "g", 401, "none", 0, false, "", "")))));
        assertEquals(ErrorCode.DUPLICATE_RANK, g.rejected);
        List<RefusedRank> refused = st.status("j").refused();
        assertEquals(List.of(300, 301, 302, 400, 401), refused.stream().map(RefusedRank::pid).toList(),
                "one entry per refused process (a repeat is not listed twice), every member of a refused group");
        assertEquals("job 'j' has 2 ranks, not 3", refused.get(0).reason());
        assertEquals(3, refused.get(0).nranks());
        CheckpointResult r = refusedNow(st, "j");
        assertTrue(r.message().contains("rank 0 (pid 300 on h): job 'j' has 2 ranks, not 3 (and 4 more refused)"),
                r.message());
        // another job is not affected
        Rec other = hello(st, 20, "other", 0, 1, 500);
        assertInstanceOf(Welcome.class, other.last());
        startsNow(st, "other", other, 1);
    }

    @Test
    void aRefusalDuringACheckpointAbortsIt() {
        CoordinatorState st = state(0, false);
        ranks(st, 2);
        CompletableFuture<CheckpointResult> f = new CompletableFuture<>();
        st.checkpoint("j", false, f, null);
        everyone(st, 1, Protocol.PHASE_SUSPENDED);
        assertEquals(ErrorCode.DUPLICATE_RANK, hello(st, 9, "j", 0, 2, 999).rejected);
        assertTrue(f.isDone(), "the refusal ended the checkpoint");   // (join cannot be interrupted)
        CheckpointResult r = f.join();
        assertFalse(r.ok());
        assertTrue(r.message().startsWith("checkpoint 1 aborted: job 'j' has a rank the coordinator refused"),
                r.message());
        assertInstanceOf(CkptAbort.class, peers.get(0).last());
        // its phases come too late to commit anything
        everyone(st, 1, Protocol.PHASE_CHECKPOINTED);
        assertInstanceOf(CkptAbort.class, peers.get(0).last());
        assertEquals(0, st.status("j").generation());
    }

    @Test
    void aRefusedProcessThatRegistersAfterAllTakesItsRefusalBack() {
        // a rank that follows an exec registers again from the same pid, and is briefly a duplicate of itself
        CoordinatorState st = state(0, false);
        ranks(st, 2);                                          // pids 100, 101
        assertEquals(ErrorCode.DUPLICATE_RANK, hello(st, 9, "j", 1, 2, 101).rejected);
        refusedNow(st, "j");
        st.received(sessions.get(1), new Frame(0, new Bye(Protocol.BYE_EXIT, 0)));   // the program before the exec
        assertInstanceOf(Welcome.class, hello(st, 10, "j", 1, 2, 101).last());       // the program after it
        assertEquals(List.of(), st.status("j").refused());
        startsNow(st, "j", peers.get(0), 1);
        // another process is not forgiven by someone else's registration
        assertEquals(ErrorCode.DUPLICATE_RANK, hello(st, 11, "j", 1, 2, 777).rejected);
        assertEquals(1, st.status("j").refused().size());
    }
}
