package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.Registers.Group;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code maint print register-groups}: gdb's register groups (general, float, sse, ...), which MI has no
 * command for; the result is read from the table gdb prints.
 */
public final class CliMaintPrintRegisterGroups extends CliCommand<List<Group>> {
    /** gdb's groups that only say what is saved or list everything: not shown as groups of their own. */
    private static final Set<String> NOT_SHOWN = Set.of("all", "save", "restore");

    @Override
    public String text() {
        return "maint print register-groups";
    }

    @Override
    public List<Group> result(MiResponse response) {
        return parse(response.console());
    }

    /**
     * Reads the table: a header line ({@code Name Nr Rel Offset Size Type Groups}), then one line per
     * register whose last column, when present, is its groups separated by commas. Groups come in the order
     * of their first register; unnamed registers ({@code ''}) and {@code all}, {@code save}, {@code restore}
     * are left out.
     */
    public static List<Group> parse(String table) {
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
}
