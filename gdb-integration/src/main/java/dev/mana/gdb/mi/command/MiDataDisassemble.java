package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.Disassembly.Instruction;
import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.MiValue;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code -data-disassemble ... -- 2}: instructions with their raw bytes, of the function that contains an
 * address ({@code -a}) or of a range ({@code -s -e}).
 */
public final class MiDataDisassemble extends MiCommand<List<Instruction>> {
    private final String range;

    private MiDataDisassemble(String range) {
        this.range = range;
    }

    /** The function that contains {@code address}; gdb answers an error where none does. */
    public static MiDataDisassemble function(long address) {
        return new MiDataDisassemble("-a 0x" + Long.toHexString(address));
    }

    /** The range [{@code start}, {@code end}). */
    public static MiDataDisassemble range(long start, long end) {
        return new MiDataDisassemble("-s 0x" + Long.toHexString(start) + " -e 0x" + Long.toHexString(end));
    }

    @Override
    public String line() {
        return new MiLine("-data-disassemble").add(range).add("--").add(2).toString();
    }

    @Override
    public List<Instruction> result(MiResponse response) {
        return parse(response.results());
    }

    /** Reads {@code asm_insns=[{address,func-name,offset,opcodes,inst}, ...]}. */
    public static List<Instruction> parse(MiTuple results) {
        List<Instruction> out = new ArrayList<>();
        for (MiValue v : results.getList("asm_insns")) {
            MiTuple t = v.asTuple();
            String off = t.getString("offset", null);
            out.add(new Instruction(MiAnswers.hex(t.getString("address")), t.getString("func-name", null),
                    off == null ? -1 : Long.parseLong(off), t.getString("opcodes", ""), t.getString("inst", "")));
        }
        return out;
    }
}
