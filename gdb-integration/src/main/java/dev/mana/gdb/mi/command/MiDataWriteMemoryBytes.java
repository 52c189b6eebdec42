package dev.mana.gdb.mi.command;

import java.util.HexFormat;

/** {@code -data-write-memory-bytes 0xADDR HEXBYTES}. */
public final class MiDataWriteMemoryBytes extends MiPlainCommand {
    private final long address;
    private final byte[] bytes;

    public MiDataWriteMemoryBytes(long address, byte[] bytes) {
        this.address = address;
        this.bytes = bytes.clone();
    }

    @Override
    public String line() {
        return new MiLine("-data-write-memory-bytes").add("0x" + Long.toHexString(address))
                .add(HexFormat.of().formatHex(bytes)).toString();
    }
}
