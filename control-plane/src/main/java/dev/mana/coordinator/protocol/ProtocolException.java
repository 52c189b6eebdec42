package dev.mana.coordinator.protocol;

import java.io.IOException;

/** Malformed or disallowed input; {@link #code()} is the ERROR code to answer with. */
public class ProtocolException extends IOException {
    private static final long serialVersionUID = 1L;
    private final ErrorCode code;

    public ProtocolException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public ErrorCode code() { return code; }
}
