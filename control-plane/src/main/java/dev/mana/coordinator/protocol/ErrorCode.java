package dev.mana.coordinator.protocol;

/** Codes of the ERROR message (§4.7). */
public enum ErrorCode {
    BAD_FRAME(1), TOO_LARGE(2), AUTH(3), PROTOCOL(4), MISMATCH(5), BUSY(6), NOT_READY(7),
    ABORTED(8), UNKNOWN_JOB(9), DUPLICATE_RANK(10),
    /** Not on the wire: a code this implementation does not know. */
    UNKNOWN(0);

    public final int code;

    ErrorCode(int code) { this.code = code; }

    public static ErrorCode of(int code) {
        for (ErrorCode c : values()) if (c.code == code) return c;
        return UNKNOWN;
    }
}
