package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;

/**
 * {@code -var-create [--thread T --frame L] - * "EXPR"}: a variable object named by gdb, evaluated in the
 * frame once ({@code *}); the result is the answer's tuple (name, value, type, numchild).
 */
public final class MiVarCreate extends MiCommand<MiTuple> {
    private final MiFrame frame;
    private final String expression;

    /** {@code frame}: null for gdb's selected frame. */
    public MiVarCreate(MiFrame frame, String expression) {
        this.frame = frame;
        this.expression = expression;
    }

    @Override
    public String line() {
        return new MiLine("-var-create").frame(frame).add("-").add("*").quoted(expression).toString();
    }

    @Override
    public MiTuple result(MiResponse response) {
        return response.results();
    }
}
