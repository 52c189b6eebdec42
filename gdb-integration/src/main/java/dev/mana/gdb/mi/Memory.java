package dev.mana.gdb.mi;

import dev.mana.gdb.mi.command.MiDataReadMemoryBytes;
import dev.mana.gdb.mi.command.MiDataWriteMemoryBytes;

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
        return new MiDataReadMemoryBytes(address, length).line();
    }

    /** Reads the range; a range nothing of which can be read comes back all unreadable, not as an error. */
    public static Block read(GdbMi gdb, long address, int length) throws MiException {
        if (length < 0) {
            throw new IllegalArgumentException("length " + length);
        }
        MiDataReadMemoryBytes read = new MiDataReadMemoryBytes(address, length);
        MiResponse r = gdb.executeAllowError(read, java.time.Duration.ofSeconds(30));
        if (r.isError()) {
            return new Block(address, new byte[length], new boolean[length]);
        }
        return read.result(r);
    }

    /** Places each {@code memory=[{begin,offset,end,contents}]} piece in a block of {@code length} bytes. */
    static Block parse(MiTuple results, long address, int length) {
        return MiDataReadMemoryBytes.parse(results, address, length);
    }

    public static String writeCommand(long address, byte[] bytes) {
        return new MiDataWriteMemoryBytes(address, bytes).line();
    }

    /** Writes {@code bytes} at {@code address}; an unwritable address throws with gdb's message. */
    public static void write(GdbMi gdb, long address, byte[] bytes) throws MiException {
        gdb.execute(new MiDataWriteMemoryBytes(address, bytes));
    }
}
