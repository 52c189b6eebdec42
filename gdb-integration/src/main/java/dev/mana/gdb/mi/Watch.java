package dev.mana.gdb.mi;

import dev.mana.gdb.mi.command.MiBreakWatch;

/**
 * {@code -break-watch}: a watchpoint on an expression (a variable, {@code *(int *) 0x601040}). gdb
 * answers each kind under its own name ({@code wpt}, {@code hw-rwpt}, {@code hw-awpt}) and reports a
 * trigger with the matching stop reason; both are read here.
 *
 * @param expression what to watch, evaluated in the scope of the selected frame when inserted
 * @param kind       which accesses stop
 */
public record Watch(String expression, Kind kind) {
    /** Which accesses stop the program. */
    public enum Kind {
        /** A write that changes the value ({@code watch}). */
        WRITE,
        /** A read ({@code rwatch}). */
        READ,
        /** A read or a write ({@code awatch}). */
        ACCESS
    }

    public Watch {
        if (expression == null || expression.isBlank()) {
            throw new IllegalArgumentException("a watchpoint needs an expression");
        }
    }

    public MiBreakWatch toCommand() {
        return new MiBreakWatch(expression.strip(), kind);
    }

    public String command() {
        return toCommand().line();
    }

    /** Inserts it; returns gdb's breakpoint number. */
    public String insert(GdbMi gdb) throws MiException {
        return gdb.run(toCommand());
    }

    /** The number from {@code wpt}, {@code hw-rwpt} or {@code hw-awpt}. */
    static String number(MiTuple results) throws MiException {
        return MiBreakWatch.number(results);
    }

    /**
     * The number of the breakpoint or watchpoint a stop reports ({@code bkptno} of a breakpoint hit, the
     * {@code number} of a watchpoint trigger, {@code wpnum} of a watchpoint gone out of scope), or null.
     */
    public static String stoppedBy(GdbEvent.Stopped s) {
        MiTuple r = s.record().results();
        String reason = s.reason() == null ? "" : s.reason();
        return switch (reason) {
            case "breakpoint-hit" -> r.getString("bkptno");
            case "watchpoint-trigger" -> r.getTuple("wpt").getString("number");
            case "read-watchpoint-trigger" -> r.getTuple("hw-rwpt").getString("number");
            case "access-watchpoint-trigger" -> r.getTuple("hw-awpt").getString("number");
            case "watchpoint-scope" -> r.getString("wpnum");
            default -> null;
        };
    }
}
