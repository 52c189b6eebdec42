package dev.mana.inspector;

/**
 * One finding of {@link CheckpointImage#verify}: its class and a one-line description.
 *
 * @param region index of the memory region the problem is about (its payload checksum, say), or -1 when it
 *               is about no single region (a section, the header, padding)
 */
public record Problem(ErrorKind kind, String message, int region) {
    public Problem(ErrorKind kind, String message) {
        this(kind, message, -1);
    }

    @Override
    public String toString() {
        return kind.label() + ": " + message;
    }
}
