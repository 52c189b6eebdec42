package dev.mana.gdb.mi;

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

    /** The MI command line. */
    public String command() {
        StringBuilder b = new StringBuilder("-break-insert");
        if (temporary) {
            b.append(" -t");
        }
        if (pending) {
            b.append(" -f");
        }
        if (condition != null && !condition.isBlank()) {
            b.append(" -c ").append(MiEscapes.quote(condition.strip()));
        }
        if (ignoreCount > 0) {
            b.append(" -i ").append(ignoreCount);
        }
        return b.append(' ').append(MiEscapes.quote(location)).toString();
    }

    /** Inserts it; returns gdb's breakpoint number. {@code ^error} (no such file, function) throws with gdb's message. */
    public String insert(GdbMi gdb) throws MiException {
        return number(gdb.execute(command()).results());
    }

    /** The number of {@code ^done,bkpt={number="N",...}}. */
    static String number(MiTuple results) throws MiException {
        String n = results.getTuple("bkpt").getString("number");
        if (n == null) {
            throw new MiException(null, "no breakpoint number in " + results);
        }
        return n;
    }

    /** {@code -break-condition N EXPR}, or with no expression, the condition removed. */
    public static String conditionCommand(String number, String condition) {
        return condition == null || condition.isBlank() ? "-break-condition " + number
                : "-break-condition " + number + " " + condition.strip();
    }
}
