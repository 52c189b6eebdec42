package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;

/**
 * {@code -var-assign "VAROBJ" "EXPR"}; the result is the value gdb now reads. The object's name is quoted
 * as dap-server always sent it (gdb's names, {@code var1}, {@code var1.1_anonymous}, read the same either
 * way; Expressions.assign sent it bare before).
 */
public final class MiVarAssign extends MiCommand<String> {
    private final String varobj;
    private final String expression;

    public MiVarAssign(String varobj, String expression) {
        this.varobj = varobj;
        this.expression = expression;
    }

    @Override
    public String line() {
        return new MiLine("-var-assign").quoted(varobj).quoted(expression).toString();
    }

    @Override
    public String result(MiResponse response) {
        return response.results().getString("value");
    }
}
