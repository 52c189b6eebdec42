package dev.mana.inspector;

import java.io.IOException;

/**
 * Any failure to read or interpret an image. {@link #kind()} says which class of failure it is; the
 * message is one line meant for the user ("truncated: file has 8192 bytes, header declares 16384").
 */
public class ImageException extends IOException {
    private static final long serialVersionUID = 1L;
    private final ErrorKind kind;

    public ImageException(ErrorKind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public ImageException(ErrorKind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public ErrorKind kind() {
        return kind;
    }
}
