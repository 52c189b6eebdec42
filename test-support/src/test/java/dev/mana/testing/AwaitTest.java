package dev.mana.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {
    @Test
    void returnsOnceTheConditionHolds() throws Exception {
        AtomicInteger n = new AtomicInteger();
        Await.until(Duration.ofSeconds(10), "three looks", () -> n.incrementAndGet() >= 3);
        assertEquals(3, n.get());
    }

    @Test
    void failsNamingWhatItWaitedForAndTheLastValue() {
        AtomicInteger n = new AtomicInteger();
        AssertionError e = assertThrows(AssertionError.class, () -> Await.value(Duration.ofMillis(50),
                "the counter to reach 1000", n::incrementAndGet, v -> v >= 1000, () -> "counter log"));
        assertTrue(e.getMessage().contains("waiting for the counter to reach 1000"), e.getMessage());
        assertTrue(e.getMessage().contains("last seen: " + n.get()), e.getMessage());
        assertTrue(e.getMessage().endsWith("\ncounter log"), e.getMessage());
    }

    @Test
    void aFalseConditionFailsAfterTheTimeout() {
        long t0 = System.nanoTime();
        AssertionError e = assertThrows(AssertionError.class,
                () -> Await.until(Duration.ofMillis(100), "nothing", () -> false));
        assertTrue(System.nanoTime() - t0 >= 100_000_000L);
        assertTrue(e.getMessage().contains("waiting for nothing"), e.getMessage());
    }

    @Test
    void exceptionsAreNotYetAndTheLastIsTheCause() throws Exception {
        AtomicInteger n = new AtomicInteger();
        Await.until(Duration.ofSeconds(10), "a file", () -> {
            if (n.incrementAndGet() < 3) {
                throw new IOException("not there yet");
            }
            return true;
        }, null);
        IOException io = new IOException("still not there");
        AssertionError e = assertThrows(AssertionError.class, () -> Await.until(Duration.ofMillis(30), "a file", () -> {
            throw io;
        }, null));
        assertSame(io, e.getCause());
        assertTrue(e.getMessage().contains("still not there"), e.getMessage());
    }

    @Test
    void anAssertionInTheConditionEndsTheWaitAtOnce() {
        AssertionError mine = new AssertionError("the process died");
        long t0 = System.nanoTime();
        AssertionError e = assertThrows(AssertionError.class, () -> Await.until(Duration.ofSeconds(30), "x", () -> {
            throw mine;
        }, () -> "unused"));
        assertSame(mine, e);
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
    }
}
