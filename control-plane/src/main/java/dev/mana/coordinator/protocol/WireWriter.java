package dev.mana.coordinator.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Little-endian writer of MNCP field types into a growing buffer. */
final class WireWriter {
    private ByteBuffer buf;

    WireWriter(int initial) {
        buf = ByteBuffer.allocate(Math.max(initial, 32)).order(ByteOrder.LITTLE_ENDIAN);
    }

    private void ensure(int n) {
        if (buf.remaining() < n) {
            int cap = Math.max(buf.capacity() * 2, buf.position() + n);
            ByteBuffer b = ByteBuffer.allocate(cap).order(ByteOrder.LITTLE_ENDIAN);
            buf.flip();
            b.put(buf);
            buf = b;
        }
    }

    WireWriter u8(int v) { ensure(1); buf.put((byte) v); return this; }
    WireWriter bool(boolean v) { return u8(v ? 1 : 0); }
    WireWriter u16(int v) { ensure(2); buf.putShort((short) v); return this; }
    WireWriter u32(int v) { ensure(4); buf.putInt(v); return this; }
    WireWriter i32(int v) { return u32(v); }
    WireWriter i64(long v) { ensure(8); buf.putLong(v); return this; }
    WireWriter u64(long v) { return i64(v); }

    WireWriter str(String s) throws ProtocolException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > Protocol.MAX_STRING) {
            throw new ProtocolException(ErrorCode.TOO_LARGE, "string of " + b.length + " bytes (limit "
                    + Protocol.MAX_STRING + ")");
        }
        u16(b.length);
        ensure(b.length);
        buf.put(b);
        return this;
    }

    WireWriter blob(byte[] b) throws ProtocolException {
        if (b.length > Protocol.MAX_BLOB) {
            throw new ProtocolException(ErrorCode.TOO_LARGE, "blob of " + b.length + " bytes (limit "
                    + Protocol.MAX_BLOB + ")");
        }
        u32(b.length);
        ensure(b.length);
        buf.put(b);
        return this;
    }

    /** A fixed-size byte array ({@code u8[n]}): exactly {@code n} bytes, no length prefix. */
    WireWriter fixed(byte[] v, int n) {
        if (v.length != n) throw new IllegalArgumentException("expected " + n + " bytes, got " + v.length);
        ensure(n);
        buf.put(v);
        return this;
    }

    int position() { return buf.position(); }

    void putU32At(int pos, int v) { buf.putInt(pos, v); }

    /** The written bytes, ready to read. */
    ByteBuffer finish() {
        buf.flip();
        return buf;
    }
}
