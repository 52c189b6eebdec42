package dev.mana.inspector;

import java.util.List;

/**
 * What {@link Images#salvage} could open of a possibly damaged image.
 *
 * @param image     the image, readable where it is intact (accessors of a damaged part throw as usual), or
 *                  null when not even its header can be read
 * @param problems  the damage found while opening (for our format: header checksum, file size, section
 *                  table); with a null image, the one reason it could not be opened. Empty: opened cleanly.
 */
public record Salvaged(CheckpointImage image, List<Problem> problems) {
    public Salvaged {
        problems = List.copyOf(problems);
    }

    public boolean damaged() {
        return !problems.isEmpty();
    }
}
