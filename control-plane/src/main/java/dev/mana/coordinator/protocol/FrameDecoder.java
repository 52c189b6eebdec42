package dev.mana.coordinator.protocol;

import java.nio.ByteBuffer;

/**
 * Incremental frame decoder for one connection: feed it whatever bytes arrived, take out complete
 * frames. It keeps only a 16-byte header and, while a frame is split across reads, that frame's body,
 * so thousands of idle connections cost almost nothing.
 */
public final class FrameDecoder {
    private final ByteBuffer header = ByteBuffer.allocate(Protocol.HEADER_SIZE);
    private MessageCodec.Header pending;
    private ByteBuffer body;

    /**
     * Consumes bytes from {@code src} and returns the next complete frame, or null when {@code src}
     * is exhausted before a frame completes (the partial frame is kept for the next call).
     *
     * @throws ProtocolException for a malformed frame; the connection should be answered and closed
     */
    public Frame next(ByteBuffer src) throws ProtocolException {
        if (pending == null && header.position() == 0 && src.remaining() >= Protocol.HEADER_SIZE) {
            // fast path: the whole header (and often the body) is in src
            int start = src.position();
            MessageCodec.Header h = MessageCodec.readHeader(src);
            if (src.remaining() >= h.length()) {
                ByteBuffer b = src.slice();
                b.limit(h.length());
                src.position(src.position() + h.length());
                return new Frame(h.requestId(), MessageCodec.decodeBody(h.type(), b));
            }
            src.position(start);
        }
        if (pending == null) {
            while (header.hasRemaining() && src.hasRemaining()) header.put(src.get());
            if (header.hasRemaining()) return null;
            header.flip();
            pending = MessageCodec.readHeader(header);
            header.clear();
            body = ByteBuffer.allocate(pending.length());
        }
        int n = Math.min(body.remaining(), src.remaining());
        ByteBuffer chunk = src.slice();
        chunk.limit(n);
        body.put(chunk);
        src.position(src.position() + n);
        if (body.hasRemaining()) return null;
        body.flip();
        MessageCodec.Header h = pending;
        ByteBuffer b = body;
        pending = null;
        body = null;
        return new Frame(h.requestId(), MessageCodec.decodeBody(h.type(), b));
    }

    /** True when part of a frame has been received. */
    public boolean hasPartialFrame() {
        return pending != null || header.position() > 0;
    }
}
