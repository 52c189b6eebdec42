package dev.mana.inspector;

/**
 * One entry of the section table of our format.
 *
 * @param type    1 PROCESS, 2 MEMORY, 3 THREADS, 4 FILES, 5 SIGNALS, 6 MPI, 7 FILEDATA, 8 MPI_OBJECTS, 9 PARENT, 10 ZSTD
 *                (others: unknown, skipped)
 * @param name    "PROCESS" ... or "type N"
 * @param version layout version of the section
 * @param offset  file offset
 * @param length  bytes
 * @param crc     CRC-32C recorded for the section's bytes
 * @param count   records (meaning per type)
 */
public record SectionInfo(int type, String name, int version, long offset, long length, long crc, long count) {
    public static final int PROCESS = ImageLayout.SEC_PROCESS;
    public static final int MEMORY = ImageLayout.SEC_MEMORY;
    public static final int THREADS = ImageLayout.SEC_THREADS;
    public static final int FILES = ImageLayout.SEC_FILES;
    public static final int SIGNALS = ImageLayout.SEC_SIGNALS;
    public static final int MPI = ImageLayout.SEC_MPI;
    /** Saved contents of files written in place (optional; docs/image-format.md). */
    public static final int FILEDATA = ImageLayout.SEC_FILEDATA;
    /** Records of MPI objects for readers (optional; the checks treat it as any unknown section: bounds, CRC). */
    public static final int MPI_OBJECTS = ImageLayout.SEC_MPI_OBJECTS;
    /** The image an incremental image completes (docs/image-format.md, "Incremental images"). */
    public static final int PARENT = ImageLayout.SEC_PARENT;
    /** The compressed lengths of zstd-compressed regions. */
    public static final int ZSTD = ImageLayout.SEC_ZSTD;

    public static String typeName(int type) {
        switch (type) {
            case PROCESS: return "PROCESS";
            case MEMORY: return "MEMORY";
            case THREADS: return "THREADS";
            case FILES: return "FILES";
            case SIGNALS: return "SIGNALS";
            case MPI: return "MPI";
            case FILEDATA: return "FILEDATA";
            case MPI_OBJECTS: return "MPI_OBJECTS";
            case PARENT: return "PARENT";
            case ZSTD: return "ZSTD";
            default: return "type " + Integer.toUnsignedString(type);
        }
    }

    public boolean known() {
        return type >= PROCESS && type <= FILEDATA || type == PARENT || type == ZSTD;
    }
}
