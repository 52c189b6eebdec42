package dev.mana.coordinator.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Bytes to messages and back: the frame header (§1) here, every message body (§4) through its codec in
 * {@link BodyCodecs}. With those codecs, the only place that knows the wire layout.
 */
public final class MessageCodec {
    private MessageCodec() {}

    /** A parsed frame header. */
    public record Header(MessageType type, int length, int requestId) {}

    /** Encodes a whole frame (header and body), ready to write. */
    public static ByteBuffer encode(int requestId, Message m) throws ProtocolException {
        WireWriter w = new WireWriter(64);
        w.u32(Protocol.MAGIC).u16(Protocol.VERSION).u16(m.type().code).u32(0).u32(requestId);
        BodyCodecs.encode(m, w);
        int length = w.position() - Protocol.HEADER_SIZE;
        if (length > Protocol.MAX_BODY) {
            throw new ProtocolException(ErrorCode.TOO_LARGE, m.type() + " body of " + length + " bytes (limit "
                    + Protocol.MAX_BODY + ")");
        }
        w.putU32At(8, length);
        return w.finish();
    }

    /** Same as {@link #encode}, as a byte array. */
    public static byte[] encodeBytes(int requestId, Message m) throws ProtocolException {
        ByteBuffer b = encode(requestId, m);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** Reads and checks the 16 header bytes at the buffer's position (advancing it). */
    public static Header readHeader(ByteBuffer buf) throws ProtocolException {
        return readHeader(buf, Protocol.MAX_BODY);
    }

    /**
     * As {@link #readHeader(ByteBuffer)}, with a smaller body limit: before authentication the
     * coordinator passes {@link Protocol#PRE_AUTH_MAX_BODY}, so a stranger's announced length is
     * refused before anything is allocated for it.
     */
    public static Header readHeader(ByteBuffer buf, int maxBody) throws ProtocolException {
        ByteBuffer b = buf.slice().order(ByteOrder.LITTLE_ENDIAN);
        if (b.remaining() < Protocol.HEADER_SIZE) throw new ProtocolException(ErrorCode.BAD_FRAME, "short header");
        int magic = b.getInt(0);
        if (magic != Protocol.MAGIC) {
            throw new ProtocolException(ErrorCode.BAD_FRAME, String.format("bad magic 0x%08x", magic));
        }
        int version = b.getShort(4) & 0xffff;
        if (version != Protocol.VERSION) {
            throw new ProtocolException(ErrorCode.BAD_FRAME, "unsupported protocol version " + version + " (this end speaks "
                    + Protocol.VERSION + ")");
        }
        int typeCode = b.getShort(6) & 0xffff;
        long length = b.getInt(8) & 0xffffffffL;
        int requestId = b.getInt(12);
        if (length > maxBody) {
            throw new ProtocolException(ErrorCode.TOO_LARGE, "frame body of " + length + " bytes (limit " + maxBody
                    + (maxBody < Protocol.MAX_BODY ? " before authentication" : "") + ")");
        }
        MessageType type = MessageType.of(typeCode);
        if (type == null) {
            throw new ProtocolException(ErrorCode.PROTOCOL, String.format("unknown message type 0x%02x", typeCode));
        }
        buf.position(buf.position() + Protocol.HEADER_SIZE);
        return new Header(type, (int) length, requestId);
    }

    /** Decodes one body (exactly the bytes between position and limit; trailing bytes are ignored). */
    public static Message decodeBody(MessageType type, ByteBuffer body) throws ProtocolException {
        return BodyCodecs.decode(type, new WireReader(body));
    }
}
