package dev.mana.eclipse.core;

/**
 * The outcome of a checkpoint request.
 *
 * @param ok whether every image was written and committed
 * @param generation its generation
 * @param elapsedNanos from request to commit
 * @param totalBytes sum of the images' sizes
 * @param ranks how many ranks wrote an image
 * @param directory the checkpoint directory
 * @param message the reason on failure
 */
public record CheckpointResult(boolean ok, long generation, long elapsedNanos, long totalBytes, int ranks,
        String directory, String message) {

    /** One line for people. */
    public String summary() {
        if (!ok) {
            return "Checkpoint failed: " + message;
        }
        return "Checkpoint " + generation + " written: " + ranks + (ranks == 1 ? " rank, " : " ranks, ")
            + ManaFormat.bytes(totalBytes) + " in " + ManaFormat.seconds(elapsedNanos) + " to " + directory;
    }
}
