package dev.mana.gdb.mi;

import dev.mana.gdb.mi.command.MiDataDisassemble;

import java.time.Duration;
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
        return MiDataDisassemble.function(address).line();
    }

    /** The command for the range [{@code start}, {@code end}). */
    public static String rangeCommand(long start, long end) {
        return MiDataDisassemble.range(start, end).line();
    }

    /**
     * The instructions around {@code address}: its function (cut to {@link #MAX_INSTRUCTIONS} around it), or
     * the instructions from it on where gdb knows no function there. An address gdb cannot read throws with
     * gdb's message.
     */
    public static List<Instruction> around(GdbMi gdb, long address) throws MiException {
        MiDataDisassemble function = MiDataDisassemble.function(address);
        MiResponse r = gdb.executeAllowError(function, Duration.ofSeconds(30));
        List<Instruction> all = r.isError()
                // "No function contains specified address": decode forwards from the address
                ? gdb.run(MiDataDisassemble.range(address, address + BYTES_WITHOUT_FUNCTION))
                : function.result(r);
        return window(all, address, MAX_INSTRUCTIONS);
    }

    /** Reads {@code asm_insns=[{address,func-name,offset,opcodes,inst}, ...]}. */
    static List<Instruction> parse(MiTuple results) {
        return MiDataDisassemble.parse(results);
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
}
