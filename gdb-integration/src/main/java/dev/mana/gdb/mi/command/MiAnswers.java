package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.MiValue;
import java.util.ArrayList;
import java.util.List;

/** Reading pieces the answers of several commands share. */
final class MiAnswers {
    private MiAnswers() {
    }

    /** An address as gdb writes it: hex, with or without {@code 0x}. */
    static long hex(String s) {
        return Long.parseUnsignedLong(s.startsWith("0x") ? s.substring(2) : s, 16);
    }

    /** The tuples of list {@code name} of the answer ({@code stack=[frame={...}]}, {@code threads=[{...}]}). */
    static List<MiTuple> tuples(MiResponse response, String name) {
        List<MiTuple> out = new ArrayList<>();
        for (MiValue v : response.results().getList(name)) {
            out.add(v.asTuple());
        }
        return out;
    }
}
