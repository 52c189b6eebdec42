package dev.mana.gdb.mi;

/**
 * The execution commands that move one thread a step: by source line or by machine instruction. Each
 * runs in the background ({@code mi-async}); the stop arrives as an {@code *stopped} event
 * ({@code end-stepping-range}, {@code function-finished}, or a breakpoint met on the way).
 */
public enum Stepping {
    /** Into calls, one source line ({@code step}). */
    INTO("-exec-step"),
    /** Over calls, one source line ({@code next}). */
    OVER("-exec-next"),
    /** Out of the frame ({@code finish}). */
    RETURN("-exec-finish"),
    /** One machine instruction, into calls ({@code stepi}). */
    INSTRUCTION_INTO("-exec-step-instruction"),
    /** One machine instruction, over calls ({@code nexti}). */
    INSTRUCTION_OVER("-exec-next-instruction");

    private final String mi;

    Stepping(String mi) {
        this.mi = mi;
    }

    /** The command for gdb thread {@code thread}; finish leaves the innermost frame. */
    public String command(String thread) {
        String t = " --thread " + thread;
        return this == RETURN ? mi + t + " --frame 0" : mi + t;
    }

    /** The instruction form of a line step (return has none: it leaves the frame either way). */
    public Stepping byInstruction() {
        return switch (this) {
            case INTO -> INSTRUCTION_INTO;
            case OVER -> INSTRUCTION_OVER;
            default -> this;
        };
    }
}
