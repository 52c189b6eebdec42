package dev.mana.gdb.mi;

import dev.mana.gdb.mi.command.CliMaintPrintRegisterGroups;
import dev.mana.gdb.mi.command.MiDataListRegisterNames;
import dev.mana.gdb.mi.command.MiDataListRegisterValues;
import dev.mana.gdb.mi.command.MiFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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

    private Registers() {
    }

    /** Register names indexed by gdb's register number; an unnamed number is "". */
    public static List<String> names(GdbMi gdb) throws MiException {
        return gdb.run(new MiDataListRegisterNames());
    }

    /** The command reading the values of {@code numbers} (all when empty) in hex, in a thread's frame. */
    public static String valuesCommand(String thread, int frame, List<Integer> numbers) {
        return new MiDataListRegisterValues(new MiFrame(thread, frame), numbers).line();
    }

    /** Values by register number: hex for scalars, gdb's brace notation for vector registers. */
    public static Map<Integer, String> values(GdbMi gdb, String thread, int frame, List<Integer> numbers)
            throws MiException {
        return gdb.run(new MiDataListRegisterValues(new MiFrame(thread, frame), numbers));
    }

    static Map<Integer, String> parseValues(MiTuple results) {
        return MiDataListRegisterValues.parse(results);
    }

    /**
     * gdb's register groups of the current target, each with its registers; {@code all}, {@code save} and
     * {@code restore} left out. Where gdb cannot print them, one group "general" holds every named register.
     */
    public static List<Group> groups(GdbMi gdb) throws MiException {
        CliMaintPrintRegisterGroups print = new CliMaintPrintRegisterGroups();
        MiResponse r = gdb.executeAllowError(print, java.time.Duration.ofSeconds(30));
        List<Group> g = r.isError() ? List.of() : print.result(r);
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
        return CliMaintPrintRegisterGroups.parse(table);
    }

    /** Writes {@code value} (an expression) into register {@code name} in a thread's frame; returns the new value. */
    public static String write(GdbMi gdb, String thread, int frame, String name, String value) throws MiException {
        return Expressions.evaluate(gdb, thread, frame, "$" + name + " = " + value);
    }
}
