package dev.mana.coordinator;

import static org.junit.jupiter.api.Assertions.*;

import dev.mana.coordinator.protocol.ErrorCode;
import dev.mana.coordinator.protocol.Frame;
import dev.mana.coordinator.protocol.FrameDecoder;
import dev.mana.coordinator.protocol.Message;
import dev.mana.coordinator.protocol.MessageCodec;
import dev.mana.coordinator.protocol.Messages.*;
import dev.mana.coordinator.protocol.Protocol;
import dev.mana.coordinator.sim.SimulatedRanks;
import dev.mana.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Rank-group connections (HELLO role 3, protocol §4.8): alone, mixed with rank connections, faults. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RankGroupTest {
    @TempDir Path tmp;
    private final List<AutoCloseable> closeMe = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeMe.size() - 1; i >= 0; i--) closeMe.get(i).close();
    }

    private <T extends AutoCloseable> T track(T t) {
        closeMe.add(t);
        return t;
    }

    private Coordinator coordinator() throws Exception {
        return track(Coordinator.builder().port(0).bindHost("127.0.0.1").helloTimeout(Duration.ofMillis(2000)).build()
                .start());
    }

    private SimulatedRanks sim(Coordinator c, int first, int count, int nranks, int groupSize, Path dir)
            throws Exception {
        SimulatedRanks.Builder b = SimulatedRanks.builder(c.loopbackAddress()).ranks(first, count).nranks(nranks)
                .groupSize(groupSize).imageBytes(1000);
        if (dir != null) b.ckptDir(dir);
        return track(b.build().start());
    }

    /** Runs the same collectives on every simulated-rank object at once (each blocks until done). */
    private static void collectives(List<SimulatedRanks> sims, int op, int iterations) throws Exception {
        List<Thread> ts = new ArrayList<>();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        for (SimulatedRanks g : sims) {
            Thread t = new Thread(() -> {
                try {
                    assertEquals(iterations, g.runCollectives(iterations, op, 3, 70 + op, Duration.ofSeconds(20)).size());
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            t.start();
            ts.add(t);
        }
        for (Thread t : ts) t.join();
        assertTrue(errors.isEmpty(), "op " + op + ": " + errors);
    }

    private static GroupMember member(int rank) {
        return new GroupMember(rank, "node" + rank / 4, 100 + rank, "mpich", 0, false, "/ck", "/bin/app");
    }

    private static GroupHello groupHello(Coordinator c, String job, int nranks, int... ranks) {
        List<GroupMember> ms = new ArrayList<>();
        for (int r : ranks) ms.add(member(r));
        return new GroupHello(job, nranks, ms);
    }


    @Test
    void groupOnlyJobCheckpointsAndReducesOverFewConnections() throws Exception {
        Coordinator c = coordinator();
        Path dir = Files.createDirectories(tmp.resolve("ck"));
        int n = 64;
        // two "processes" of 32 ranks, each as two group connections of 16 ranks
        List<SimulatedRanks> sims = List.of(sim(c, 0, 32, n, 16, dir), sim(c, 32, 32, n, 16, dir));
        assertEquals(2, sims.get(0).connections());
        assertEquals(4, c.connectionCount().get(5, TimeUnit.SECONDS), "one connection per group");
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            assertEquals(n, cl.status().connected(), "connected counts ranks, not connections");
            for (int g = 1; g <= 3; g++) {
                List<CheckpointProgress> seen = new CopyOnWriteArrayList<>();
                CheckpointResult r = cl.checkpoint(false, seen::add, Duration.ofSeconds(30));
                assertTrue(r.ok(), r.message());
                assertEquals(g, r.generation());
                assertEquals(n, r.ranks());
                assertEquals(1000L * n, r.totalBytes(), "one GROUP_CKPT_WRITTEN per member rank");
                assertTrue(seen.stream().anyMatch(p -> p.state() == RankState.COMMITTED && p.reached() == n), "" + seen);
                for (int rank = 0; rank < n; rank++) {
                    assertTrue(Files.exists(sims.get(0).imagePath(rank, g)), "image of rank " + rank);
                }
            }
            for (RankInfo i : cl.list()) {
                assertEquals(RankState.RUNNING, i.state());
                assertEquals(3, i.generation());
            }
        }
        for (int op : new int[] {Protocol.OP_BARRIER, Protocol.OP_SUM, Protocol.OP_MAX, Protocol.OP_OR, Protocol.OP_MIN}) {
            collectives(sims, op, 20); // the simulator checks the sum of the ranks
        }
        for (SimulatedRanks s : sims) assertTrue(s.awaitCommitted(3, Duration.ofSeconds(5)));
    }

    @Test
    void mixedJobOfGroupsAndSingleRanks() throws Exception {
        Coordinator c = coordinator();
        Path dir = Files.createDirectories(tmp.resolve("ck"));
        int n = 16;
        SimulatedRanks groups = sim(c, 0, 12, n, 4, dir);   // 3 groups of 4
        SimulatedRanks singles = sim(c, 12, 4, n, 0, dir);  // 4 rank connections
        assertEquals(3, groups.connections());
        assertEquals(4, singles.connections());
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            for (int g = 1; g <= 2; g++) {
                CheckpointResult r = cl.checkpoint(false, null, Duration.ofSeconds(30));
                assertTrue(r.ok(), r.message());
                assertEquals(g, r.generation());
                assertEquals(1000L * n, r.totalBytes());
            }
        }
        for (int op : new int[] {Protocol.OP_BARRIER, Protocol.OP_SUM, Protocol.OP_MAX, Protocol.OP_MIN}) {
            collectives(List.of(groups, singles), op, 20);
        }
        // checkpoint-and-kill: one BYE per group connection, every rank EXITED
        CheckpointResult r = c.checkpoint("", true, null).get(30, TimeUnit.SECONDS);
        assertTrue(r.ok(), r.message());
        assertEquals(3, r.generation());
        assertTrue(groups.awaitAllClosed(Duration.ofSeconds(10)));
        assertTrue(singles.awaitAllClosed(Duration.ofSeconds(10)));
        Await.until(Duration.ofSeconds(10), "every rank EXITED", () -> {
            try {
                return c.list("").get().stream().allMatch(i -> i.state() == RankState.EXITED);
            } catch (Exception e) {
                return false;
            }
        });
        assertNull(groups.connectionLost());
        for (int rank = 0; rank < n; rank++) {
            assertTrue(Files.exists(groups.imagePath(rank, 3)));
            assertFalse(Files.exists(groups.imagePath(rank, 2)), "older generation deleted");
        }
        assertEquals(3, c.status("").get().generation());
    }

    @Test
    void restartedGroupContinuesGenerations() throws Exception {
        Coordinator c = coordinator();
        SimulatedRanks s = track(SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 6).groupSize(3).restartFrom(4)
                .build().start());
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            assertEquals(4, cl.status().generation());
            Await.until(Duration.ofSeconds(10), "ranks RUNNING after phase 34", () -> {
                try {
                    return cl.list().stream().allMatch(i -> i.state() == RankState.RUNNING);
                } catch (CoordinatorException e) {
                    return false;
                }
            });
            CheckpointResult r = cl.checkpoint(false, null, Duration.ofSeconds(20));
            assertTrue(r.ok(), r.message());
            assertEquals(5, r.generation());
        }
        assertTrue(s.awaitCommitted(1, Duration.ofSeconds(5)));
    }

    @Test
    void groupDisconnectMidCheckpointAbortsEverywhere() throws Exception {
        Coordinator c = coordinator();
        Path dir = Files.createDirectories(tmp.resolve("ck"));
        SimulatedRanks singles = sim(c, 0, 2, 8, 0, dir);
        SimulatedRanks a = sim(c, 2, 3, 8, 3, dir);
        SimulatedRanks b = sim(c, 5, 3, 8, 3, dir);
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            assertTrue(cl.checkpoint(false, null).ok());
            b.stallAt(6, Protocol.PHASE_CHECKPOINTED); // group b writes its images, then "dies" before phase 3
            CompletableFuture<CheckpointResult> second = CompletableFuture.supplyAsync(() -> {
                try (CoordinatorClient c2 = CoordinatorClient.connect(c.loopbackAddress(), "")) {
                    return c2.checkpoint(false, null);
                } catch (CoordinatorException e) {
                    throw new RuntimeException(e);
                }
            });
            Await.until(Duration.ofSeconds(10), "ranks 0-4 CHECKPOINTED", () -> {
                try {
                    return cl.list().stream().filter(i -> i.state() == RankState.CHECKPOINTED).count() == 5;
                } catch (CoordinatorException e) {
                    return false;
                }
            });
            b.crash(6);
            CheckpointResult r = second.get(10, TimeUnit.SECONDS);
            assertFalse(r.ok());
            assertEquals(2, r.generation());
            assertTrue(r.message().contains("rank group of 3 ranks (5..7"), r.message());
            assertTrue(singles.awaitAborted(1, Duration.ofSeconds(5)), "the single ranks got CKPT_ABORT");
            assertTrue(a.awaitAborted(1, Duration.ofSeconds(5)), "the other group got CKPT_ABORT");
            JobStatus st = cl.status();
            assertEquals(1, st.generation(), "generation 1 stays the latest");
            assertEquals(5, st.connected());
            for (int rank = 0; rank < 8; rank++) {
                assertTrue(Files.exists(a.imagePath(rank, 1)), "generation 1 image of rank " + rank + " kept");
                if (rank < 5) assertFalse(Files.exists(a.imagePath(rank, 2)), "no generation 2 image of " + rank);
            }
            for (RankInfo i : cl.list()) {
                assertEquals(i.rank() >= 5 ? RankState.EXITED : RankState.RUNNING, i.state(), "rank " + i.rank());
            }
            CheckpointResult third = cl.checkpoint(false, null);
            assertFalse(third.ok());
            assertEquals("5 of 8 ranks registered", third.message());
        }
    }

    @Test
    void groupMemberFailureAndGroupAbortReachEveryone() throws Exception {
        Coordinator c = coordinator();
        SimulatedRanks singles = sim(c, 0, 2, 4, 0, null);
        try (RawClient g = RawClient.authenticated(c); CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            g.send(1, groupHello(c, "", 4, 3, 2));
            assertInstanceOf(Welcome.class, g.read());
            assertTrue(cl.startCheckpoint(false).ok());
            CkptRequest req = (CkptRequest) g.read();
            assertEquals(1, req.generation(), "one CKPT_REQUEST per group connection");
            g.send(0, new GroupCkptFailed(3, 1, "disk full"));
            CkptAbort ab = (CkptAbort) g.read();
            assertEquals(1, ab.generation());
            assertTrue(ab.reason().contains("rank 3: disk full"), ab.reason());
            assertTrue(singles.awaitAborted(1, Duration.ofSeconds(5)));
            assertEquals(0, cl.status().generation());
            // a late phase message of the aborted attempt: CKPT_ABORT again, never counted
            g.send(3, new GroupCollective(1, Protocol.PHASE_DRAINED, Protocol.OP_BARRIER, 2, new long[0]));
            Frame f = g.readFrame();
            assertEquals(3, f.requestId());
            assertEquals(1, ((CkptAbort) f.message()).generation());
            // KILL_JOB: one KILL for the group
            cl.killJob();
            assertInstanceOf(Kill.class, g.read());
            assertTrue(singles.awaitAllClosed(Duration.ofSeconds(5)));
        }
    }

    @Test
    void listShowsEveryMemberAndGroupMessagesFollowTheRules() throws Exception {
        Coordinator c = coordinator();
        try (RawClient g = RawClient.authenticated(c); RawClient single = RawClient.authenticated(c);
             CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "j")) {
            g.send(1, groupHello(c, "j", 5, 4, 0, 2));
            Welcome w = (Welcome) g.read();
            single.send(1, Hello.rank("j", 1, 5, "solo", 77, "none", 0, false, "", ""));
            assertInstanceOf(Welcome.class, single.read());
            List<RankInfo> list = cl.list();
            assertEquals(List.of(0, 1, 2, 4), list.stream().map(RankInfo::rank).toList());
            for (RankInfo i : list) {
                if (i.rank() == 1) {
                    assertEquals("solo", i.host());
                    continue;
                }
                assertEquals("node" + i.rank() / 4, i.host());
                assertEquals(100 + i.rank(), i.pid());
                assertEquals("mpich", i.mpi());
                assertEquals(w.clientId(), i.clientId(), "members share their group's client id");
                assertEquals(RankState.RUNNING, i.state());
            }
            assertEquals(4, cl.status().connected());
            // rank 3 is missing: a collective waits for it
            single.send(2, Collective.barrier(0, 100));
            g.send(2, new GroupCollective(0, 100, Protocol.OP_BARRIER, 3, new long[0]));
            g.send(3, new GroupCollective(0, 100, Protocol.OP_BARRIER, 3, new long[0]));
            Frame again = g.readFrame();
            assertEquals(3, again.requestId());
            assertEquals(ErrorCode.PROTOCOL, ((ErrorMessage) again.message()).errorCode(), "a group contributes once");
            try (RawClient late = RawClient.authenticated(c)) {
                late.send(1, Hello.rank("j", 3, 5, "h", 1, "none", 0, false, "", ""));
                assertInstanceOf(Welcome.class, late.read());
                late.send(2, Collective.barrier(0, 100));
                assertInstanceOf(CollectiveDone.class, late.read());
                Frame done = g.readFrame();
                assertEquals(2, done.requestId(), "one COLLECTIVE_DONE for the group, with its request id");
                assertInstanceOf(CollectiveDone.class, done.message());
                assertInstanceOf(CollectiveDone.class, single.read());
                late.send(3, new Bye(Protocol.BYE_EXIT, 0));
            }
            // a sum: the group sends its members' pre-reduced values
            g.send(4, new GroupCollective(0, 101, Protocol.OP_SUM, 3, new long[] {0 + 2 + 4, 30}));
            single.send(3, new Collective(0, 101, Protocol.OP_SUM, new long[] {1, 10}));
            assertArrayEquals(new long[] {7, 40}, ((CollectiveDone) g.read()).result());
            assertArrayEquals(new long[] {7, 40}, ((CollectiveDone) single.read()).result());
            // members must match the group's live ranks
            g.send(5, new GroupCollective(0, 102, Protocol.OP_BARRIER, 2, new long[0]));
            Frame mis = g.readFrame();
            assertEquals(5, mis.requestId());
            assertEquals(ErrorCode.MISMATCH, ((ErrorMessage) mis.message()).errorCode());
            // one member leaves; the others stay, and later collectives cover 2
            g.send(6, new GroupBye(2, Protocol.BYE_EXIT, 0));
            Await.until(Duration.ofSeconds(10), "rank 2 EXITED", () -> {
                try {
                    return cl.list().stream().anyMatch(i -> i.rank() == 2 && i.state() == RankState.EXITED);
                } catch (CoordinatorException e) {
                    return false;
                }
            });
            assertEquals(3, cl.status().connected());
            g.send(7, new GroupBye(2, Protocol.BYE_EXIT, 0));
            Frame notMember = g.readFrame();
            assertEquals(7, notMember.requestId());
            assertEquals(ErrorCode.PROTOCOL, ((ErrorMessage) notMember.message()).errorCode());
            g.send(8, new GroupCollective(0, 103, Protocol.OP_BARRIER, 2, new long[0]));
            single.send(4, Collective.barrier(0, 103));
            assertEquals(8, g.readFrame().requestId());
            assertInstanceOf(CollectiveDone.class, single.read());
            // per-job records work on a group connection
            g.send(9, new KvPut("k", new byte[] {5}));
            assertInstanceOf(Ok.class, g.read());
            // a plain rank message on a group connection: ERROR PROTOCOL and closed, its ranks EXITED
            g.send(10, Collective.barrier(0, 104));
            assertEquals(ErrorCode.PROTOCOL, ((ErrorMessage) g.read()).errorCode());
            assertTrue(g.closedByPeer());
            Await.until(Duration.ofSeconds(10), "members EXITED", () -> {
                try {
                    return cl.status().connected() == 1;
                } catch (CoordinatorException e) {
                    return false;
                }
            });
            // and a group message on a rank connection
            single.send(5, new GroupBye(1, Protocol.BYE_EXIT, 0));
            assertEquals(ErrorCode.PROTOCOL, ((ErrorMessage) single.read()).errorCode());
            assertTrue(single.closedByPeer());
        }
    }

    @Test
    void malformedGroupHellosAreRejectedAndRegisterNothing() throws Exception {
        Coordinator c = coordinator();
        sim(c, 0, 1, 4, 0, null); // job "default" of 4 ranks, rank 0 registered
        record Case(GroupHello hello, ErrorCode expected) {}
        List<Case> cases = List.of(
                new Case(groupHello(c, "", 4), ErrorCode.PROTOCOL),                  // no member
                new Case(groupHello(c, "", 4, 1, 2, 1), ErrorCode.PROTOCOL),         // a member twice
                new Case(groupHello(c, "", 4, 1, 4), ErrorCode.PROTOCOL),            // outside 0..3
                new Case(groupHello(c, "", 4, -1), ErrorCode.PROTOCOL),
                new Case(groupHello(c, "", 0, 0), ErrorCode.TOO_LARGE),              // nranks 0
                new Case(groupHello(c, "", 5, 1, 2), ErrorCode.MISMATCH),            // the job has 4
                new Case(groupHello(c, "", 4, 2, 0, 3), ErrorCode.DUPLICATE_RANK));  // rank 0 is live: none get in
        for (Case k : cases) {
            try (RawClient g = RawClient.authenticated(c)) {
                g.send(1, k.hello());
                ErrorMessage e = (ErrorMessage) g.read();
                assertEquals(k.expected(), e.errorCode(), k.hello() + ": " + e.message());
                assertTrue(g.closedByPeer(), "closed after " + k.hello());
            }
        }
        try (RawClient g = RawClient.stranger(c)) { // a wrong secret: no group HELLO is ever read
            assertEquals(ErrorCode.AUTH, ((ErrorMessage) g.authenticate("wrong")).errorCode());
            assertTrue(g.closedByPeer());
        }
        try (RawClient g = RawClient.authenticated(c)) { // a body that ends inside the member list
            byte[] f = MessageCodec.encodeBytes(1, groupHello(c, "", 4, 1, 2));
            byte[] cut = java.util.Arrays.copyOf(f, f.length - 5);
            ByteBuffer.wrap(cut).order(ByteOrder.LITTLE_ENDIAN).putInt(8, cut.length - 16);
            g.write(cut);
            assertEquals(ErrorCode.BAD_FRAME, ((ErrorMessage) g.read()).errorCode());
            assertTrue(g.closedByPeer());
        }
        try (RawClient g = RawClient.authenticated(c)) { // a second HELLO on a group connection
            g.send(1, groupHello(c, "", 4, 3));
            assertInstanceOf(Welcome.class, g.read());
            g.send(2, groupHello(c, "", 4, 2));
            assertEquals(ErrorCode.PROTOCOL, ((ErrorMessage) g.read()).errorCode());
            assertTrue(g.closedByPeer());
        }
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            Await.until(Duration.ofSeconds(10), "only rank 0 left", () -> {
                try {
                    return cl.status().connected() == 1;
                } catch (CoordinatorException e) {
                    return false;
                }
            });
            List<RankInfo> list = cl.list();
            assertEquals(List.of(0, 3), list.stream().map(RankInfo::rank).toList());
            assertEquals(RankState.EXITED, list.get(1).state());
            assertEquals(4, cl.status().nranks());
        }
    }

    /** {@code ports}: the ranks' connections spread over several ports in equal blocks (each node's
     * ranks to its own node agent); two coordinators with one secret stand in for two agents here. */
    @Test
    void portsSpreadTheConnectionsInBlocks() throws Exception {
        String secret = Coordinator.newSecret();
        Coordinator a = track(Coordinator.builder().port(0).bindHost("127.0.0.1").secret(secret).build().start());
        Coordinator b = track(Coordinator.builder().port(0).bindHost("127.0.0.1").secret(secret).build().start());
        track(SimulatedRanks.builder(a.loopbackAddress()).job("spread").ranks(0, 4).nranks(4)
                .ports(new int[] {a.port(), b.port()}).build().start());
        List<Integer> onA = new ArrayList<>(), onB = new ArrayList<>();
        for (RankInfo r : a.list("spread").get(10, TimeUnit.SECONDS)) onA.add(r.rank());
        for (RankInfo r : b.list("spread").get(10, TimeUnit.SECONDS)) onB.add(r.rank());
        assertEquals(List.of(0, 1), onA.stream().sorted().toList());
        assertEquals(List.of(2, 3), onB.stream().sorted().toList());
    }
}
