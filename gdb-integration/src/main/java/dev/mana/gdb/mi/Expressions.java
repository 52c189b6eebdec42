package dev.mana.gdb.mi;

import dev.mana.gdb.mi.command.MiDataEvaluateExpression;
import dev.mana.gdb.mi.command.MiFrame;
import dev.mana.gdb.mi.command.MiVarAssign;
import java.util.Objects;

/**
 * Expressions in a frame: evaluated once ({@code -data-evaluate-expression}), assigned through a variable
 * object ({@code -var-assign}), and the address an expression names (for memory views).
 */
public final class Expressions {
    private Expressions() {
    }

    /** The command evaluating {@code expression} in frame {@code frame} of gdb thread {@code thread} (null: selected). */
    public static String evaluateCommand(String thread, int frame, String expression) {
        return command(thread, frame, expression).line();
    }

    /** The value as gdb prints it; {@code ^error} (no such symbol, a syntax error) throws with gdb's message. */
    public static String evaluate(GdbMi gdb, String thread, int frame, String expression) throws MiException {
        return Objects.requireNonNullElse(gdb.run(command(thread, frame, expression)), "");
    }

    private static MiDataEvaluateExpression command(String thread, int frame, String expression) {
        return new MiDataEvaluateExpression(thread == null ? null : new MiFrame(thread, frame), expression);
    }

    /** Assigns {@code expression} to variable object {@code varObject}; returns the value gdb now reads. */
    public static String assign(GdbMi gdb, String varObject, String expression) throws MiException {
        return Objects.requireNonNullElse(gdb.run(new MiVarAssign(varObject, expression)), "");
    }

    /**
     * The address an expression stands for: a pointer's value, an array's or function's address, or an
     * integer. gdb prints pointers with a type or symbol around the number ({@code (long *) 0x4010 <x>}).
     */
    public static long address(GdbMi gdb, String thread, int frame, String expression) throws MiException {
        String v = evaluate(gdb, thread, frame, expression);
        Long a = parseAddress(v);
        if (a == null) {
            // an array or a struct: its address
            a = parseAddress(evaluate(gdb, thread, frame, "&(" + expression + ")"));
        }
        if (a == null) {
            throw new MiException(null, "\"" + expression + "\" is not an address: " + v);
        }
        return a;
    }

    /** The first hex ({@code 0x...}) or decimal number of a value as gdb prints it, or null. */
    static Long parseAddress(String value) {
        for (String w : value.replace('(', ' ').replace(')', ' ').trim().split("\\s+")) {
            try {
                if (w.startsWith("0x")) {
                    return Long.parseUnsignedLong(w.substring(2), 16);
                }
                if (w.matches("\\d+")) {
                    return Long.parseUnsignedLong(w);
                }
            } catch (NumberFormatException e) {
                return null;
            }
            if (!w.endsWith("*") && !w.matches("[A-Za-z_][\\w ]*")) {
                return null; // not a cast, not a number: a struct's braces, a string
            }
        }
        return null;
    }
}
