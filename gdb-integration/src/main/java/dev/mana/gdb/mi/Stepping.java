package dev.mana.gdb.mi;

import dev.mana.gdb.mi.command.MiCommand;
import dev.mana.gdb.mi.command.MiExecFinish;
import dev.mana.gdb.mi.command.MiExecNext;
import dev.mana.gdb.mi.command.MiExecNextInstruction;
import dev.mana.gdb.mi.command.MiExecStep;
import dev.mana.gdb.mi.command.MiExecStepInstruction;
import java.util.function.Function;

/**
 * The execution commands that move one thread a step: by source line or by machine instruction. Each
 * runs in the background ({@code mi-async}); the stop arrives as an {@code *stopped} event
 * ({@code end-stepping-range}, {@code function-finished}, or a breakpoint met on the way).
 */
public enum Stepping {
    /** Into calls, one source line ({@code step}). */
    INTO(MiExecStep::new),
    /** Over calls, one source line ({@code next}). */
    OVER(MiExecNext::new),
    /** Out of the frame ({@code finish}). */
    RETURN(MiExecFinish::new),
    /** One machine instruction, into calls ({@code stepi}). */
    INSTRUCTION_INTO(MiExecStepInstruction::new),
    /** One machine instruction, over calls ({@code nexti}). */
    INSTRUCTION_OVER(MiExecNextInstruction::new);

    private final Function<String, MiCommand<MiResponse>> command;

    Stepping(Function<String, MiCommand<MiResponse>> command) {
        this.command = command;
    }

    /** The command for gdb thread {@code thread}; finish leaves the innermost frame. */
    public MiCommand<MiResponse> toCommand(String thread) {
        return command.apply(thread);
    }

    /** The command line for gdb thread {@code thread}. */
    public String command(String thread) {
        return toCommand(thread).line();
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
