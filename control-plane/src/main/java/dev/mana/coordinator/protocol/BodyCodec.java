package dev.mana.coordinator.protocol;

/**
 * The body of one message type (§4): its fields in wire order, both ways. Implementations are
 * registered in {@link BodyCodecs}, which {@link MessageCodec} goes through; the header is not theirs.
 *
 * @param <M> the message class this codec writes and reads
 */
interface BodyCodec<M extends Message> {
    void encode(M message, WireWriter w) throws ProtocolException;

    /** Reads the fields from the reader's position; bytes after them are left unread (ignored). */
    M decode(WireReader r) throws ProtocolException;
}
