package dev.mana.gdb.mi.command;

/** A frame of a thread, as the {@code --thread T --frame L} options of many commands name it (gdb's numbering). */
public record MiFrame(String thread, int level) {
    public MiFrame {
        if (thread == null || thread.isBlank()) {
            throw new IllegalArgumentException("a frame needs its thread");
        }
    }

    public static MiFrame of(int thread, int level) {
        return new MiFrame(Integer.toString(thread), level);
    }

    /** The innermost frame of {@code thread}. */
    public static MiFrame top(String thread) {
        return new MiFrame(thread, 0);
    }
}
