package dev.mana.inspector;

/**
 * One region header of a DMTCP v4.0 image, as stored (including CHILD headers).
 *
 * @param headerOffset offset of the 4096-byte header in the (uncompressed) stream
 * @param dataOffset   offset of the data that follows it (uncompressed stream), or -1 when none
 * @param dataLength   bytes of data that follow it
 */
public record DmtcpArea(int index, long addr, long endAddr, long size, long offset, int prot, int flags,
                        long devMajor, long devMinor, long inode, long mmapFileSize, long properties,
                        String name, long headerOffset, long dataOffset, long dataLength) {
    public static final long ZERO_PAGE = 1;
    public static final long PARENT_HEADER = 2;
    public static final long CHILD_HEADER = 4;
    public static final int MAP_SHARED = 0x1;
    public static final int MAP_PRIVATE = 0x2;
    public static final int MAP_FIXED = 0x10;
    public static final int MAP_ANONYMOUS = 0x20;

    public boolean zeroPage() { return (properties & ZERO_PAGE) != 0; }
    public boolean parent() { return (properties & PARENT_HEADER) != 0; }
    public boolean child() { return (properties & CHILD_HEADER) != 0; }
    public boolean anonymous() { return (flags & MAP_ANONYMOUS) != 0; }
    public boolean shared() { return (flags & MAP_SHARED) != 0; }
}
