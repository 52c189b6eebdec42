package dev.mana.mpidiag;

/** A coverage manifest that is missing, unreadable or not a version-1 manifest. The message is one line. */
public class ManifestException extends Exception {
    private static final long serialVersionUID = 1L;

    public ManifestException(String message) {
        super(message);
    }

    public ManifestException(String message, Throwable cause) {
        super(message, cause);
    }
}
