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
        assertEquals(5, Await.value(Duration.ofSeconds(10), "five", n::incrementAndGet, v -> v == 5, null));
    }

    @Test
    void failsNamingWhatItWaitedForTheLastValueAndTheDiagnostic() {
        AtomicInteger n = new AtomicInteger();
        AssertionError e = assertThrows(AssertionError.class, () -> Await.value(Duration.ofMillis(50),
                Duration.ofMillis(5), "the counter to reach 1000", n::incrementAndGet, v -> v >= 1000,
                () -> "counter log"));
        assertTrue(e.getMessage().contains("waiting for the counter to reach 1000; last seen: " + n.get()),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("\ncounter log"), e.getMessage());
    }

    @Test
    void aFalseConditionFailsAfterTheTimeout() {
        long t0 = System.nanoTime();
        AssertionError e = assertThrows(AssertionError.class,
                () -> Await.until(Duration.ofMillis(100), "nothing", () -> false));
        assertTrue(System.nanoTime() - t0 >= 100_000_000L);
        assertTrue(e.getMessage().contains("(limit 100 ms) waiting for nothing"), e.getMessage());
        assertTrue(!e.getMessage().contains("last seen"), e.getMessage());
    }

    @Test
    void whatTheConditionThrowsEndsTheWaitAtOnce() {
        IOException io = new IOException("unreadable");
        long t0 = System.nanoTime();
        assertSame(io, assertThrows(IOException.class, () -> Await.until(Duration.ofSeconds(30), "a file", () -> {
            throw io;
        }, null)));
        AssertionError mine = new AssertionError("the process died");
        assertSame(mine, assertThrows(AssertionError.class, () -> Await.until(Duration.ofSeconds(30), "x", () -> {
            throw mine;
        }, () -> "unused")));
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
    }
}
