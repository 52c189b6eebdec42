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
 * silently. For something that has no event to wait on (a file, {@code /proc}, a coordinator's state read
 * by request); where a test can block on a real event (a future, a latch, a monitor) it should.
 *
 * <p>A condition that throws an {@link Error} (an assertion of its own, e.g. "the process died") ends the wait
 * at once with that error. Any other exception counts as "not yet"; the last one is the failure's cause.
 */
public final class Await {
    /** The pause between two looks: short, so a met condition is seen quickly, and not a busy loop. */
    public static final Duration POLL = Duration.ofMillis(10);

    private Await() {
    }

    /** Waits until {@code condition} holds; fails after {@code timeout} naming {@code what}. */
    public static void until(Duration timeout, String what, BooleanSupplier condition) throws InterruptedException {
        Objects.requireNonNull(condition, "condition");
        value(timeout, what, condition::getAsBoolean, Boolean::booleanValue, null);
    }

    /**
     * Waits until {@code condition} returns true; fails after {@code timeout} naming {@code what}, with
     * {@code diagnostic}'s text (asked for once, on failure; may be null) to say what the test saw. The
     * condition may throw (see the class comment).
     */
    public static void until(Duration timeout, String what, Callable<Boolean> condition, Supplier<String> diagnostic)
            throws InterruptedException {
        value(timeout, what, condition, Boolean.TRUE::equals, diagnostic);
    }

    /**
     * Polls {@code probe} until its value satisfies {@code done}, and returns that value; fails after
     * {@code timeout} naming {@code what}, the last value seen and {@code diagnostic}'s text (may be null).
     */
    public static <T> T value(Duration timeout, String what, Callable<T> probe, Predicate<? super T> done,
            Supplier<String> diagnostic) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(probe, "probe");
        Objects.requireNonNull(done, "done");
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        T last = null;
        boolean seen = false;
        Exception lastError = null;
        while (true) {
            try {
                T v = probe.call();
                last = v;
                seen = true;
                lastError = null;
                if (done.test(v)) {
                    return v;
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                lastError = e;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                StringBuilder m = new StringBuilder("timed out after ").append(millis(System.nanoTime() - start))
                        .append(" ms (limit ").append(timeout.toMillis()).append(" ms) waiting for ").append(what);
                if (lastError != null) {
                    m.append("; last look failed: ").append(lastError);
                } else if (seen && !(last instanceof Boolean)) {
                    m.append("; last seen: ").append(last);
                }
                if (diagnostic != null) {
                    String d;
                    try {
                        d = diagnostic.get();
                    } catch (RuntimeException e) {
                        d = "(the diagnostic failed: " + e + ")";
                    }
                    m.append("\n").append(d);
                }
                AssertionError failure = new AssertionError(m.toString());
                if (lastError != null) {
                    failure.initCause(lastError);
                }
                throw failure;
            }
            Thread.sleep(Math.max(1, Math.min(POLL.toMillis(), left / 1_000_000)));
        }
    }

    /** As {@link #value(Duration, String, Callable, Predicate, Supplier)} without a diagnostic. */
    public static <T> T value(Duration timeout, String what, Callable<T> probe, Predicate<? super T> done)
            throws InterruptedException {
        return value(timeout, what, probe, done, null);
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000;
    }
}
