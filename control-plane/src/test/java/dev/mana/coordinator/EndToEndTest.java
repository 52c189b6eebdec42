package dev.mana.coordinator;

import static org.junit.jupiter.api.Assertions.*;

import dev.mana.coordinator.protocol.Protocol;
import dev.mana.coordinator.sim.SimulatedRanks;
import dev.mana.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** In-process coordinator with simulated ranks: the full checkpoint flow, collectives, restart. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EndToEndTest {
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

    private Coordinator coordinator(CoordinatorListener l) throws Exception {
        return track(Coordinator.builder().port(0).bindHost("127.0.0.1").listener(l).build().start());
    }

    /** n ranks split over two groups (two sets of connections, as two processes would have). */
    private List<SimulatedRanks> ranks(Coordinator c, int n, Path dir) throws Exception {
        int half = n / 2;
        List<SimulatedRanks> groups = new ArrayList<>();
        groups.add(track(SimulatedRanks.builder(c.loopbackAddress()).ranks(0, half).nranks(n).ckptDir(dir)
                .imageBytes(1000).build().start()));
        groups.add(track(SimulatedRanks.builder(c.loopbackAddress()).ranks(half, n - half).nranks(n).ckptDir(dir)
                .imageBytes(1000).build().start()));
        return groups;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 7, 64})
    void repeatedCheckpoints(int n) throws Exception {
        Coordinator c = coordinator(null);
        Path dir = Files.createDirectories(tmp.resolve("ck"));
        List<SimulatedRanks> groups = ranks(c, n, dir);
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            assertEquals("default", cl.job());
            for (int g = 1; g <= 3; g++) {
                List<CheckpointProgress> seen = new CopyOnWriteArrayList<>();
                CheckpointResult r = cl.checkpoint(false, seen::add, Duration.ofSeconds(30));
                assertTrue(r.ok(), r.message());
                assertEquals(g, r.generation());
                assertEquals(n, r.ranks());
                assertEquals(1000L * n, r.totalBytes());
                assertEquals(dir.toAbsolutePath().toString(), r.dir());
                assertTrue(seen.stream().anyMatch(p -> p.state() == RankState.COMMITTED && p.reached() == n), "" + seen);
                for (int rank = 0; rank < n; rank++) {
                    assertTrue(Files.exists(groups.get(0).imagePath(rank, g)), "image of rank " + rank);
                    if (g > 1) {
                        Path old = groups.get(0).imagePath(rank, g - 1);
                        Await.until(Duration.ofSeconds(5), "the older image " + old + " deleted after the commit",
                                () -> !Files.exists(old));
                    }
                }
            }
            JobStatus st = cl.status();
            assertEquals(n, st.nranks());
            assertEquals(n, st.connected());
            assertEquals(3, st.generation());
            assertFalse(st.checkpointing());
            assertTrue(st.lastCheckpointTime().isPresent());
            assertEquals(1000L * n, st.lastCheckpointBytes());
            List<RankInfo> list = cl.list();
            assertEquals(n, list.size());
            for (int i = 0; i < n; i++) {
                assertEquals(i, list.get(i).rank());
                assertEquals(RankState.RUNNING, list.get(i).state());
                assertEquals(3, list.get(i).generation());
            }
        }
        for (SimulatedRanks s : groups) assertTrue(s.awaitCommitted(3, Duration.ofSeconds(5)));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void anyNumberOfSelectorThreads(int threads) throws Exception {
        Coordinator c = track(Coordinator.builder().port(0).bindHost("127.0.0.1").ioThreads(threads).build().start());
        List<SimulatedRanks> groups = ranks(c, 32, null);
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            for (int g = 1; g <= 3; g++) {
                CheckpointResult r = cl.checkpoint(false, null, Duration.ofSeconds(30));
                assertTrue(r.ok(), r.message());
                assertEquals(g, r.generation());
            }
        }
        for (SimulatedRanks s : groups) assertTrue(s.awaitCommitted(3, Duration.ofSeconds(5)));
    }

    @Test
    void collectivesReduceAcrossGroups() throws Exception {
        Coordinator c = coordinator(null);
        int n = 16;
        List<SimulatedRanks> groups = ranks(c, n, null);
        for (int op : new int[] {Protocol.OP_BARRIER, Protocol.OP_SUM, Protocol.OP_MAX, Protocol.OP_OR, Protocol.OP_MIN}) {
            List<Thread> ts = new ArrayList<>();
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            for (SimulatedRanks g : groups) {
                Thread t = new Thread(() -> {
                    try {
                        assertEquals(20, g.runCollectives(20, op, 3, 70, Duration.ofSeconds(20)).size());
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
    }

    @Test
    void checkpointAndKillExitsEveryRank() throws Exception {
        List<RankInfo> exited = new CopyOnWriteArrayList<>();
        Coordinator c = coordinator(new CoordinatorListener() {
            @Override public void rankExited(RankInfo rank, String reason) { exited.add(rank); }
        });
        List<SimulatedRanks> groups = ranks(c, 4, tmp);
        CheckpointResult r = c.checkpoint("", true, null).get(30, TimeUnit.SECONDS);
        assertTrue(r.ok(), r.message());
        for (SimulatedRanks s : groups) assertTrue(s.awaitAllClosed(Duration.ofSeconds(10)));
        Await.value(Duration.ofSeconds(5), "4 ranks reported exited", exited::size, n -> n >= 4, exited::toString);
        assertEquals(4, exited.size());
        for (RankInfo i : c.list("").get(5, TimeUnit.SECONDS)) assertEquals(RankState.EXITED, i.state());
        assertEquals(1, c.status("").get().generation());
    }

    @Test
    void intervalCheckpoints() throws Exception {
        Coordinator c = track(Coordinator.builder().port(0).bindHost("127.0.0.1").interval(1).build().start());
        List<SimulatedRanks> groups = ranks(c, 4, null);
        assertTrue(groups.get(0).awaitCommitted(2, Duration.ofSeconds(10)), "two interval checkpoints");
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            assertEquals(1, cl.status().intervalSeconds());
            cl.setInterval(0);
            assertEquals(0, cl.status().intervalSeconds());
        }
    }

    @Test
    void restartedJobContinuesGenerations() throws Exception {
        Coordinator c = coordinator(null);
        SimulatedRanks s = track(SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 3).restartFrom(5).build().start());
        try (CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            assertEquals(5, cl.status().generation());
            Await.value(Duration.ofSeconds(10), "ranks to reach RUNNING after phase 34", cl::list,
                    l -> l.stream().allMatch(i -> i.state() == RankState.RUNNING), null);
            CheckpointResult r = cl.checkpoint(false, null, Duration.ofSeconds(20));
            assertTrue(r.ok(), r.message());
            assertEquals(6, r.generation());
        }
        assertTrue(s.awaitCommitted(1, Duration.ofSeconds(5)));
    }

    @Test
    void listenerSeesRanksAndCheckpoints() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        Coordinator c = coordinator(new CoordinatorListener() {
            @Override public void jobStarted(String job, int nranks) { events.add("job " + job + " " + nranks); }
            @Override public void rankRegistered(RankInfo r) { events.add("rank " + r.rank()); }
            @Override public void checkpointStarted(String job, int g, boolean exit) { events.add("start " + g); }
            @Override public void checkpointProgress(CheckpointProgress p) {
                if (p.reached() == p.nranks()) events.add(p.state() + " " + p.reached());
            }
            @Override public void checkpointFinished(CheckpointResult r) { events.add("end " + r.generation() + " " + r.ok()); }
        });
        ranks(c, 2, null);
        CheckpointResult r = c.checkpoint("", false, null).get(20, TimeUnit.SECONDS);
        assertTrue(r.ok());
        assertEquals(List.of("job default 2", "rank 0", "rank 1", "start 1", "SUSPENDED 2", "DRAINED 2", "DRAINED 2",
                "CHECKPOINTED 2", "COMMITTED 2", "end 1 true"), events);
        assertEquals(List.of("default"), c.jobs().get());
    }
}
