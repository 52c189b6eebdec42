package dev.mana.gdb.mi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Machine instructions around an address through {@code -data-disassemble} (mode 2: with the raw opcode
 * bytes). The whole function that contains the address where gdb knows one; where it knows none (a
 * stripped library, code without symbols) the instructions from the address on, since x86 cannot be
 * decoded backwards from an arbitrary address.
 */
public final class Disassembly {
    /** One instruction: its address, the function and offset gdb names (null and -1 without symbols), bytes, text. */
    public record Instruction(long address, String function, long offset, String opcodes, String text) {
        /** {@code f+12}, or the empty string without a function. */
        public String location() {
            return function == null ? "" : offset < 0 ? function : function + "+" + offset;
        }
    }

    /**
     * What is shown at once: a function longer than this many instructions is cut to a window around the
     * address (a lower-half MPI routine can have thousands).
     */
    public static final int MAX_INSTRUCTIONS = 400;
    /** Bytes decoded from the address on when no function contains it (at most 15 bytes an instruction). */
    static final int BYTES_WITHOUT_FUNCTION = 160;

    private Disassembly() {
    }

    /** The command for the function that contains {@code address}. */
    public static String functionCommand(long address) {
        return "-data-disassemble -a 0x" + Long.toHexString(address) + " -- 2";
    }

    /** The command for the range [{@code start}, {@code end}). */
    public static String rangeCommand(long start, long end) {
        return "-data-disassemble -s 0x" + Long.toHexString(start) + " -e 0x" + Long.toHexString(end) + " -- 2";
    }

    /**
     * The instructions around {@code address}: its function (cut to {@link #MAX_INSTRUCTIONS} around it), or
     * the instructions from it on where gdb knows no function there. An address gdb cannot read throws with
     * gdb's message.
     */
    public static List<Instruction> around(GdbMi gdb, long address) throws MiException {
        MiResponse r = gdb.executeAllowError(functionCommand(address), Duration.ofSeconds(30));
        if (r.isError()) {
            // "No function contains specified address": decode forwards from the address
            r = gdb.execute(rangeCommand(address, address + BYTES_WITHOUT_FUNCTION));
        }
        return window(parse(r.results()), address, MAX_INSTRUCTIONS);
    }

    /** Reads {@code asm_insns=[{address,func-name,offset,opcodes,inst}, ...]}. */
    static List<Instruction> parse(MiTuple results) {
        List<Instruction> out = new ArrayList<>();
        for (MiValue v : results.getList("asm_insns")) {
            MiTuple t = v.asTuple();
            String off = t.getString("offset", null);
            out.add(new Instruction(parseHex(t.getString("address")), t.getString("func-name", null),
                    off == null ? -1 : Long.parseLong(off), t.getString("opcodes", ""), t.getString("inst", "")));
        }
        return out;
    }

    /** At most {@code max} instructions, the one at (or last before) {@code address} in the middle. */
    static List<Instruction> window(List<Instruction> all, long address, int max) {
        if (all.size() <= max) {
            return all;
        }
        int at = indexOf(all, address);
        int from = Math.max(0, Math.min(at - max / 2, all.size() - max));
        return List.copyOf(all.subList(from, from + max));
    }

    /** The index of the instruction at {@code address}, else of the last one before it (0 if none). */
    public static int indexOf(List<Instruction> instructions, long address) {
        int best = 0;
        for (int i = 0; i < instructions.size(); i++) {
            long a = instructions.get(i).address();
            if (a == address) {
                return i;
            }
            if (Long.compareUnsigned(a, address) < 0) {
                best = i;
            }
        }
        return best;
    }

    private static long parseHex(String s) {
        return Long.parseUnsignedLong(s.startsWith("0x") ? s.substring(2) : s, 16);
    }
}
