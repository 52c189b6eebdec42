package dev.mana.eclipse.core.tests;

import java.util.Arrays;
import org.junit.jupiter.api.Assumptions;

/**
 * Key scenarios may not skip silently (docs/testing.md): the same policy as test-support's
 * {@code dev.mana.testing.Cannot}, kept in this bundle so that it needs no new bundle. A scenario this
 * machine cannot run fails, unless the environment variable MANA_TEST_CANNOT (keys separated by spaces or
 * commas) names its key; then it is skipped with the reason.
 */
final class Cannot {
    private Cannot() {
    }

    static void skipOrFail(String key, String why) {
        String declared = System.getenv("MANA_TEST_CANNOT");
        if (declared != null && Arrays.asList(declared.split("[\\s,]+")).contains(key)) {
            Assumptions.abort(why);
        }
        throw new AssertionError(why + " (set MANA_TEST_CANNOT=" + key + " where this machine cannot do it)");
    }
}
