package dev.mana.testing;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Bounded polling for tests: waits until a condition holds and, when the time runs out, fails the test with
 * an {@link AssertionError} that names what it waited for (and what it last saw). No wait carries on
 * silently. For what has no event to wait on (a file, {@code /proc}, a coordinator's state read by request);
 * where a test can block on a real event (a future, a latch, a monitor) it should.
 *
 * <p>A condition that throws ends the wait with that exception (an assertion of its own, "the process
 * died", fails the test at once); a condition that means "not yet" by an exception catches it itself.
 */
public final class Await {
    /** The pause between two looks unless one is given: a met condition is seen quickly, without a busy loop. */
    public static final Duration POLL = Duration.ofMillis(10);

    private Await() {
    }

    /** Waits until {@code condition} holds; fails after {@code timeout} naming {@code what}. */
    public static void until(Duration timeout, String what, BooleanSupplier condition) throws InterruptedException {
        Objects.requireNonNull(condition, "condition");
        try {
            value(timeout, POLL, what, condition::getAsBoolean, Boolean::booleanValue, null);
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // cannot happen: a BooleanSupplier throws no checked exception
        }
    }

    /**
     * Waits until {@code condition} returns true; fails after {@code timeout} naming {@code what}, with
     * {@code diagnostic}'s text (asked for once, on failure; may be null) to say what the test saw.
     */
    public static void until(Duration timeout, String what, Callable<Boolean> condition, Supplier<String> diagnostic)
            throws Exception {
        value(timeout, POLL, what, condition, Boolean.TRUE::equals, diagnostic);
    }

    /**
     * Polls {@code probe} every {@code every} until its value satisfies {@code done}, and returns that value;
     * fails after {@code timeout} naming {@code what}, the last value seen (unless a Boolean) and
     * {@code diagnostic}'s text (may be null).
     */
    public static <T> T value(Duration timeout, Duration every, String what, Callable<T> probe,
            Predicate<? super T> done, Supplier<String> diagnostic) throws Exception {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(every, "every");
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(probe, "probe");
        Objects.requireNonNull(done, "done");
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long pauseMs = Math.max(1, every.toMillis());
        while (true) {
            T last = probe.call();
            if (done.test(last)) {
                return last;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                StringBuilder m = new StringBuilder("timed out after ").append((System.nanoTime() - start) / 1_000_000)
                        .append(" ms (limit ").append(timeout.toMillis()).append(" ms) waiting for ").append(what);
                if (!(last instanceof Boolean)) {
                    m.append("; last seen: ").append(last);
                }
                if (diagnostic != null) {
                    String d;
                    try {
                        d = diagnostic.get();
                    } catch (RuntimeException e) {
                        d = "(the diagnostic failed: " + e + ")";
                    }
                    m.append('\n').append(d);
                }
                throw new AssertionError(m.toString());
            }
            Thread.sleep(Math.max(1, Math.min(pauseMs, left / 1_000_000)));
        }
    }

    /** {@link #value(Duration, Duration, String, Callable, Predicate, Supplier)} every {@link #POLL}. */
    public static <T> T value(Duration timeout, String what, Callable<T> probe, Predicate<? super T> done,
            Supplier<String> diagnostic) throws Exception {
        return value(timeout, POLL, what, probe, done, diagnostic);
    }
}
