package dev.mana.inspector;

/**
 * One entry of the section table of our format.
 *
 * @param type    1 PROCESS, 2 MEMORY, 3 THREADS, 4 FILES, 5 SIGNALS, 6 MPI, 7 FILEDATA (others: unknown, skipped)
 * @param name    "PROCESS" ... or "type N"
 * @param version layout version of the section
 * @param offset  file offset
 * @param length  bytes
 * @param crc     CRC-32C recorded for the section's bytes
 * @param count   records (meaning per type)
 */
public record SectionInfo(int type, String name, int version, long offset, long length, long crc, long count) {
    public static final int PROCESS = 1;
    public static final int MEMORY = 2;
    public static final int THREADS = 3;
    public static final int FILES = 4;
    public static final int SIGNALS = 5;
    public static final int MPI = 6;
    /** Saved contents of files written in place (optional; docs/image-format.md). */
    public static final int FILEDATA = 7;

    public static String typeName(int type) {
        switch (type) {
            case PROCESS: return "PROCESS";
            case MEMORY: return "MEMORY";
            case THREADS: return "THREADS";
            case FILES: return "FILES";
            case SIGNALS: return "SIGNALS";
            case MPI: return "MPI";
            case FILEDATA: return "FILEDATA";
            default: return "type " + Integer.toUnsignedString(type);
        }
    }

    public boolean known() {
        return type >= PROCESS && type <= FILEDATA;
    }
}
