package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;

/**
 * {@code -break-insert [-t] [-f] [-c "COND"] [-i N] LOCATION}; the result is the {@code bkpt} tuple of the
 * answer ({@link #number} reads its number).
 */
public final class MiBreakInsert extends MiCommand<MiTuple> {
    private final String location;
    private boolean temporary;
    private boolean pending;
    private String condition;
    private Integer ignoreCount;

    private MiBreakInsert(String location) {
        this.location = location;
    }

    /** A linespec ({@code /abs/file.c:20}, {@code function}), always quoted: a path may hold spaces. */
    public static MiBreakInsert linespec(String location) {
        return new MiBreakInsert(MiArgs.quote(location));
    }

    /** A symbol or {@code *ADDRESS}, bare as gdb reads it (quoted only if it would not be one word). */
    public static MiBreakInsert symbol(String location) {
        return new MiBreakInsert(MiArgs.word(location));
    }

    /** An explicit location {@code --source "PATH" --line N}: a path with a colon or a space is no problem. */
    public static MiBreakInsert sourceLine(String path, int line) {
        return new MiBreakInsert("--source " + MiArgs.quote(path) + " --line " + line);
    }

    /** {@code -t}: deleted at its first stop. */
    public MiBreakInsert temporary() {
        temporary = true;
        return this;
    }

    /** {@code -f}: accepted for a location not yet known (a library loaded later). */
    public MiBreakInsert pending() {
        pending = true;
        return this;
    }

    /** {@code -c "COND"}, the expression as given (null or blank: none). */
    public MiBreakInsert condition(String c) {
        condition = c == null || c.isBlank() ? null : c;
        return this;
    }

    /** {@code -i N}: the first N hits do not stop. Given as {@code -i 0} too when asked for. */
    public MiBreakInsert ignoreCount(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("ignore count " + n + " < 0");
        }
        ignoreCount = n;
        return this;
    }

    @Override
    public String line() {
        MiLine l = new MiLine("-break-insert").addIf(temporary, "-t").addIf(pending, "-f");
        if (condition != null) {
            l.add("-c").quoted(condition);
        }
        if (ignoreCount != null) {
            l.add("-i").add(ignoreCount);
        }
        return l.add(location).toString();
    }

    @Override
    public MiTuple result(MiResponse response) {
        return response.results().getTuple("bkpt");
    }

    /** The number of {@code bkpt={number="N",...}}. */
    public static String number(MiTuple bkpt) throws MiException {
        String n = bkpt.getString("number");
        if (n == null) {
            throw new MiException(null, "no breakpoint number in " + bkpt);
        }
        return n;
    }
}
