package dev.mana.dap.session;

import java.util.HashMap;
import java.util.Map;

/**
 * Small integers for things the client refers back to ({@code frameId}, {@code variablesReference}).
 * DAP says they are valid only while the debuggee stays stopped, so the table is cleared at every
 * resume; numbers keep growing across clears, so a stale id from before a resume is refused instead of
 * naming something else. Not thread-safe: one session uses it from its worker thread.
 */
final class Handles<T> {
    private final Map<Integer, T> items = new HashMap<>();
    private int next = 1; // 0 means "none" for variablesReference

    int create(T item) {
        int id = next++;
        items.put(id, item);
        return id;
    }

    /** The item, or null when the id is unknown or from before the last {@link #clear()}. */
    T get(int id) {
        return items.get(id);
    }

    void clear() {
        items.clear();
    }
}
