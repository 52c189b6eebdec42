package dev.mana.dap.session;

import dev.mana.gdb.mi.GdbMi;
import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.command.MiBreakDelete;
import dev.mana.gdb.mi.command.MiBreakInsert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.eclipse.lsp4j.debug.Breakpoint;
import org.eclipse.lsp4j.debug.FunctionBreakpoint;
import org.eclipse.lsp4j.debug.SourceBreakpoint;

/**
 * The client's breakpoints as gdb breakpoints. DAP sends the whole list of one source (or of all
 * function breakpoints) each time; gdb keeps numbered breakpoints. So each request deletes what was
 * inserted for that source before and inserts the new list, and the DAP id of a breakpoint is its gdb
 * number (a stop's {@code bkptno} names it directly).
 *
 * <p>Breakpoints are inserted with {@code -f}: a location gdb cannot resolve yet (a library the rank has
 * not loaded) stays pending and is reported unverified, then {@link #modified} reports it verified when
 * gdb resolves it.
 */
final class Breakpoints {
    private static final String FUNCTIONS = "\0functions";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final GdbMi gdb;
    private final int lineBase;
    /** gdb numbers per source path (and {@link #FUNCTIONS} for the function breakpoints). */
    private final Map<String, List<Integer>> numbers = new HashMap<>();
    private final Set<Integer> functionNumbers = new HashSet<>();
    /** What the client was last told of each breakpoint: verified and line, to report changes only. */
    private final Map<Integer, String> reported = new HashMap<>();

    Breakpoints(GdbMi gdb, int lineBase) {
        this.gdb = gdb;
        this.lineBase = lineBase;
    }

    /** Replaces the breakpoints of one source file; one result per requested breakpoint, in order. */
    List<Breakpoint> setSource(String path, SourceBreakpoint[] wanted) throws MiException {
        deleteAll(path);
        List<Breakpoint> out = new ArrayList<>();
        List<Integer> mine = new ArrayList<>();
        for (SourceBreakpoint sb : wanted == null ? new SourceBreakpoint[0] : wanted) {
            int gdbLine = sb.getLine() + 1 - lineBase;
            // an explicit location: a path with a colon or a space is no problem, unlike "FILE:LINE"
            out.add(insert(MiBreakInsert.sourceLine(path, gdbLine), sb.getCondition(), sb.getHitCondition(),
                    sb.getLine(), mine));
        }
        numbers.put(path, mine);
        return out;
    }

    /** Replaces every function breakpoint. */
    List<Breakpoint> setFunctions(FunctionBreakpoint[] wanted) throws MiException {
        deleteAll(FUNCTIONS);
        functionNumbers.clear();
        List<Breakpoint> out = new ArrayList<>();
        List<Integer> mine = new ArrayList<>();
        for (FunctionBreakpoint fb : wanted == null ? new FunctionBreakpoint[0] : wanted) {
            // a name in both halves (main, a libc function) gets a location in each: one breakpoint
            out.add(insert(MiBreakInsert.linespec(fb.getName()), fb.getCondition(), fb.getHitCondition(), null, mine));
        }
        numbers.put(FUNCTIONS, mine);
        functionNumbers.addAll(mine);
        return out;
    }

    private Breakpoint insert(MiBreakInsert cmd, String condition, String hitCondition, Integer line,
                              List<Integer> mine) throws MiException {
        cmd.pending().condition(condition);
        if (hitCondition != null && !hitCondition.isBlank()) {
            // DAP's hit condition "N": stop at the N-th hit, i.e. ignore the first N-1
            int n;
            try {
                n = Integer.parseInt(hitCondition.trim());
            } catch (NumberFormatException e) {
                return MiToDap.failedBreakpoint("hit condition must be a number of hits, not \"" + hitCondition + "\"",
                        line);
            }
            if (n < 1) {
                return MiToDap.failedBreakpoint("hit condition must be 1 or more, not " + n, line);
            }
            cmd.ignoreCount(n - 1);
        }
        MiResponse r = gdb.executeAllowError(cmd, TIMEOUT);
        if (r.isError()) {
            return MiToDap.failedBreakpoint(r.errorMessage(), line);
        }
        MiTuple bkpt = cmd.result(r);
        Breakpoint b = MiToDap.breakpoint(bkpt, lineBase);
        mine.add(b.getId());
        reported.put(b.getId(), state(b));
        return b;
    }

    private void deleteAll(String key) throws MiException {
        List<Integer> old = numbers.remove(key);
        if (old == null || old.isEmpty()) {
            return;
        }
        for (int n : old) {
            reported.remove(n);
        }
        gdb.execute(new MiBreakDelete(old), TIMEOUT);
    }

    /** Whether gdb breakpoint {@code number} is one of the client's function breakpoints. */
    boolean isFunction(Integer number) {
        return number != null && functionNumbers.contains(number);
    }

    /**
     * An {@code =breakpoint-modified} record: the breakpoint as the client should now see it, or null when
     * it is not the client's or nothing the client shows changed (gdb sends one at every hit, for the count).
     */
    Breakpoint modified(MiTuple bkpt) {
        String num = bkpt.getString("number");
        if (num == null || num.contains(".")) {
            return null;
        }
        int n = Integer.parseInt(num);
        if (!reported.containsKey(n)) {
            return null;
        }
        Breakpoint b = MiToDap.breakpoint(bkpt, lineBase);
        String now = state(b);
        if (now.equals(reported.put(n, now))) {
            return null;
        }
        return b;
    }

    private static String state(Breakpoint b) {
        return b.isVerified() + ":" + Objects.toString(b.getLine());
    }
}
