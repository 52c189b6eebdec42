package dev.mana.coordinator.protocol;

import dev.mana.coordinator.protocol.Messages.ErrorMessage;

/** The body of §4.7: ERROR, a code and a message. */
final class ErrorCodec implements BodyCodec<ErrorMessage> {
    @Override
    public void encode(ErrorMessage m, WireWriter w) throws ProtocolException {
        w.u16(m.code()).str(m.message());
    }

    @Override
    public ErrorMessage decode(WireReader r) throws ProtocolException {
        return new ErrorMessage(r.u16(), r.str());
    }
}
