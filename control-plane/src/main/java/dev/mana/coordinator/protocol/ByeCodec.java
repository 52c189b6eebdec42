package dev.mana.coordinator.protocol;

import dev.mana.coordinator.protocol.Messages.Bye;

/** The body of §4.5, leaving: BYE (a group member's is GROUP_BYE, {@link GroupCodecs}). */
final class ByeCodec implements BodyCodec<Bye> {
    @Override
    public void encode(Bye m, WireWriter w) {
        w.u8(m.reason()).i32(m.status());
    }

    @Override
    public Bye decode(WireReader r) throws ProtocolException {
        return new Bye(r.u8(), r.i32());
    }
}
