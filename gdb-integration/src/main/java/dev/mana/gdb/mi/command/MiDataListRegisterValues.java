package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.MiValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code -data-list-register-values --thread T --frame L --skip-unavailable x [N...]}: values in hex (gdb's
 * brace notation for vector registers) by register number; all registers when no numbers are given.
 */
public final class MiDataListRegisterValues extends MiCommand<Map<Integer, String>> {
    private final MiFrame frame;
    private final List<Integer> numbers;

    public MiDataListRegisterValues(MiFrame frame, List<Integer> numbers) {
        this.frame = frame;
        this.numbers = List.copyOf(numbers);
    }

    @Override
    public String line() {
        MiLine l = new MiLine("-data-list-register-values").frame(frame).add("--skip-unavailable").add("x");
        numbers.forEach(l::add);
        return l.toString();
    }

    @Override
    public Map<Integer, String> result(MiResponse response) {
        return parse(response.results());
    }

    public static Map<Integer, String> parse(MiTuple results) {
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
}
