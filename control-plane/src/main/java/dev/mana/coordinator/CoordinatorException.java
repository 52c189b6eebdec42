package dev.mana.coordinator;

import dev.mana.coordinator.protocol.ErrorCode;
import java.io.IOException;

/**
 * A failed coordinator operation: unreachable, connection lost, or refused with an ERROR
 * ({@link #code()} is then its code, else null). The message is one line fit for users.
 */
public class CoordinatorException extends IOException {
    private static final long serialVersionUID = 1L;
    private final transient ErrorCode code;

    public CoordinatorException(String message) { this(message, null, null); }

    public CoordinatorException(String message, ErrorCode code, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** The ERROR code the coordinator answered with, or null. */
    public ErrorCode code() { return code; }
}
