package dev.mana.inspector.internal;

import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;

/** Short constructors for {@link ImageException}s. */
public final class Fail {
    private Fail() {
    }

    public static ImageException truncated(String fmt, Object... args) {
        return new ImageException(ErrorKind.TRUNCATED, "truncated: " + String.format(fmt, args));
    }

    public static ImageException malformed(String fmt, Object... args) {
        return new ImageException(ErrorKind.MALFORMED, "malformed: " + String.format(fmt, args));
    }

    public static ImageException corrupt(String fmt, Object... args) {
        return new ImageException(ErrorKind.CORRUPT, "corrupt: " + String.format(fmt, args));
    }

    public static ImageException unsupported(String fmt, Object... args) {
        return new ImageException(ErrorKind.UNSUPPORTED, "unsupported: " + String.format(fmt, args));
    }

    public static ImageException notFound(String fmt, Object... args) {
        return new ImageException(ErrorKind.NOT_FOUND, String.format(fmt, args));
    }

    public static ImageException io(String what, Throwable cause) {
        String m = cause.getMessage();
        return new ImageException(ErrorKind.IO, what + ": " + (m == null ? cause.getClass().getSimpleName() : m), cause);
    }

    public static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }
}
