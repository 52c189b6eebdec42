package dev.mana.eclipse.core;

import java.io.File;
import java.util.List;
import java.util.Map;

/**
 * The result of validating a checkpoint directory.
 *
 * @param directory the directory validated
 * @param ranks number of ranks found (ckpt_rank_0 .. ckpt_rank_{n-1})
 * @param generation the generation every rank has (-1 when none is common)
 * @param images the image of each rank at that generation
 * @param totalBytes sum of those images' sizes
 * @param lastModified newest modification time among those images (ms since the epoch)
 * @param problems what is wrong, as sentences; empty when the directory can be restarted from
 */
public record CheckpointValidation(File directory, int ranks, long generation, Map<Integer, File> images,
        long totalBytes, long lastModified, List<String> problems) {

    public boolean isValid() {
        return problems.isEmpty();
    }

    /** One line for people: what is there, or the first problem. */
    public String summary() {
        if (!isValid()) {
            return problems.get(0);
        }
        return ranks + (ranks == 1 ? " rank" : " ranks") + ", generation " + generation + ", "
            + ManaFormat.bytes(totalBytes);
    }
}
