package dev.mana.testing;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * Key scenarios may not skip silently. A test that finds this machine cannot run a scenario that
 * {@code make test} always provides (Open MPI installed, a kernel that tracks written pages, ...) calls
 * {@link #skipOrFail}: the test fails, unless the environment variable {@value #VARIABLE} (keys separated by
 * spaces or commas) names the scenario's key, on a machine known to lack it, and then it is skipped with
 * the reason. The keys are listed in docs/testing.md; the shell harnesses follow the same policy
 * ({@code core-native/tests/lib/cannot.sh}).
 */
public final class Cannot {
    public static final String VARIABLE = "MANA_TEST_CANNOT";

    private Cannot() {
    }

    /**
     * Skips the test (JUnit's {@code Assumptions.abort}) with {@code why} when {@value #VARIABLE} names
     * {@code key}; otherwise fails it with {@code why} and how to declare the machine unable.
     */
    public static void skipOrFail(String key, String why) {
        skipOrFail(key, why, System.getenv(VARIABLE));
    }

    /** {@link #skipOrFail(String, String)} with the variable's value given (for the tests of this class). */
    static void skipOrFail(String key, String why, String declared) {
        if (declaredKeys(declared).contains(key)) {
            Assumptions.abort(why);
        }
        throw new AssertionError(why + " (set " + VARIABLE + "=" + key + " where this machine cannot do it)");
    }

    /** The keys a value of {@value #VARIABLE} names. */
    static Set<String> declaredKeys(String declared) {
        if (declared == null) {
            return Set.of();
        }
        return Arrays.stream(declared.split("[\\s,]+")).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
    }
}
