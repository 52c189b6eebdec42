package dev.mana.inspector;

import dev.mana.inspector.internal.Differ;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Differences between two images (either format): regions matched by start address.
 *
 * @param headerChanges  "generation: 1 -> 2" ... for summary fields that differ
 * @param regions        every region of either image, in address order, with what happened to it
 * @param bytesChanged   sum of {@link RegionDiff#bytesChanged()}
 */
public record ImageDiff(List<String> headerChanges, List<RegionDiff> regions, long bytesChanged) {
    public ImageDiff {
        headerChanges = List.copyOf(headerChanges);
        regions = List.copyOf(regions);
    }

    public enum Kind { ADDED, REMOVED, CHANGED, UNCHANGED }

    /**
     * One region's fate. {@code a} is null for ADDED, {@code b} null for REMOVED.
     *
     * @param changes       metadata that differs ("end 0x... -> 0x...", "perms r--p -> rw-p", ...)
     * @param bytesChanged  this region's share of {@link ImageDiff#bytesChanged()}: every address counts once,
     *                      for A's region holding it if A saved it (compared with whatever B holds
     *                      there, another region of B included, or counted when B holds nothing), else for
     *                      B's region (counted: only B holds it). A boundary that moved counts only
     *                      the bytes that changed, not once as removed and again as added.
     * @param bytesCompared bytes compared over the common range (0 when either side is not saved)
     */
    public record RegionDiff(Kind kind, MemoryRegion a, MemoryRegion b, List<String> changes, long bytesChanged,
                             long bytesCompared) {
        public RegionDiff {
            changes = List.copyOf(changes);
        }

        public MemoryRegion either() {
            return a != null ? a : b;
        }
    }

    public long count(Kind kind) {
        return regions.stream().filter(r -> r.kind() == kind).count();
    }

    public boolean identical() {
        return headerChanges.isEmpty() && bytesChanged == 0
                && regions.stream().allMatch(r -> r.kind() == Kind.UNCHANGED);
    }

    /** Compares {@code a} with {@code b}, reading both images' memory once, in chunks. */
    public static ImageDiff compare(CheckpointImage a, CheckpointImage b, LongConsumer progress) throws ImageException {
        return Differ.compare(a, b, progress);
    }
}
