package dev.mana.coordinator.protocol;

import dev.mana.coordinator.protocol.Messages.CkptAbort;
import dev.mana.coordinator.protocol.Messages.CkptFailed;
import dev.mana.coordinator.protocol.Messages.CkptRequest;
import dev.mana.coordinator.protocol.Messages.CkptWritten;

/**
 * The bodies of §4.4, checkpoint: CKPT_REQUEST and CKPT_ABORT to the ranks, CKPT_WRITTEN and CKPT_FAILED
 * from them (KILL is empty: {@link EmptyBodyCodec}).
 */
final class CheckpointCodecs {
    private CheckpointCodecs() {}

    static final class CkptRequestCodec implements BodyCodec<CkptRequest> {
        @Override
        public void encode(CkptRequest m, WireWriter w) throws ProtocolException {
            w.u32(m.generation()).u8(m.flags()).str(m.ckptdir());
        }

        @Override
        public CkptRequest decode(WireReader r) throws ProtocolException {
            return new CkptRequest(r.u32(), r.u8(), r.str());
        }
    }

    static final class CkptAbortCodec implements BodyCodec<CkptAbort> {
        @Override
        public void encode(CkptAbort m, WireWriter w) throws ProtocolException {
            w.u32(m.generation()).str(m.reason());
        }

        @Override
        public CkptAbort decode(WireReader r) throws ProtocolException {
            return new CkptAbort(r.u32(), r.str());
        }
    }

    static final class CkptWrittenCodec implements BodyCodec<CkptWritten> {
        @Override
        public void encode(CkptWritten m, WireWriter w) throws ProtocolException {
            w.u32(m.generation()).u64(m.imageBytes()).u64(m.writeNs()).str(m.path());
        }

        @Override
        public CkptWritten decode(WireReader r) throws ProtocolException {
            return new CkptWritten(r.u32(), r.u64(), r.u64(), r.str());
        }
    }

    static final class CkptFailedCodec implements BodyCodec<CkptFailed> {
        @Override
        public void encode(CkptFailed m, WireWriter w) throws ProtocolException {
            w.u32(m.generation()).str(m.reason());
        }

        @Override
        public CkptFailed decode(WireReader r) throws ProtocolException {
            return new CkptFailed(r.u32(), r.str());
        }
    }
}
