package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiValue;
import java.util.ArrayList;
import java.util.List;

/** {@code -data-list-register-names}: the names indexed by gdb's register number; an unnamed number is "". */
public final class MiDataListRegisterNames extends MiCommand<List<String>> {
    @Override
    public String line() {
        return "-data-list-register-names";
    }

    @Override
    public List<String> result(MiResponse response) {
        List<String> out = new ArrayList<>();
        for (MiValue v : response.results().getList("register-names")) {
            out.add(v.asString() == null ? "" : v.asString());
        }
        return out;
    }
}
