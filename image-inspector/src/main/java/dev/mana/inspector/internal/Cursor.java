package dev.mana.inspector.internal;

import dev.mana.inspector.ImageException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Bounds-checked little-endian reads over a section's bytes; running past the end is MALFORMED. */
final class Cursor {
    private final ByteBuffer buf;
    private final String what;

    Cursor(byte[] bytes, String what) {
        this.buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        this.what = what;
    }

    int position() {
        return buf.position();
    }

    int remaining() {
        return buf.remaining();
    }

    void need(long n, String field) throws ImageException {
        if (n < 0 || n > buf.remaining()) {
            throw Fail.malformed("%s: %s at offset %d needs %d bytes, section has %d left", what, field,
                    buf.position(), n, buf.remaining());
        }
    }

    int i32(String field) throws ImageException {
        need(4, field);
        return buf.getInt();
    }

    long u32(String field) throws ImageException {
        return i32(field) & 0xffffffffL;
    }

    long i64(String field) throws ImageException {
        need(8, field);
        return buf.getLong();
    }

    /**
     * The fixed part of a record that began at {@code base} is read: the fields read add up to {@code size}
     * (ImageLayout's SIZEOF_*). Not image damage when it fails but a reader out of step with the format.
     */
    void endRecord(int base, int size) {
        if (buf.position() - base != size) {
            throw new IllegalStateException(what + ": the reader read " + (buf.position() - base)
                    + " bytes of a record, the format's record has " + size + " (ImageLayout)");
        }
    }

    void skip(int n, String field) throws ImageException {
        need(n, field);
        buf.position(buf.position() + n);
    }

    /** Pads to the next multiple of 8 (relative to the section start). */
    void align8(String field) throws ImageException {
        int pad = (8 - (buf.position() & 7)) & 7;
        skip(pad, field);
    }

    /** {@code len} bytes as UTF-8, then padding to 8. */
    String bytesString(long len, String field) throws ImageException {
        need(len, field);
        byte[] b = new byte[(int) len];
        buf.get(b);
        align8(field + " padding");
        return new String(b, StandardCharsets.UTF_8);
    }

    /** u32 length + bytes + padding to 8. */
    String string(String field) throws ImageException {
        long len = u32(field + " length");
        return bytesString(len, field);
    }
}
