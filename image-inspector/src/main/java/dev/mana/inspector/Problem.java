package dev.mana.inspector;

/** One finding of {@link CheckpointImage#verify}: its class and a one-line description. */
public record Problem(ErrorKind kind, String message) {
    @Override
    public String toString() {
        return kind.label() + ": " + message;
    }
}
