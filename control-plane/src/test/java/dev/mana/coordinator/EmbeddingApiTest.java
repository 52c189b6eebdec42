package dev.mana.coordinator;

import static org.junit.jupiter.api.Assertions.*;

import dev.mana.coordinator.protocol.ErrorCode;
import dev.mana.coordinator.sim.SimulatedRanks;
import dev.mana.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The embedding API (issue 10): no growth per call, futures on the event thread, intervals per job. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EmbeddingApiTest {

    /** An IDE polls status every second for hours: nothing may stay behind per call. */
    @Test
    void callsLeaveNothingBehind() throws Exception {
        try (Coordinator c = Coordinator.builder().port(0).bindHost("127.0.0.1").build().start();
             SimulatedRanks r = SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 2).build().start()) {
            int before = c.terminationDependents();
            List<CompletableFuture<?>> all = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                all.add(i % 2 == 0 ? c.status("") : c.list(""));
                if (all.size() == 1000) {
                    for (CompletableFuture<?> f : all) f.get(10, TimeUnit.SECONDS);
                    all.clear();
                }
            }
            for (CompletableFuture<?> f : all) f.get(10, TimeUnit.SECONDS);
            assertTrue(c.checkpoint("", false, null).get(10, TimeUnit.SECONDS).ok());
            assertEquals(before, c.terminationDependents(), "what waits on termination after 20,000 calls");
            // whenComplete removes each right after it completes
            Await.value(Duration.ofSeconds(5), Duration.ofMillis(1), "no call still tracked (pendingCalls 0)",
                    c::pendingCalls, n -> n == 0, null);
        }
    }

    /** docs/control-plane.md: futures complete on the event thread, after the events before them. */
    @Test
    void futuresCompleteOnTheEventThread() throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(1);
        List<String> order = java.util.Collections.synchronizedList(new ArrayList<>());
        CoordinatorListener l = new CoordinatorListener() {
            @Override public void jobStarted(String job, int nranks) {
                held.countDown();
                try {
                    hold.await(10, TimeUnit.SECONDS); // keeps the event thread busy while the test attaches
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                order.add("jobStarted");
            }
        };
        try (Coordinator c = Coordinator.builder().port(0).bindHost("127.0.0.1").listener(l).build().start();
             SimulatedRanks r = SimulatedRanks.builder(c.loopbackAddress()).ranks(0, 1).build().start()) {
            assertTrue(held.await(10, TimeUnit.SECONDS));
            CompletableFuture<String> thread = c.status("").thenApply(s -> {
                order.add("status");
                return Thread.currentThread().getName();
            });
            CompletableFuture<String> failed = c.list("nosuchjob").handle((v, e) -> Thread.currentThread().getName());
            hold.countDown();
            assertEquals("mana-coordinator-events", thread.get(10, TimeUnit.SECONDS));
            assertEquals("mana-coordinator-events", failed.get(10, TimeUnit.SECONDS));
            assertEquals(List.of("jobStarted", "status"), order);
        }
    }

    /** SET_INTERVAL sets the interval of the client's job only (an IDE joining a shared coordinator). */
    @Test
    void intervalsArePerJob() throws Exception {
        try (Coordinator c = Coordinator.builder().port(0).bindHost("127.0.0.1").interval(0).build().start();
             SimulatedRanks a = SimulatedRanks.builder(c.loopbackAddress()).job("a").ranks(0, 1).build().start();
             SimulatedRanks b = SimulatedRanks.builder(c.loopbackAddress()).job("b").ranks(0, 1).build().start()) {
            try (CoordinatorClient ca = CoordinatorClient.connect(c.loopbackAddress(), "a");
                 CoordinatorClient cb = CoordinatorClient.connect(c.loopbackAddress(), "b")) {
                ca.setInterval(3600);
                assertEquals(3600, ca.status().intervalSeconds());
                assertEquals(0, cb.status().intervalSeconds(), "job b keeps its interval");
                c.setInterval("b", 1800).get(5, TimeUnit.SECONDS);
                assertEquals(1800, cb.status().intervalSeconds());
                assertEquals(3600, ca.status().intervalSeconds());
                // a job named before its ranks come keeps the interval it was given
                try (CoordinatorClient cc = CoordinatorClient.connect(c.loopbackAddress(), "later")) {
                    cc.setInterval(900);
                }
                try (SimulatedRanks later = SimulatedRanks.builder(c.loopbackAddress()).job("later").ranks(0, 1).build()
                        .start(); CoordinatorClient cl = CoordinatorClient.connect(c.loopbackAddress(), "later")) {
                    assertEquals(900, cl.status().intervalSeconds());
                }
                // with several jobs, a client that names none must name one
                try (CoordinatorClient any = CoordinatorClient.connect(c.loopbackAddress(), "")) {
                    CoordinatorException e = assertThrows(CoordinatorException.class, () -> any.setInterval(5));
                    assertEquals(ErrorCode.UNKNOWN_JOB, e.code());
                }
                ExecutionException e = assertThrows(ExecutionException.class, () -> c.setInterval("", 5).get(5,
                        TimeUnit.SECONDS));
                assertInstanceOf(CoordinatorException.class, e.getCause());
                // the coordinator-wide call sets every job
                c.setInterval(60).get(5, TimeUnit.SECONDS);
                assertEquals(60, ca.status().intervalSeconds());
                assertEquals(60, cb.status().intervalSeconds());
            }
        }
    }
}
