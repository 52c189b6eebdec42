package dev.mana.coordinator.protocol;

import java.nio.ByteBuffer;

/**
 * Incremental frame decoder for one connection: feed it whatever bytes arrived, take out complete
 * frames. It keeps only a 16-byte header and, while a frame is split across reads, that frame's body,
 * so thousands of idle connections cost almost nothing.
 */
public final class FrameDecoder {
    /** First buffer for a split frame; it grows as the bytes really arrive, never on the header's word. */
    private static final int FIRST_BODY_BUFFER = 4096;

    private final ByteBuffer header = ByteBuffer.allocate(Protocol.HEADER_SIZE);
    private MessageCodec.Header pending;
    private ByteBuffer body;
    private int maxBody = Protocol.MAX_BODY;

    /** A decoder that accepts bodies of up to {@link Protocol#MAX_BODY} bytes. */
    public FrameDecoder() {}

    /** A decoder that refuses headers announcing more than {@code maxBody} bytes (e.g. before authentication). */
    public FrameDecoder(int maxBody) { this.maxBody = maxBody; }

    /** Changes the body limit for the frames that follow (the coordinator lifts it after AUTH). */
    public void maxBody(int maxBody) { this.maxBody = maxBody; }

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
            MessageCodec.Header h = MessageCodec.readHeader(src, maxBody);
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
            pending = MessageCodec.readHeader(header, maxBody);
            header.clear();
            body = ByteBuffer.allocate(Math.min(pending.length(), FIRST_BODY_BUFFER));
        }
        int want = pending.length() - body.position();
        if (want > body.remaining() && src.remaining() > body.remaining()) { // grow by what arrived
            int cap = (int) Math.min(pending.length(), Math.max(2L * body.capacity(), body.position() + (long) src.remaining()));
            body = ByteBuffer.allocate(cap).put(body.flip());
        }
        int n = Math.min(Math.min(want, body.remaining()), src.remaining());
        ByteBuffer chunk = src.slice();
        chunk.limit(n);
        body.put(chunk);
        src.position(src.position() + n);
        if (body.position() < pending.length()) return null;
        body.flip();
        MessageCodec.Header h = pending;
        ByteBuffer b = body;
        pending = null;
        body = null;
        return new Frame(h.requestId(), MessageCodec.decodeBody(h.type(), b));
    }

    /**
     * Bytes still missing to the end of the header, or of the body whose header was read: reading no
     * more than this never takes a byte of the next frame.
     */
    public int bytesToFrameEnd() {
        if (pending == null) return Protocol.HEADER_SIZE - header.position();
        return Math.max(1, pending.length() - body.position());
    }

    /** True when part of a frame has been received. */
    public boolean hasPartialFrame() {
        return pending != null || header.position() > 0;
    }
}
