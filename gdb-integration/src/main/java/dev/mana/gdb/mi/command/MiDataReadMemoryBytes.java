package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.Memory.Block;
import dev.mana.gdb.mi.MiResponse;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.MiValue;
import java.util.HexFormat;

/**
 * {@code -data-read-memory-bytes 0xADDR LENGTH}. gdb answers with the readable pieces of the range only;
 * the result places them in a block of the whole length and marks the bytes between them unreadable.
 */
public final class MiDataReadMemoryBytes extends MiCommand<Block> {
    private final long address;
    private final int length;

    public MiDataReadMemoryBytes(long address, int length) {
        this.address = address;
        this.length = length;
    }

    @Override
    public String line() {
        return new MiLine("-data-read-memory-bytes").add("0x" + Long.toHexString(address)).add(length).toString();
    }

    @Override
    public Block result(MiResponse response) {
        return parse(response.results(), address, length);
    }

    /** Places each {@code memory=[{begin,offset,end,contents}]} piece in a block of {@code length} bytes. */
    public static Block parse(MiTuple results, long address, int length) {
        byte[] bytes = new byte[length];
        boolean[] readable = new boolean[length];
        for (MiValue v : results.getList("memory")) {
            MiTuple piece = v.asTuple();
            long begin = MiAnswers.hex(piece.getString("begin"));
            byte[] data = HexFormat.of().parseHex(piece.getString("contents", ""));
            long at = begin - address;
            for (int i = 0; i < data.length; i++) {
                long j = at + i;
                if (j >= 0 && j < length) {
                    bytes[(int) j] = data[i];
                    readable[(int) j] = true;
                }
            }
        }
        return new Block(address, bytes, readable);
    }
}
