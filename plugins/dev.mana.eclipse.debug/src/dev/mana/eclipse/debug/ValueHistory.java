package dev.mana.eclipse.debug;

import java.util.HashMap;
import java.util.Map;

/**
 * The values the views showed at the last stop, so this stop's values can say they changed (the Variables,
 * Registers and Expressions views highlight them). A value is known by a key naming where it lives
 * ({@code thread/function/variable.child}, {@code reg/thread/level/rax}); a value never seen before has not
 * changed. Values are carried over from every earlier stop, so a variable not looked at in between still
 * compares with the last time it was shown.
 */
final class ValueHistory {
    private final Map<String, String> previous = new HashMap<>();
    private final Map<String, String> current = new HashMap<>();

    /** Records this stop's {@code value} under {@code key}; true when it differs from the last stop's. */
    synchronized boolean record(String key, String value) {
        if (value == null) {
            return false;
        }
        current.put(key, value);
        String before = previous.get(key);
        return before != null && !before.equals(value);
    }

    /** The program runs again: this stop's values become the ones to compare with. */
    synchronized void nextStop() {
        previous.putAll(current);
        current.clear();
    }
}
