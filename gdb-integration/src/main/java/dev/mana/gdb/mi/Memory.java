package dev.mana.gdb.mi;

import java.util.HexFormat;

/**
 * Target memory through {@code -data-read-memory-bytes} and {@code -data-write-memory-bytes}. gdb answers a
 * read with the readable pieces of the range only; the bytes in between are marked unreadable here, so a
 * memory view shows them as such instead of failing the whole block.
 */
public final class Memory {
    /** {@code length} bytes from {@code address}; {@code readable[i]} says whether {@code bytes[i]} was read. */
    public record Block(long address, byte[] bytes, boolean[] readable) {
        public boolean allReadable() {
            for (boolean r : readable) {
                if (!r) {
                    return false;
                }
            }
            return true;
        }
    }

    private Memory() {
    }

    public static String readCommand(long address, int length) {
        return "-data-read-memory-bytes 0x" + Long.toHexString(address) + " " + length;
    }

    /** Reads the range; a range nothing of which can be read comes back all unreadable, not as an error. */
    public static Block read(GdbMi gdb, long address, int length) throws MiException {
        if (length < 0) {
            throw new IllegalArgumentException("length " + length);
        }
        MiResponse r = gdb.executeAllowError(readCommand(address, length), java.time.Duration.ofSeconds(30));
        if (r.isError()) {
            return new Block(address, new byte[length], new boolean[length]);
        }
        return parse(r.results(), address, length);
    }

    /** Places each {@code memory=[{begin,offset,end,contents}]} piece in a block of {@code length} bytes. */
    static Block parse(MiTuple results, long address, int length) {
        byte[] bytes = new byte[length];
        boolean[] readable = new boolean[length];
        for (MiValue v : results.getList("memory")) {
            MiTuple piece = v.asTuple();
            long begin = parseHex(piece.getString("begin"));
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

    public static String writeCommand(long address, byte[] bytes) {
        return "-data-write-memory-bytes 0x" + Long.toHexString(address) + " " + HexFormat.of().formatHex(bytes);
    }

    /** Writes {@code bytes} at {@code address}; an unwritable address throws with gdb's message. */
    public static void write(GdbMi gdb, long address, byte[] bytes) throws MiException {
        gdb.execute(writeCommand(address, bytes));
    }

    private static long parseHex(String s) {
        return Long.parseUnsignedLong(s.startsWith("0x") ? s.substring(2) : s, 16);
    }
}
