package dev.mana.coordinator.protocol;

import dev.mana.coordinator.protocol.Messages.GroupBye;
import dev.mana.coordinator.protocol.Messages.GroupCkptFailed;
import dev.mana.coordinator.protocol.Messages.GroupCkptWritten;
import dev.mana.coordinator.protocol.Messages.GroupCollective;

/**
 * The bodies of §4.8, rank groups (one connection for many ranks): GROUP_COLLECTIVE, GROUP_CKPT_WRITTEN,
 * GROUP_CKPT_FAILED and GROUP_BYE. A group's HELLO is a HELLO role: {@link RegistrationCodecs.HelloCodec}.
 */
final class GroupCodecs {
    private GroupCodecs() {}

    static final class GroupCollectiveCodec implements BodyCodec<GroupCollective> {
        @Override
        public void encode(GroupCollective m, WireWriter w) throws ProtocolException {
            if (m.values().length > Protocol.MAX_VALUES) {
                throw new ProtocolException(ErrorCode.TOO_LARGE, m.values().length + " values (limit "
                        + Protocol.MAX_VALUES + ")");
            }
            w.u32(m.generation()).u16(m.phase()).u8(m.op()).u8(0).u32(m.members()).u32(m.values().length);
            for (long v : m.values()) w.i64(v);
        }

        @Override
        public GroupCollective decode(WireReader r) throws ProtocolException {
            int g = r.u32(), phase = r.u16(), op = r.u8();
            r.u8();
            int members = r.u32();
            int n = r.count(Protocol.MAX_VALUES, 8, "values");
            return new GroupCollective(g, phase, op, members, r.i64s(n));
        }
    }

    static final class GroupCkptWrittenCodec implements BodyCodec<GroupCkptWritten> {
        @Override
        public void encode(GroupCkptWritten m, WireWriter w) throws ProtocolException {
            w.i32(m.rank()).u32(m.generation()).u64(m.imageBytes()).u64(m.writeNs()).str(m.path());
        }

        @Override
        public GroupCkptWritten decode(WireReader r) throws ProtocolException {
            return new GroupCkptWritten(r.i32(), r.u32(), r.u64(), r.u64(), r.str());
        }
    }

    static final class GroupCkptFailedCodec implements BodyCodec<GroupCkptFailed> {
        @Override
        public void encode(GroupCkptFailed m, WireWriter w) throws ProtocolException {
            w.i32(m.rank()).u32(m.generation()).str(m.reason());
        }

        @Override
        public GroupCkptFailed decode(WireReader r) throws ProtocolException {
            return new GroupCkptFailed(r.i32(), r.u32(), r.str());
        }
    }

    static final class GroupByeCodec implements BodyCodec<GroupBye> {
        @Override
        public void encode(GroupBye m, WireWriter w) {
            w.i32(m.rank()).u8(m.reason()).i32(m.status());
        }

        @Override
        public GroupBye decode(WireReader r) throws ProtocolException {
            return new GroupBye(r.i32(), r.u8(), r.i32());
        }
    }
}
