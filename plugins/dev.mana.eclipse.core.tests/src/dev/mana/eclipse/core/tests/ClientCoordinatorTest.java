package dev.mana.eclipse.core.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.coordinator.Coordinator;
import dev.mana.coordinator.JobStatus;
import dev.mana.coordinator.RankInfo;
import dev.mana.coordinator.sim.SimulatedRanks;
import dev.mana.eclipse.core.CoordinatorEndpoint;
import dev.mana.eclipse.internal.core.ClientCoordinator;

/** A joined coordinator, reached over the protocol through the control-plane library's client. */
class ClientCoordinatorTest {

    @Test
    void listStatusCheckpointIntervalKill(@TempDir Path dir) throws Exception {
        try (Coordinator c = Coordinator.builder().bindHost("127.0.0.1").port(0).exitOnLast(false).build().start();
                SimulatedRanks ranks = SimulatedRanks.builder(c.loopbackAddress()).job("sim").ranks(0, 2).nranks(2)
                    .ckptDir(dir).build().start()) {
            ClientCoordinator cc = new ClientCoordinator(
                new CoordinatorEndpoint("127.0.0.1", c.port(), c.secret(), null), "sim");

            List<RankInfo> list = cc.list();
            assertEquals(2, list.size());
            assertEquals(0, list.get(0).rank());
            assertEquals(1, list.get(1).rank());
            assertEquals(dev.mana.coordinator.RankState.RUNNING, list.get(0).state());
            assertEquals("simhost", list.get(0).host());

            JobStatus st = cc.status();
            assertEquals("sim", st.job());
            assertEquals(2, st.nranks());
            assertEquals(2, st.connected());
            assertEquals(0, st.generation());

            List<CheckpointProgress> progress = new ArrayList<>();
            CheckpointResult r = cc.checkpoint(false, progress::add);
            assertTrue(r.ok(), r.message());
            assertEquals(1, r.generation());
            assertEquals(2, r.ranks());
            assertTrue(progress.stream().anyMatch(p -> p.state() == dev.mana.coordinator.RankState.COMMITTED && p.reached() == 2), progress.toString());

            cc.setInterval(60);
            ClientCoordinator.Snapshot s = cc.snapshot();
            assertEquals(2, s.ranks().size());
            assertEquals(1, s.status().generation());
            assertEquals(60, s.status().intervalSeconds());

            cc.kill();
            assertTrue(ranks.awaitAllClosed(Duration.ofSeconds(10)));
        }
    }

    @Test
    void errorsAreOneLineForUsers() throws Exception {
        int free;
        try (ServerSocket s = new ServerSocket(0)) {
            free = s.getLocalPort();
        }
        IOException e = assertThrows(IOException.class,
            () -> new ClientCoordinator(new CoordinatorEndpoint("127.0.0.1", free, "", null), "").status());
        assertTrue(e.getMessage().startsWith("cannot reach coordinator at 127.0.0.1:" + free + ": "), e.getMessage());

        try (Coordinator c = Coordinator.builder().bindHost("127.0.0.1").port(0).exitOnLast(false).build().start()) {
            IOException auth = assertThrows(IOException.class,
                () -> new ClientCoordinator(new CoordinatorEndpoint("127.0.0.1", c.port(), "wrong", null), "").list());
            assertTrue(auth.getMessage().contains("refused the secret"), auth.getMessage());
            IOException unknown = assertThrows(IOException.class,
                () -> new ClientCoordinator(new CoordinatorEndpoint("127.0.0.1", c.port(), c.secret(), null), "nope")
                    .status());
            assertTrue(unknown.getMessage().contains("nope"), unknown.getMessage());
        }
    }
}
