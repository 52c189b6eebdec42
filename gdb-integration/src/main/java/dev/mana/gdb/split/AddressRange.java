package dev.mana.gdb.split;

/** A half-open address range [start, end). */
public record AddressRange(long start, long end) {
    public boolean contains(long a) {
        return Long.compareUnsigned(a, start) >= 0 && Long.compareUnsigned(a, end) < 0;
    }

    @Override
    public String toString() {
        return String.format("0x%x-0x%x", start, end);
    }
}
