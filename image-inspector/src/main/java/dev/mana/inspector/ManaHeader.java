package dev.mana.inspector;

/** The 256-byte header of an image in our format (docs/image-format.md), as stored. */
public record ManaHeader(
        int version,
        int headerSize,
        long fileSize,
        long sectionTableOffset,
        int sectionCount,
        int sectionEntrySize,
        int pageSize,
        int flags,
        long rank,
        long nranks,
        long generation,
        int pid,
        long timeUnixNs,
        long mappedBytes,
        long storedBytes,
        long headerCrc,
        String host,
        String mpi,
        String program) {

    /** Header flag: the image has an MPI section. */
    public static final int F_MPI = ImageLayout.IMG_F_MPI;

    public boolean hasMpi() {
        return (flags & F_MPI) != 0;
    }
}
