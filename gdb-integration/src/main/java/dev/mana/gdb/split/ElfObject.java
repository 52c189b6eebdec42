package dev.mana.gdb.split;

import dev.mana.inspector.Half;
import java.nio.file.Path;

/**
 * One ELF object loaded in a split process.
 *
 * @param path           the file as the mapping names it
 * @param half           which half it belongs to
 * @param bias           load bias: runtime address minus link-time address (what {@code add-symbol-file -o} takes)
 * @param start          lowest mapped address of the object
 * @param end            one past its highest mapped address
 * @param buildIdOnDisk  the file's build-id now (null: it has none)
 * @param buildIdMapped  the build-id in the process's (or the image's) memory (null: not readable there)
 * @param check          the verdict of comparing the two
 * @param source         where the mapping was found: "image" (checkpoint regions) or "maps" (/proc/PID/maps)
 */
public record ElfObject(Path path, Half half, long bias, long start, long end, String buildIdOnDisk,
                        String buildIdMapped, BuildIdCheck check, String source) {

    /** Whether the file on disk is the one that was mapped. */
    public enum BuildIdCheck {
        /** Both build-ids read and equal. */
        MATCH,
        /** They differ: the file was rebuilt or replaced; its symbols would lie. */
        MISMATCH,
        /** The file has no build-id: nothing to compare. */
        NO_BUILD_ID,
        /** The mapped copy could not be read (not saved, not mapped at that point of the restart). */
        NOT_READABLE
    }

    public boolean contains(long address) {
        return Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0;
    }

    /** Safe to give to gdb: the file is the mapped one, or nothing says otherwise. */
    public boolean loadable() {
        return check != BuildIdCheck.MISMATCH;
    }

    @Override
    public String toString() {
        return String.format("%-5s 0x%012x-0x%012x bias 0x%x %s build-id %s %s", half.label(), start, end, bias, path,
                buildIdOnDisk == null ? "-" : buildIdOnDisk, check.name().toLowerCase().replace('_', ' '));
    }
}
