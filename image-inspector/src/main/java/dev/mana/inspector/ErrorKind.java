package dev.mana.inspector;

/**
 * Classes of failure, each with the distinct exit status {@code mana_inspect} uses for it
 * (docs/inspector.md, "Exit status").
 */
public enum ErrorKind {
    /** The file or directory cannot be opened or read (missing, permission, I/O error). */
    IO(3, "I/O error"),
    /** The file is not a checkpoint image: unknown magic / signature. */
    NOT_AN_IMAGE(4, "not a checkpoint image"),
    /** A known format, but a version or layout this reader does not handle. */
    UNSUPPORTED(5, "unsupported"),
    /** The file ends before the data it declares (a writer died, or a copy was cut short). */
    TRUNCATED(6, "truncated"),
    /** Structure is wrong: absurd lengths or counts, offsets outside the file, inconsistent records. */
    MALFORMED(7, "malformed"),
    /** A checksum does not match the bytes: the image was damaged after it was written. */
    CORRUPT(8, "corrupt"),
    /**
     * A checkpoint directory is not restartable: ranks missing, no common generation, *.tmp left; or an incremental
     * image's parent is gone or was replaced, so its chain cannot be read.
     */
    INCOMPLETE(9, "incomplete checkpoint"),
    /** The requested address, region or section is not in the image (or not stored there). */
    NOT_FOUND(10, "not found"),
    /** The view or command does not apply to this kind of image (e.g. threads of a DMTCP image). */
    NOT_AVAILABLE(11, "not available");

    private final int exitStatus;
    private final String label;

    ErrorKind(int exitStatus, String label) {
        this.exitStatus = exitStatus;
        this.label = label;
    }

    /** Exit status of {@code mana_inspect} for this class of failure. */
    public int exitStatus() {
        return exitStatus;
    }

    /** Short human label, e.g. "truncated". */
    public String label() {
        return label;
    }
}
