package dev.mana.coordinator.protocol;

import dev.mana.coordinator.protocol.Messages.KvGet;
import dev.mana.coordinator.protocol.Messages.KvPut;
import dev.mana.coordinator.protocol.Messages.KvValue;

/** The bodies of §4.3, per-rank records: KV_PUT, KV_GET and KV_VALUE (OK is empty: {@link EmptyBodyCodec}). */
final class RecordCodecs {
    private RecordCodecs() {}

    static final class KvPutCodec implements BodyCodec<KvPut> {
        @Override
        public void encode(KvPut m, WireWriter w) throws ProtocolException {
            w.str(m.key()).blob(m.value());
        }

        @Override
        public KvPut decode(WireReader r) throws ProtocolException {
            return new KvPut(r.str(), r.blob());
        }
    }

    static final class KvGetCodec implements BodyCodec<KvGet> {
        @Override
        public void encode(KvGet m, WireWriter w) throws ProtocolException {
            w.str(m.key()).bool(m.waitForIt());
        }

        @Override
        public KvGet decode(WireReader r) throws ProtocolException {
            return new KvGet(r.str(), r.bool());
        }
    }

    static final class KvValueCodec implements BodyCodec<KvValue> {
        @Override
        public void encode(KvValue m, WireWriter w) throws ProtocolException {
            w.bool(m.found()).blob(m.value());
        }

        @Override
        public KvValue decode(WireReader r) throws ProtocolException {
            return new KvValue(r.bool(), r.blob());
        }
    }
}
