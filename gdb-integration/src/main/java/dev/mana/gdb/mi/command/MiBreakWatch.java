package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.Watch;

/**
 * {@code -break-watch [-r|-a] "EXPR"}: a watchpoint. gdb answers each kind under its own name
 * ({@code wpt}, {@code hw-rwpt}, {@code hw-awpt}); the result is the number from whichever it is.
 */
public final class MiBreakWatch extends MiCommand<String> {
    private final String expression;
    private final Watch.Kind kind;

    public MiBreakWatch(String expression, Watch.Kind kind) {
        this.expression = expression;
        this.kind = kind;
    }

    @Override
    public String line() {
        MiLine l = new MiLine("-break-watch");
        switch (kind) {
            case READ -> l.add("-r");
            case ACCESS -> l.add("-a");
            case WRITE -> { }
        }
        return l.quoted(expression).toString();
    }

    @Override
    public String result(MiResponse response) throws MiException {
        return number(response.results());
    }

    /** The number from {@code wpt}, {@code hw-rwpt} or {@code hw-awpt}. */
    public static String number(MiTuple results) throws MiException {
        for (String key : new String[] {"wpt", "hw-rwpt", "hw-awpt"}) {
            String n = results.getTuple(key).getString("number");
            if (n != null) {
                return n;
            }
        }
        throw new MiException(null, "no watchpoint number in " + results);
    }
}
