package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;

/**
 * {@code -data-evaluate-expression [--thread T --frame L] "EXPR"}: evaluated once (side effects happen
 * once); the result is the value as gdb prints it, null if the answer has none.
 */
public final class MiDataEvaluateExpression extends MiCommand<String> {
    private final MiFrame frame;
    private final String expression;

    /** {@code frame}: null for gdb's selected frame. */
    public MiDataEvaluateExpression(MiFrame frame, String expression) {
        this.frame = frame;
        this.expression = expression;
    }

    public MiDataEvaluateExpression(String expression) {
        this(null, expression);
    }

    @Override
    public String line() {
        return new MiLine("-data-evaluate-expression").frame(frame).quoted(expression).toString();
    }

    @Override
    public String result(MiResponse response) {
        return response.results().getString("value");
    }
}
