package dev.mana.inspector;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One memory region of an image, in either format. Immutable. Sizes are in bytes.
 *
 * <p>{@code mapped} is {@code end - start}; {@code stored} is what the image holds for it; {@code zero}
 * is what restore recreates as zero pages ({@code mapped - stored} for a saved region, 0 for a region
 * the image only lists: lower half, vdso/vvar, guard reservations).
 */
public final class MemoryRegion {
    /** Page runs of a stored region: {@code [firstPage, pageCount]} pairs, in file order. */
    private final long[] runs;
    private final int index;
    private final long start;
    private final long end;
    private final int prot;
    private final boolean shared;
    private final boolean anonymous;
    private final String name;
    private final Half half;
    private final boolean saved;
    private final long storedBytes;
    private final long zeroBytes;
    private final long payloadOffset;
    private final long payloadCrc;
    private final long fileOffset;
    private final long inode;
    private final int devMajor;
    private final int devMinor;
    private final int formatFlags;
    private final List<String> flagNames;

    private MemoryRegion(Builder b) {
        this.index = b.index;
        this.start = b.start;
        this.end = b.end;
        this.prot = b.prot;
        this.shared = b.shared;
        this.anonymous = b.anonymous;
        this.name = b.name == null ? "" : b.name;
        this.half = b.half == null ? Half.UPPER : b.half;
        this.saved = b.saved;
        this.storedBytes = b.storedBytes;
        this.zeroBytes = b.zeroBytes;
        this.payloadOffset = b.payloadOffset;
        this.payloadCrc = b.payloadCrc;
        this.fileOffset = b.fileOffset;
        this.inode = b.inode;
        this.devMajor = b.devMajor;
        this.devMinor = b.devMinor;
        this.formatFlags = b.formatFlags;
        this.flagNames = Collections.unmodifiableList(new ArrayList<>(b.flagNames));
        this.runs = b.runs == null ? new long[0] : b.runs;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Position in the image's region list (0-based). */
    public int index() { return index; }
    public long start() { return start; }
    /** One past the last byte. */
    public long end() { return end; }
    /** {@code end - start} (unsigned difference, clamped at 0 for a malformed region). */
    public long mappedBytes() { return Long.compareUnsigned(end, start) > 0 ? end - start : 0; }
    /** PROT_READ 1 | PROT_WRITE 2 | PROT_EXEC 4. */
    public int prot() { return prot; }
    public boolean shared() { return shared; }
    public boolean anonymous() { return anonymous; }
    /** File path, "[heap]", "[stack]", "[vdso]" ... or "" for an anonymous mapping. */
    public String name() { return name; }
    public Half half() { return half; }
    /** Whether the image saves the contents of this region (restore recreates it). */
    public boolean saved() { return saved; }
    public long storedBytes() { return storedBytes; }
    public long zeroBytes() { return zeroBytes; }
    /** File offset of the region's stored bytes (uncompressed stream offset for DMTCP); 0 if none. */
    public long payloadOffset() { return payloadOffset; }
    /** CRC-32C of the stored bytes as recorded in the image, or -1 when the format has none. */
    public long payloadCrc() { return payloadCrc; }
    /** Offset in the backing file. */
    public long fileOffset() { return fileOffset; }
    public long inode() { return inode; }
    public int devMajor() { return devMajor; }
    public int devMinor() { return devMinor; }
    /** The raw flags word of the format (our MANA_REG_* flags, or DMTCP's mmap flags). */
    public int formatFlags() { return formatFlags; }
    /** Names of the set flags, e.g. [anon, stack]. */
    public List<String> flagNames() { return flagNames; }

    /** "rwxp" / "r--s" as in /proc/PID/maps. */
    public String permissions() {
        return new String(new char[] {
            (prot & 1) != 0 ? 'r' : '-',
            (prot & 2) != 0 ? 'w' : '-',
            (prot & 4) != 0 ? 'x' : '-',
            shared ? 's' : 'p'});
    }

    /**
     * Why the image does not carry this region's contents ("lower half: not saved", "guard: restored
     * empty", ...); "" for a saved region. The words of {@code mana_inspect map}.
     */
    public String whyNotSaved() {
        if (saved) {
            return "";
        }
        if (half == Half.LOWER) {
            return "lower half: not saved";
        }
        if (half == Half.KERNEL) {
            return "kernel: not saved";
        }
        if (flagNames.contains("guard")) {
            return "guard: restored empty";
        }
        if (shared && flagNames.contains("file")) {
            return "shared file: contents in the file";
        }
        return "not saved";
    }

    public boolean contains(long address) {
        return Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0;
    }

    /** Number of stored page runs (our format; DMTCP regions have at most one). */
    public int runCount() { return runs.length / 2; }
    public long runFirstPage(int i) { return runs[2 * i]; }
    public long runPageCount(int i) { return runs[2 * i + 1]; }

    @Override
    public String toString() {
        return String.format("0x%x-0x%x %s %s", start, end, permissions(), name.isEmpty() ? "[anon]" : name);
    }

    /** For readers (internal): builds a region. */
    public static final class Builder {
        private int index;
        private long start;
        private long end;
        private int prot;
        private boolean shared;
        private boolean anonymous;
        private String name;
        private Half half;
        private boolean saved;
        private long storedBytes;
        private long zeroBytes;
        private long payloadOffset;
        private long payloadCrc = -1;
        private long fileOffset;
        private long inode;
        private int devMajor;
        private int devMinor;
        private int formatFlags;
        private final List<String> flagNames = new ArrayList<>();
        private long[] runs;

        public Builder index(int v) { index = v; return this; }
        public Builder range(long s, long e) { start = s; end = e; return this; }
        public Builder prot(int v) { prot = v; return this; }
        public Builder shared(boolean v) { shared = v; return this; }
        public Builder anonymous(boolean v) { anonymous = v; return this; }
        public Builder name(String v) { name = v; return this; }
        public Builder half(Half v) { half = v; return this; }
        public Builder saved(boolean v) { saved = v; return this; }
        public Builder storedBytes(long v) { storedBytes = v; return this; }
        public Builder zeroBytes(long v) { zeroBytes = v; return this; }
        public Builder payloadOffset(long v) { payloadOffset = v; return this; }
        public Builder payloadCrc(long v) { payloadCrc = v; return this; }
        public Builder fileOffset(long v) { fileOffset = v; return this; }
        public Builder inode(long v) { inode = v; return this; }
        public Builder dev(int major, int minor) { devMajor = major; devMinor = minor; return this; }
        public Builder formatFlags(int v) { formatFlags = v; return this; }
        public Builder flag(String v) { flagNames.add(v); return this; }
        /** {@code [firstPage, pageCount]} pairs; the array is kept, not copied. */
        public Builder runs(long[] v) { runs = v; return this; }
        public MemoryRegion build() { return new MemoryRegion(this); }
    }
}
