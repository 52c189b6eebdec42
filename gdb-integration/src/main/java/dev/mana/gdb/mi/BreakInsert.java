package dev.mana.gdb.mi;

import dev.mana.gdb.mi.command.MiBreakCondition;
import dev.mana.gdb.mi.command.MiBreakInsert;

/**
 * {@code -break-insert}: a location with an optional condition, ignore count, temporary and pending
 * flags. The command text is built here once, so the Eclipse model, the DAP server and the tests insert
 * breakpoints the same way.
 *
 * @param location    a gdb location: {@code /abs/file.c:20}, {@code function}, {@code *0x401000}
 * @param condition   an expression in the program's language; the breakpoint stops only where it is
 *                    non-zero (null or blank: always)
 * @param ignoreCount the first {@code ignoreCount} hits do not stop
 * @param temporary   deleted at its first stop ({@code -t}: Run to Line)
 * @param pending     accepted for a location not yet known ({@code -f}: a library loaded later)
 */
public record BreakInsert(String location, String condition, int ignoreCount, boolean temporary, boolean pending) {
    public BreakInsert {
        if (location == null || location.isBlank()) {
            throw new IllegalArgumentException("a breakpoint needs a location");
        }
        if (ignoreCount < 0) {
            throw new IllegalArgumentException("ignore count " + ignoreCount + " < 0");
        }
    }

    public static BreakInsert at(String location) {
        return new BreakInsert(location, null, 0, false, false);
    }

    public BreakInsert withCondition(String c) {
        return new BreakInsert(location, c, ignoreCount, temporary, pending);
    }

    public BreakInsert withIgnoreCount(int n) {
        return new BreakInsert(location, condition, n, temporary, pending);
    }

    public BreakInsert asTemporary() {
        return new BreakInsert(location, condition, ignoreCount, true, pending);
    }

    public BreakInsert asPending() {
        return new BreakInsert(location, condition, ignoreCount, temporary, true);
    }

    /** The MI command: the location quoted, the condition stripped, no {@code -i} for no hits to ignore. */
    public MiBreakInsert toCommand() {
        MiBreakInsert c = MiBreakInsert.linespec(location);
        if (temporary) {
            c.temporary();
        }
        if (pending) {
            c.pending();
        }
        if (condition != null && !condition.isBlank()) {
            c.condition(condition.strip());
        }
        if (ignoreCount > 0) {
            c.ignoreCount(ignoreCount);
        }
        return c;
    }

    /** The MI command line. */
    public String command() {
        return toCommand().line();
    }

    /** Inserts it; returns gdb's breakpoint number. {@code ^error} (no such file, function) throws with gdb's message. */
    public String insert(GdbMi gdb) throws MiException {
        return number(gdb.execute(toCommand()).results());
    }

    /** The number of {@code ^done,bkpt={number="N",...}}. */
    static String number(MiTuple results) throws MiException {
        MiTuple bkpt = results.getTuple("bkpt");
        if (bkpt.getString("number") == null) {
            throw new MiException(null, "no breakpoint number in " + results);
        }
        return bkpt.getString("number");
    }

    /** {@code -break-condition N "EXPR"}, or with no expression, the condition removed. */
    public static String conditionCommand(String number, String condition) {
        return new MiBreakCondition(number, condition).line();
    }
}
