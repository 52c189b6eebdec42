package dev.mana.gdb.mi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The target's registers: names by number ({@code -data-list-register-names}), values of one frame
 * ({@code -data-list-register-values}) and gdb's own register groups (general, float, sse, vector,
 * system, ... from {@code maint print register-groups}: MI has no command for them), so a debugger
 * shows the groups gdb's {@code info registers GROUP} shows.
 */
public final class Registers {
    /** A register group and the names of its registers, in gdb's order. */
    public record Group(String name, List<String> registers) {
        public Group {
            registers = List.copyOf(registers);
        }
    }

    /** gdb's groups that only say what is saved or list everything: not shown as groups of their own. */
    private static final Set<String> NOT_SHOWN = Set.of("all", "save", "restore");

    private Registers() {
    }

    /** Register names indexed by gdb's register number; an unnamed number is "". */
    public static List<String> names(GdbMi gdb) throws MiException {
        List<String> out = new ArrayList<>();
        for (MiValue v : gdb.execute("-data-list-register-names").results().getList("register-names")) {
            out.add(v.asString() == null ? "" : v.asString());
        }
        return out;
    }

    /** The command reading the values of {@code numbers} (all when empty) in hex, in a thread's frame. */
    public static String valuesCommand(String thread, int frame, List<Integer> numbers) {
        StringBuilder b = new StringBuilder("-data-list-register-values --thread ").append(thread)
                .append(" --frame ").append(frame).append(" --skip-unavailable x");
        for (int n : numbers) {
            b.append(' ').append(n);
        }
        return b.toString();
    }

    /** Values by register number: hex for scalars, gdb's brace notation for vector registers. */
    public static Map<Integer, String> values(GdbMi gdb, String thread, int frame, List<Integer> numbers)
            throws MiException {
        return parseValues(gdb.execute(valuesCommand(thread, frame, numbers)).results());
    }

    static Map<Integer, String> parseValues(MiTuple results) {
        Map<Integer, String> out = new LinkedHashMap<>();
        for (MiValue v : results.getList("register-values")) {
            MiTuple t = v.asTuple();
            String n = t.getString("number");
            if (n != null) {
                out.put(Integer.parseInt(n), t.getString("value", ""));
            }
        }
        return out;
    }

    /**
     * gdb's register groups of the current target, each with its registers; {@code all}, {@code save} and
     * {@code restore} left out. Where gdb cannot print them, one group "general" holds every named register.
     */
    public static List<Group> groups(GdbMi gdb) throws MiException {
        MiResponse r = gdb.executeAllowError("maint print register-groups", java.time.Duration.ofSeconds(30));
        List<Group> g = r.isError() ? List.of() : parseGroups(r.console());
        if (!g.isEmpty()) {
            return g;
        }
        List<String> named = new ArrayList<>();
        for (String n : names(gdb)) {
            if (!n.isEmpty()) {
                named.add(n);
            }
        }
        return List.of(new Group("general", named));
    }

    /**
     * Reads the table of {@code maint print register-groups}: a header line ({@code Name Nr Rel Offset Size
     * Type Groups}), then one line per register whose last column, when present, is its groups separated by
     * commas. Groups come in the order of their first register; unnamed registers ({@code ''}) are skipped.
     */
    public static List<Group> parseGroups(String table) {
        Map<String, List<String>> groups = new LinkedHashMap<>();
        boolean header = false;
        for (String line : table.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (!header) {
                header = f.length >= 6 && f[0].equals("Name") && f[1].equals("Nr");
                continue;
            }
            // name nr rel offset size type [groups]: a row without groups has six fields
            if (f.length < 7 || f[0].equals("''") || !f[1].matches("\\d+")) {
                continue;
            }
            for (String g : f[f.length - 1].split(",")) {
                if (!g.isEmpty() && !NOT_SHOWN.contains(g)) {
                    groups.computeIfAbsent(g, k -> new ArrayList<>()).add(f[0]);
                }
            }
        }
        List<Group> out = new ArrayList<>();
        groups.forEach((name, regs) -> out.add(new Group(name, regs)));
        return out;
    }

    /** Writes {@code value} (an expression) into register {@code name} in a thread's frame; returns the new value. */
    public static String write(GdbMi gdb, String thread, int frame, String name, String value) throws MiException {
        return Expressions.evaluate(gdb, thread, frame, "$" + name + " = " + value);
    }
}
