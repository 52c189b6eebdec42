package dev.mana.coordinator.protocol;

import dev.mana.coordinator.protocol.Messages.Collective;
import dev.mana.coordinator.protocol.Messages.CollectiveDone;

/**
 * The bodies of §4.2, collectives: COLLECTIVE and COLLECTIVE_DONE share one layout (generation, phase,
 * op, reserved, count, values). GROUP_COLLECTIVE, which adds a member count, is in {@link GroupCodecs}.
 */
final class CollectiveCodecs {
    private CollectiveCodecs() {}

    static final class CollectiveCodec implements BodyCodec<Collective> {
        @Override
        public void encode(Collective m, WireWriter w) throws ProtocolException {
            writeValues(w, m.generation(), m.phase(), m.op(), m.values());
        }

        @Override
        public Collective decode(WireReader r) throws ProtocolException {
            int g = r.u32(), phase = r.u16(), op = r.u8();
            r.u8();
            int n = r.count(Protocol.MAX_VALUES, 8, "values");
            return new Collective(g, phase, op, r.i64s(n));
        }
    }

    static final class CollectiveDoneCodec implements BodyCodec<CollectiveDone> {
        @Override
        public void encode(CollectiveDone m, WireWriter w) throws ProtocolException {
            writeValues(w, m.generation(), m.phase(), m.op(), m.result());
        }

        @Override
        public CollectiveDone decode(WireReader r) throws ProtocolException {
            int g = r.u32(), phase = r.u16(), op = r.u8();
            r.u8();
            int n = r.count(Protocol.MAX_VALUES, 8, "result");
            return new CollectiveDone(g, phase, op, r.i64s(n));
        }
    }

    private static void writeValues(WireWriter w, int g, int phase, int op, long[] values) throws ProtocolException {
        if (values.length > Protocol.MAX_VALUES) {
            throw new ProtocolException(ErrorCode.TOO_LARGE, values.length + " values (limit "
                    + Protocol.MAX_VALUES + ")");
        }
        w.u32(g).u16(phase).u8(op).u8(0).u32(values.length);
        for (long v : values) w.i64(v);
    }
}
