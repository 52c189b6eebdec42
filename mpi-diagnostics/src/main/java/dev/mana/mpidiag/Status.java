package dev.mana.mpidiag;

/** What the runtime does with one MPI function (the manifest's {@code status}). */
public enum Status {
    /** Checkpoint-safe: wrapped, or safe to pass through. */
    SUPPORTED,
    /** Works within the limit the manifest's reason gives. */
    PARTIAL,
    /** Calling it under the runtime ends the job. */
    UNSUPPORTED;

    /** The manifest's spelling ({@code supported}, {@code partial}, {@code unsupported}). */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
