package dev.mana.coordinator.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Little-endian reader of MNCP field types; a body that ends inside a field is BAD_FRAME. */
final class WireReader {
    private final ByteBuffer buf;

    WireReader(ByteBuffer body) {
        this.buf = body.slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    private void need(int n, String what) throws ProtocolException {
        if (buf.remaining() < n) {
            throw new ProtocolException(ErrorCode.BAD_FRAME, "body ends inside " + what);
        }
    }

    /** Bytes left in the body: fields appended by a later revision are read only when present. */
    int remaining() { return buf.remaining(); }

    int u8() throws ProtocolException { need(1, "u8"); return buf.get() & 0xff; }
    boolean bool() throws ProtocolException { return u8() != 0; }
    int u16() throws ProtocolException { need(2, "u16"); return buf.getShort() & 0xffff; }
    int u32() throws ProtocolException { need(4, "u32"); return buf.getInt(); }
    int i32() throws ProtocolException { need(4, "i32"); return buf.getInt(); }
    long i64() throws ProtocolException { need(8, "i64"); return buf.getLong(); }
    long u64() throws ProtocolException { return i64(); }

    String str() throws ProtocolException {
        int n = u16();
        if (n > Protocol.MAX_STRING) {
            throw new ProtocolException(ErrorCode.TOO_LARGE, "string of " + n + " bytes (limit "
                    + Protocol.MAX_STRING + ")");
        }
        need(n, "str");
        ByteBuffer s = buf.slice();
        s.limit(n);
        buf.position(buf.position() + n);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(s).toString();
        } catch (CharacterCodingException e) {
            throw new ProtocolException(ErrorCode.BAD_FRAME, "string is not UTF-8");
        }
    }

    byte[] blob() throws ProtocolException {
        long n = u32() & 0xffffffffL;
        if (n > Protocol.MAX_BLOB) {
            throw new ProtocolException(ErrorCode.TOO_LARGE, "blob of " + n + " bytes (limit "
                    + Protocol.MAX_BLOB + ")");
        }
        need((int) n, "blob");
        byte[] b = new byte[(int) n];
        buf.get(b);
        return b;
    }

    /** A count of elements of at least {@code minSize} bytes each, checked against what is left. */
    int count(int limit, int minSize, String what) throws ProtocolException {
        long n = u32() & 0xffffffffL;
        if (n > limit) {
            throw new ProtocolException(ErrorCode.TOO_LARGE, what + " count " + n + " over the limit " + limit);
        }
        if (n * minSize > buf.remaining()) {
            throw new ProtocolException(ErrorCode.BAD_FRAME, "body ends inside " + what);
        }
        return (int) n;
    }

    long[] i64s(int n) throws ProtocolException {
        need(n * 8, "i64[]");
        long[] v = new long[n];
        for (int i = 0; i < n; i++) v[i] = buf.getLong();
        return v;
    }

    /** A fixed-size byte array ({@code u8[n]}). */
    byte[] fixed(int n) throws ProtocolException {
        need(n, "u8[" + n + "]");
        byte[] v = new byte[n];
        buf.get(v);
        return v;
    }
}
