package dev.mana.coordinator;

import static org.junit.jupiter.api.Assertions.*;

import dev.mana.coordinator.protocol.ErrorCode;
import dev.mana.coordinator.protocol.Frame;
import dev.mana.coordinator.protocol.FrameDecoder;
import dev.mana.coordinator.protocol.Handshake;
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
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Failures: dead ranks, garbage, wrong secrets, a dead coordinator, premature requests. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FaultTest {
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
        return track(Coordinator.builder().port(0).bindHost("127.0.0.1").helloTimeout(Duration.ofMillis(500)).build()
                .start());
    }


    @Test
    void rankKilledMidCheckpointAbortsEverywhereAndKeepsThePreviousGeneration() throws Exception {
        Coordinator c = coordinator();
        Path dir = tmp.resolve("ck");
        SimulatedRanks a = track(SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 3).nranks(4).ckptDir(dir).build().start());
        SimulatedRanks b = track(SimulatedRanks.builder(c.loopbackAddress()).ranks(3, 1).nranks(4).ckptDir(dir).build().start());
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            assertTrue(cl.checkpoint(false, null).ok());
            b.stallAt(3, Protocol.PHASE_CHECKPOINTED); // rank 3 writes its image, then "dies" before phase 3
            CompletableFuture<CheckpointResult> second = CompletableFuture.supplyAsync(() -> {
                try (CoordinatorClient c2 = CoordinatorClient.connect(c.loopbackAddress(), "")) {
                    return c2.checkpoint(false, null);
                } catch (CoordinatorException e) {
                    throw new RuntimeException(e);
                }
            });
            Await.until(Duration.ofSeconds(10), "ranks 0-2 CHECKPOINTED", () -> {
                try {
                    return cl.list().stream().filter(r -> r.state() == RankState.CHECKPOINTED).count() == 3;
                } catch (CoordinatorException e) {
                    return false;
                }
            });
            b.crash(3);
            CheckpointResult r = second.get(10, TimeUnit.SECONDS);
            assertFalse(r.ok());
            assertEquals(2, r.generation());
            assertTrue(r.message().contains("rank 3"), r.message());
            assertTrue(a.awaitAborted(1, Duration.ofSeconds(5)), "the other ranks got CKPT_ABORT");
            JobStatus st = cl.status();
            assertEquals(1, st.generation(), "generation 1 stays the latest");
            assertFalse(st.checkpointing());
            for (int rank = 0; rank < 4; rank++) {
                assertTrue(Files.exists(a.imagePath(rank, 1)), "generation 1 image of rank " + rank + " kept");
                if (rank < 3) {
                    assertFalse(Files.exists(a.imagePath(rank, 2)), "no generation 2 image");
                    assertFalse(Files.exists(Path.of(a.imagePath(rank, 2) + ".tmp")), "no generation 2 tmp");
                }
            }
            for (RankInfo i : cl.list()) {
                assertEquals(i.rank() == 3 ? RankState.EXITED : RankState.RUNNING, i.state());
            }
            // with a rank gone, the job cannot be checkpointed
            CheckpointResult third = cl.checkpoint(false, null);
            assertFalse(third.ok());
            assertEquals("3 of 4 ranks registered", third.message());
        }
    }

    @Test
    void checkpointFailedReportAbortsAndTheNextOneUsesANewGeneration() throws Exception {
        Coordinator c = coordinator();
        SimulatedRanks a = track(SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 1).nranks(2).build().start());
        try (RawClient r1 = RawClient.authenticated(c); CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            r1.send(1, Hello.rank("", 1, 2, "h", 1, "none", 0, false, "", ""));
            assertInstanceOf(Welcome.class, r1.read());
            CheckpointResult started = cl.startCheckpoint(false);
            assertTrue(started.ok());
            CkptRequest req = (CkptRequest) r1.read();
            assertEquals(1, req.generation());
            r1.send(2, new CkptFailed(1, "disk full"));
            CkptAbort ab = (CkptAbort) r1.read();
            assertEquals(1, ab.generation());
            assertTrue(ab.reason().contains("disk full"), ab.reason());
            assertTrue(a.awaitAborted(1, Duration.ofSeconds(5)));
            // a late phase message of the aborted attempt is answered with CKPT_ABORT, never counted
            r1.send(3, Collective.barrier(1, Protocol.PHASE_SUSPENDED));
            assertEquals(1, ((CkptAbort) r1.read()).generation());
            assertEquals(0, cl.status().generation());
            cl.startCheckpoint(false);
            assertEquals(2, ((CkptRequest) r1.read()).generation(), "an aborted generation number is not reused");
        }
    }

    @Test
    void garbageClientIsRejectedWithoutHarmingTheJob() throws Exception {
        Coordinator c = coordinator();
        track(SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 2).build().start());
        byte[] junk = new byte[4096];
        new Random(42).nextBytes(junk);
        for (boolean authenticated : new boolean[] {false, true}) {
            try (RawClient g = authenticated ? RawClient.authenticated(c) : RawClient.stranger(c)) {
                g.write(junk);
                ErrorMessage e = (ErrorMessage) g.read();
                assertEquals(ErrorCode.BAD_FRAME, e.errorCode());
                assertTrue(g.closedByPeer());
            }
            // oversized frame, rejected from its header: over 1 MiB after AUTH, over 256 bytes before
            try (RawClient g = authenticated ? RawClient.authenticated(c) : RawClient.stranger(c)) {
                ByteBuffer h = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
                h.put(new byte[] {'M', 'N', 'C', 'P'}).putShort((short) Protocol.VERSION).putShort((short) 0x20)
                        .putInt(authenticated ? 64 << 20 : 1024).putInt(1);
                g.write(h.array());
                ErrorMessage e = (ErrorMessage) g.read();
                assertEquals(ErrorCode.TOO_LARGE, e.errorCode());
                assertEquals(!authenticated, e.message().contains("before authentication"), e.message());
                assertTrue(g.closedByPeer());
            }
        }
        try (RawClient g = RawClient.stranger(c)) { // a v1 HELLO, as an old client sends it: the secret gets no answer
            ByteBuffer h = ByteBuffer.allocate(16 + 8).order(ByteOrder.LITTLE_ENDIAN);
            h.put(new byte[] {'M', 'N', 'C', 'P'}).putShort((short) 1).putShort((short) 1).putInt(8).putInt(1);
            g.write(h.array());
            ErrorMessage e = (ErrorMessage) g.read();
            assertEquals(ErrorCode.BAD_FRAME, e.errorCode());
            assertTrue(e.message().contains("version 1"), e.message());
        }
        try (RawClient g = RawClient.stranger(c)) { // HELLO before AUTH
            g.send(1, Hello.control(""));
            ErrorMessage e = (ErrorMessage) g.read();
            assertEquals(ErrorCode.PROTOCOL, e.errorCode());
            assertTrue(e.message().contains("AUTH first"), e.message());
            assertTrue(g.closedByPeer());
        }
        try (RawClient g = RawClient.authenticated(c)) { // a rank message before HELLO
            g.send(1, Collective.barrier(0, 70));
            assertEquals(ErrorCode.PROTOCOL, ((ErrorMessage) g.read()).errorCode());
            assertTrue(g.closedByPeer());
        }
        try (RawClient g = RawClient.authenticated(c)) { // a second AUTH
            g.send(2, new Auth(new byte[32], new byte[32]));
            assertEquals(ErrorCode.PROTOCOL, ((ErrorMessage) g.read()).errorCode());
            assertTrue(g.closedByPeer());
        }
        try (RawClient g = RawClient.stranger(c)) { // silence: no AUTH within the (test's 0.5 s) timeout
            assertEquals(ErrorCode.PROTOCOL, ((ErrorMessage) g.read()).errorCode());
            assertTrue(g.closedByPeer());
        }
        try (RawClient g = RawClient.stranger(c)) { // half a frame, then nothing
            g.write(java.util.Arrays.copyOf(MessageCodec.encodeBytes(1, new Auth(new byte[32], new byte[32])), 10));
            assertEquals(ErrorCode.PROTOCOL, ((ErrorMessage) g.read()).errorCode());
        }
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            CheckpointResult r = cl.checkpoint(false, null);
            assertTrue(r.ok(), r.message());
            assertEquals(2, cl.status().connected());
        }
    }

    @Test
    void wrongSecretIsRefused() throws Exception {
        Coordinator c = coordinator();
        CoordinatorAddress bad = new CoordinatorAddress("127.0.0.1", c.port(), "not-the-secret", "test");
        CoordinatorException e = assertThrows(CoordinatorException.class, () -> CoordinatorClient.connect(bad, ""));
        assertEquals(ErrorCode.AUTH, e.code());
        assertTrue(e.getMessage().contains("refused the secret"), e.getMessage());
        CoordinatorException e2 = assertThrows(CoordinatorException.class,
                () -> SimulatedRanks.builder(bad).ranks(0, 2).build().start());
        assertEquals(ErrorCode.AUTH, e2.code());
        try (RawClient g = RawClient.stranger(c)) { // a proof over another connection's nonce is worth nothing
            byte[] mine = Handshake.nonce();
            byte[] stale = Handshake.clientProof(Handshake.secretBytes(c.secret()), Handshake.nonce(), mine);
            g.send(1, new Auth(mine, stale));
            assertEquals(ErrorCode.AUTH, ((ErrorMessage) g.read()).errorCode());
            assertTrue(g.closedByPeer());
        }
        try (RawClient g = RawClient.stranger(c)) { // the coordinator proves the secret too
            byte[] mine = Handshake.nonce();
            byte[] key = Handshake.secretBytes(c.secret());
            g.send(1, new Auth(mine, Handshake.clientProof(key, g.challenge.nonce(), mine)));
            AuthOk ok = (AuthOk) g.read();
            assertArrayEquals(Handshake.coordinatorProof(key, g.challenge.nonce(), mine), ok.mac());
        }
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            assertEquals(0, cl.status().nranks(), "no rank got in");
        }
    }

    /** A "coordinator" that announces a 1 MiB CHALLENGE: clients refuse it before allocating for it. */
    @Test
    void clientsAllocateNothingOnAStrangersWord() throws Exception {
        try (java.net.ServerSocket fake = new java.net.ServerSocket(0, 4, java.net.InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                for (int i = 0; i < 2; i++) {
                    try (Socket s = fake.accept()) {
                        ByteBuffer h = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
                        h.put(new byte[] {'M', 'N', 'C', 'P'}).putShort((short) Protocol.VERSION).putShort((short) 0x03)
                                .putInt(1 << 20).putInt(0);
                        s.getOutputStream().write(h.array());
                        s.getInputStream().read();
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            t.setDaemon(true);
            t.start();
            CoordinatorAddress addr = new CoordinatorAddress("127.0.0.1", fake.getLocalPort(), "s", "test");
            CoordinatorException e = assertThrows(CoordinatorException.class, () -> CoordinatorClient.connect(addr, ""));
            assertTrue(e.getMessage().contains("before authentication"), e.getMessage());
            CoordinatorException e2 = assertThrows(CoordinatorException.class,
                    () -> SimulatedRanks.builder(addr).ranks(0, 1).connectTimeout(Duration.ofSeconds(5)).build().start());
            assertTrue(e2.getMessage().contains("before authentication"), e2.getMessage());
        }
    }

    @Test
    void duplicateRankAndNranksMismatchAreRefused() throws Exception {
        Coordinator c = coordinator();
        track(SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 1).nranks(2).build().start());
        CoordinatorException dup = assertThrows(CoordinatorException.class,
                () -> SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 1).nranks(2).build().start());
        assertEquals(ErrorCode.DUPLICATE_RANK, dup.code());
        CoordinatorException mis = assertThrows(CoordinatorException.class,
                () -> SimulatedRanks.builder(c.loopbackAddress()).ranks(1, 1).nranks(3).build().start());
        assertEquals(ErrorCode.MISMATCH, mis.code());
    }

    @Test
    void aJobWithARefusedRankGetsNoCheckpointWritten() throws Exception {
        // mpirun -n 2 of a program whose MPI the launcher missed: both ranks say "rank R of 1"
        Coordinator c = coordinator();
        Path dir = tmp.resolve("ck");
        track(SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 1).nranks(1).ckptDir(dir).build().start());
        try (RawClient r1 = RawClient.authenticated(c)) {
            r1.send(1, Hello.rank("", 1, 1, "node7", 4242, "none", 0, false, "", ""));
            assertEquals(new ErrorMessage(ErrorCode.PROTOCOL, "rank 1 outside 0..0"), r1.read());
        }
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            CheckpointResult r = cl.checkpoint(false, null);
            assertFalse(r.ok(), "checkpoint of 1 of the 2 ranks reported written");
            assertEquals("job 'default' has a rank the coordinator refused at registration: rank 1 (pid 4242 on node7): "
                    + "rank 1 outside 0..0; it runs without checkpoints, so a checkpoint would miss it "
                    + "(mana_status --list shows it)", r.message());
            assertEquals(List.of(new RefusedRank(1, 1, "node7", 4242, "rank 1 outside 0..0")), cl.status().refused());
            try (var files = Files.exists(dir) ? Files.walk(dir) : java.util.stream.Stream.<Path>empty()) {
                assertEquals(List.of(), files.filter(Files::isRegularFile).toList(), "no image written");
            }
        }
    }

    @Test
    void collectiveOpMismatchIsReportedToEveryParticipant() throws Exception {
        Coordinator c = coordinator();
        try (RawClient r0 = RawClient.authenticated(c); RawClient r1 = RawClient.authenticated(c)) {
            r0.send(1, Hello.rank("", 0, 2, "h", 1, "none", 0, false, "", ""));
            r1.send(1, Hello.rank("", 1, 2, "h", 2, "none", 0, false, "", ""));
            r0.read();
            r1.read();
            r0.send(5, new Collective(0, 100, Protocol.OP_SUM, new long[] {1}));
            r1.send(6, new Collective(0, 100, Protocol.OP_MAX, new long[] {1}));
            assertEquals(ErrorCode.MISMATCH, ((ErrorMessage) r0.read()).errorCode());
            assertEquals(ErrorCode.MISMATCH, ((ErrorMessage) r1.read()).errorCode());
            // the connections stay usable
            r0.send(7, Collective.barrier(0, 101));
            r1.send(8, Collective.barrier(0, 101));
            assertInstanceOf(CollectiveDone.class, r0.read());
            assertInstanceOf(CollectiveDone.class, r1.read());
        }
    }

    @Test
    void keyValueRecordsWithWait() throws Exception {
        Coordinator c = coordinator();
        try (RawClient r0 = RawClient.authenticated(c); RawClient r1 = RawClient.authenticated(c)) {
            r0.send(1, Hello.rank("kv", 0, 2, "h", 1, "none", 0, false, "", ""));
            r1.send(1, Hello.rank("kv", 1, 2, "h", 2, "none", 0, false, "", ""));
            r0.read();
            r1.read();
            r1.send(2, new KvGet("addr0", false));
            assertEquals(new KvValue(false, new byte[0]), r1.read());
            r1.send(3, new KvGet("addr0", true)); // answered once rank 0 puts it
            r0.send(2, new KvPut("addr0", new byte[] {1, 2, 3}));
            assertInstanceOf(Ok.class, r0.read());
            assertEquals(new KvValue(true, new byte[] {1, 2, 3}), r1.read());
        }
    }

    @Test
    void clientThatDoesNotReadItsRepliesIsDropped() throws Exception {
        Coordinator c = coordinator();
        SimulatedRanks others = track(SimulatedRanks.builder(c.loopbackAddress()).job("other").ranks(0, 2).build()
                .start());
        try (RawClient r0 = RawClient.authenticated(c)) {
            r0.send(1, Hello.rank("slow", 0, 1, "h", 1, "none", 0, false, "", ""));
            assertInstanceOf(Welcome.class, r0.read());
            r0.send(2, new KvPut("big", new byte[Protocol.MAX_BLOB]));
            assertInstanceOf(Ok.class, r0.read());
            // ask for 1 MB answers and never read them: beyond 4 MiB queued the coordinator lets go
            try {
                for (int i = 0; i < 64; i++) r0.send(10 + i, new KvGet("big", false));
            } catch (IOException e) {
                // already dropped
            }
            Await.value(Duration.ofSeconds(20), Duration.ofMillis(20), "the slow client disconnected (connected 0)", () -> {
                try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "slow")) {
                    return cl.status().connected();
                }
            }, n -> n == 0, null);
        }
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "other")) {
            assertEquals(2, cl.status().connected());
            assertTrue(cl.checkpoint(false, null).ok(), "other jobs are not harmed");
        }
        assertNull(others.connectionLost());
    }

    @Test
    void checkpointBeforeEveryRankRegisteredIsRefused() throws Exception {
        Coordinator c = coordinator();
        track(SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 3).nranks(4).build().start());
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            CheckpointResult r = cl.checkpoint(false, null);
            assertFalse(r.ok());
            assertEquals("3 of 4 ranks registered", r.message());
            assertEquals(3, cl.status().connected());
            assertEquals(4, cl.status().nranks());
        }
        CheckpointResult none = track(Coordinator.builder().port(0).bindHost("127.0.0.1").build().start())
                .checkpoint("", false, null).get(5, TimeUnit.SECONDS);
        assertFalse(none.ok());
        assertEquals("no ranks registered", none.message());
    }

    @Test
    void coordinatorGoneMidCheckpoint_clientsGetAClearErrorAndNothingHangs() throws Exception {
        Coordinator c = coordinator();
        SimulatedRanks s = track(SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 2).build().start());
        s.stallAt(1, Protocol.PHASE_SUSPENDED);
        CoordinatorClient cl = track(CoordinatorClient.connect(c.loopbackAddress(), ""));
        CompletableFuture<Object> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return cl.checkpoint(false, null);
            } catch (CoordinatorException e) {
                return e;
            }
        });
        // close the coordinator once the checkpoint is really in progress (an event, not a guessed delay)
        Await.until(Duration.ofSeconds(10), "the checkpoint to start",
                () -> c.status("").get(10, TimeUnit.SECONDS).checkpointing(), null);
        c.close();
        Object r = waiting.get(10, TimeUnit.SECONDS);
        assertInstanceOf(CoordinatorException.class, r);
        assertTrue(((CoordinatorException) r).getMessage().startsWith("coordinator connection lost"),
                ((CoordinatorException) r).getMessage());
        assertTrue(s.awaitAllClosed(Duration.ofSeconds(10)));
        assertNotNull(s.connectionLost());
        assertTrue(s.connectionLost().startsWith("coordinator connection lost"));
        CoordinatorException e = assertThrows(CoordinatorException.class,
                () -> CoordinatorClient.connect(c.loopbackAddress(), ""));
        assertTrue(e.getMessage().startsWith("cannot reach coordinator at 127.0.0.1:" + c.port()), e.getMessage());
    }

    @Test
    void exitOnLastStopsTheCoordinatorAndRemovesTheStatusFile() throws Exception {
        Path rc = tmp.resolve("rc");
        Coordinator c = track(Coordinator.builder().port(0).bindHost("127.0.0.1").exitOnLast(true).statusFile(rc)
                .build().start());
        assertTrue(Files.exists(rc));
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(rc)));
        SimulatedRanks s = SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 2).build().start();
        assertTrue(c.isRunning());
        s.exit(0);
        assertEquals("last rank exited", c.awaitTermination(Duration.ofSeconds(10)));
        s.close();
        assertFalse(Files.exists(rc));
    }

    @Test
    void quitKillsEveryRankThenStops() throws Exception {
        Coordinator c = coordinator();
        SimulatedRanks s = track(SimulatedRanks.builder(c.loopbackAddress()).job("a").ranks(0, 2).build().start());
        SimulatedRanks t = track(SimulatedRanks.builder(c.loopbackAddress()).job("b").ranks(0, 1).build().start());
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            CoordinatorException e = assertThrows(CoordinatorException.class, cl::status);
            assertEquals(ErrorCode.UNKNOWN_JOB, e.code(), "two jobs: a name is needed");
            cl.quit();
        }
        assertTrue(s.awaitAllClosed(Duration.ofSeconds(10)));
        assertTrue(t.awaitAllClosed(Duration.ofSeconds(10)));
        assertTrue(s.killed() && t.killed());
        assertEquals("quit", c.awaitTermination(Duration.ofSeconds(10)));
    }

    @Test
    void killJobKillsOnlyThatJob() throws Exception {
        Coordinator c = coordinator();
        SimulatedRanks s = track(SimulatedRanks.builder(c.loopbackAddress()).job("a").ranks(0, 2).build().start());
        SimulatedRanks t = track(SimulatedRanks.builder(c.loopbackAddress()).job("b").ranks(0, 1).build().start());
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "a")) {
            cl.killJob();
        }
        assertTrue(s.awaitAllClosed(Duration.ofSeconds(10)));
        assertFalse(t.killed());
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "b")) {
            assertEquals(1, cl.status().connected());
        }
    }
}
