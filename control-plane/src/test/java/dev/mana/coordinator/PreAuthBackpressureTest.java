package dev.mana.coordinator;

import static org.junit.jupiter.api.Assertions.*;

import dev.mana.coordinator.internal.CoordinatorServer.PreAuthCounts;
import dev.mana.coordinator.protocol.Frame;
import dev.mana.coordinator.protocol.Message;
import dev.mana.coordinator.protocol.Messages.ErrorMessage;
import dev.mana.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Backpressure before authentication (issue 21, protocol §2): past the limits on started
 * handshakes the coordinator holds new connections instead of closing older ones, so an honest
 * client between CHALLENGE and AUTH is never closed because others arrive. Held connections are
 * bounded per address (the NEW connection is refused) and in all (accepting pauses, the kernel's
 * backlog keeps the rest). Every wait here waits for a state of the coordinator, with a bound.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PreAuthBackpressureTest {
    private final List<Socket> sockets = new ArrayList<>();
    private final ConcurrentLinkedQueue<String> rejections = new ConcurrentLinkedQueue<>();
    private ExecutorService pool;

    @AfterEach
    void closeAll() throws IOException {
        for (Socket s : sockets) s.close();
        if (pool != null) pool.shutdownNow();
    }

    private Coordinator.Builder builder() {
        return Coordinator.builder().port(0).bindHost("127.0.0.1").listener(new CoordinatorListener() {
            @Override public void clientRejected(String remote, String reason) { rejections.add(reason); }
        });
    }

    /**
     * From one address, far more idle connections than the per-address limit, then honest clients
     * from the same address: the idle ones fill the start slots and the held queue, the honest ones
     * wait in the queue (never closed mid-handshake) and each authenticates once the idle ones ahead
     * of them have timed out; connections past the held cap are refused, new ones only, with the
     * reason; an authenticated client keeps working throughout.
     */
    @Test
    void oneAddressFloodIsHeldNotEvicted() throws Exception {
        // The refusals are checked before the first idle ones time out (4 s after they started):
        // until then nothing ends a started handshake, so the held queue stays full.
        int perAddress = 4, heldCap = 12, idle = perAddress + 6, honest = 6, extra = 3;
        try (Coordinator c = builder().helloTimeout(Duration.ofSeconds(4)).maxUnauthenticated(64, perAddress)
                .maxHeld(1000, heldCap).build().start();
             CoordinatorClient control = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            CoordinatorAddress addr = c.loopbackAddress();
            for (int i = 0; i < idle; i++) sockets.add(open(c, null));
            PreAuthCounts k = await(c, n -> n.started() == perAddress && n.held() == idle - perAddress,
                    "the idle crowd started up to the per-address limit, the rest held");
            assertFalse(k.acceptPaused());

            pool = Executors.newFixedThreadPool(honest);
            List<Future<Integer>> honestClients = new ArrayList<>();
            for (int i = 0; i < honest; i++) {
                honestClients.add(pool.submit(() -> {
                    try (CoordinatorClient cl = CoordinatorClient.connect(addr, "", Duration.ofSeconds(60))) {
                        return cl.status().nranks();
                    }
                }));
            }
            await(c, n -> n.held() == heldCap, "the honest clients are held behind the idle ones");
            assertEquals(0, control.status().nranks(), "an authenticated client is served during the flood");

            for (int i = 0; i < extra; i++) {
                try (Socket s = open(c, null)) {
                    Message m = readMessage(s.getInputStream());
                    ErrorMessage e = assertInstanceOf(ErrorMessage.class, m, "a refused connection gets an ERROR");
                    assertTrue(e.message().startsWith("too many connections waiting to authenticate from 127.0.0.1"),
                            e.message());
                    assertEquals(-1, s.getInputStream().read(), "and is closed");
                }
            }
            k = c.preAuthCounts().get(10, TimeUnit.SECONDS);
            assertEquals(extra, k.refused(), "only the new connections were refused");
            assertEquals(heldCap, k.held());

            for (Future<Integer> f : honestClients) {
                assertEquals(0, f.get(60, TimeUnit.SECONDS), "each honest client authenticates and is served");
            }
            k = await(c, n -> n.started() == 0 && n.held() == 0, "the idle crowd timed out");
            assertTrue(k.heldPeak() <= heldCap, "held " + k.heldPeak() + " > " + heldCap);
            // Nobody was closed for the crowd's sake: the idle ones for their own timeout, the extra
            // ones refused when they came, nothing else.
            long timedOut = rejections.stream().filter(r -> r.contains("no AUTH within")).count();
            long refused = rejections.stream().filter(r -> r.contains("too many connections waiting")).count();
            assertEquals(idle, timedOut, rejections::toString);
            assertEquals(extra, refused, rejections::toString);
            assertEquals(idle + extra, rejections.size(), rejections::toString);
            assertEquals(0, control.status().nranks());
        }
    }

    /**
     * Round-robin: a crowd from 127.0.0.2 holds every start slot and a long queue; a client from
     * 127.0.0.1 gets the next slot that frees, not the one after the crowd's queue.
     */
    @Test
    void floodFromOneAddressDoesNotQueueAnother() throws Exception {
        int slots = 4, crowd = 200;
        try (Coordinator c = builder().helloTimeout(Duration.ofSeconds(3)).maxUnauthenticated(slots, slots)
                .maxHeld(1000, 500).build().start();
             CoordinatorClient control = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            InetAddress other = InetAddress.getByName("127.0.0.2");
            for (int i = 0; i < crowd; i++) sockets.add(open(c, other));
            await(c, n -> n.started() == slots && n.held() == crowd - slots, "the crowd fills the slots and the queue");
            assertEquals(0, control.status().nranks(), "an authenticated client is served during the flood");
            try (CoordinatorClient fresh = CoordinatorClient.connect(c.loopbackAddress(), "", Duration.ofSeconds(60))) {
                assertEquals(0, fresh.status().nranks());
                PreAuthCounts k = c.preAuthCounts().get(10, TimeUnit.SECONDS);
                // In one FIFO the client would have waited for the whole queue; in turn it waited at
                // most for one slot per address.
                assertTrue(k.held() >= crowd / 2, "the crowd's queue was not served first: " + k);
            }
        }
    }

    /**
     * Past maxHeld the coordinator stops accepting (further connects wait in the kernel's backlog)
     * and resumes as held connections are started; held never exceeds the cap.
     */
    @Test
    void acceptingPausesAtMaxHeldAndResumes() throws Exception {
        int slots = 4, heldCap = 10, crowd = 30;
        try (Coordinator c = builder().helloTimeout(Duration.ofSeconds(60)).maxUnauthenticated(slots, slots)
                .maxHeld(heldCap, 100).build().start();
             CoordinatorClient control = CoordinatorClient.connect(c.loopbackAddress(), "")) {
            long before = c.preAuthCounts().get(10, TimeUnit.SECONDS).accepted();
            for (int i = 0; i < crowd; i++) sockets.add(open(c, null));   // the kernel completes them all
            PreAuthCounts k = await(c, n -> n.acceptPaused() && n.started() == slots && n.held() == heldCap,
                    "accepting paused with the slots and the held queue full");
            assertEquals(slots + heldCap, k.accepted() - before, "nothing accepted past the held cap: " + k);
            assertEquals(0, control.status().nranks(), "an authenticated client is served while accepting is paused");
            assertEquals(k, c.preAuthCounts().get(10, TimeUnit.SECONDS), "still paused: " + k);

            // The crowd leaves: each started handshake ends, starts a held one, and accepting resumes.
            for (Socket s : sockets) s.close();
            k = await(c, n -> n.accepted() - before == crowd && n.started() == 0 && n.held() == 0,
                    "every connection accepted in the end, and gone");
            assertFalse(k.acceptPaused());
            assertTrue(k.acceptPauses() >= 1, k.toString());
            assertTrue(k.heldPeak() <= heldCap, k.toString());
            assertEquals(0, k.refused());
            assertEquals(0, control.status().nranks());
        }
    }

    // ---------------------------------------------------------------- helpers

    private static Socket open(Coordinator c, InetAddress source) throws IOException {
        Socket s = new Socket();
        if (source != null) s.bind(new InetSocketAddress(source, 0));
        s.connect(new InetSocketAddress("127.0.0.1", c.port()), 10_000);
        s.setSoTimeout(30_000);
        return s;
    }

    /** Polls the coordinator's counts until {@code done} holds; fails after 60 s with the last counts. */
    private static PreAuthCounts await(Coordinator c, Predicate<PreAuthCounts> done, String what) throws Exception {
        return Await.value(Duration.ofSeconds(60), what, () -> c.preAuthCounts().get(10, TimeUnit.SECONDS), done, null);
    }

    private static Message readMessage(InputStream in) throws IOException {
        Frame f = RawClient.readFrame(in);
        return f == null ? null : f.message();
    }
}
