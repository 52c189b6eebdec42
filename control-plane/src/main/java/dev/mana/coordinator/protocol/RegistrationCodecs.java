package dev.mana.coordinator.protocol;

import dev.mana.coordinator.protocol.Messages.Auth;
import dev.mana.coordinator.protocol.Messages.AuthOk;
import dev.mana.coordinator.protocol.Messages.Challenge;
import dev.mana.coordinator.protocol.Messages.GroupHello;
import dev.mana.coordinator.protocol.Messages.GroupMember;
import dev.mana.coordinator.protocol.Messages.Hello;
import dev.mana.coordinator.protocol.Messages.Welcome;
import java.util.ArrayList;
import java.util.List;

/** The bodies of §4.1, registration: CHALLENGE, AUTH, AUTH_OK, HELLO (every role) and WELCOME. */
final class RegistrationCodecs {
    private RegistrationCodecs() {}

    static final class ChallengeCodec implements BodyCodec<Challenge> {
        @Override
        public void encode(Challenge m, WireWriter w) {
            w.fixed(m.nonce(), Protocol.NONCE_SIZE);
        }

        @Override
        public Challenge decode(WireReader r) throws ProtocolException {
            return new Challenge(r.fixed(Protocol.NONCE_SIZE));
        }
    }

    static final class AuthCodec implements BodyCodec<Auth> {
        @Override
        public void encode(Auth m, WireWriter w) {
            w.fixed(m.nonce(), Protocol.NONCE_SIZE).fixed(m.mac(), Protocol.MAC_SIZE);
        }

        @Override
        public Auth decode(WireReader r) throws ProtocolException {
            return new Auth(r.fixed(Protocol.NONCE_SIZE), r.fixed(Protocol.MAC_SIZE));
        }
    }

    static final class AuthOkCodec implements BodyCodec<AuthOk> {
        @Override
        public void encode(AuthOk m, WireWriter w) {
            w.fixed(m.mac(), Protocol.MAC_SIZE);
        }

        @Override
        public AuthOk decode(WireReader r) throws ProtocolException {
            return new AuthOk(r.fixed(Protocol.MAC_SIZE));
        }
    }

    /**
     * HELLO of every role: a {@link Hello} (rank fields for role = rank only) or, for role = group (§4.8),
     * a {@link GroupHello}; the role byte decides which, so both live in this one codec.
     */
    static final class HelloCodec implements BodyCodec<Message> {
        @Override
        public void encode(Message msg, WireWriter w) throws ProtocolException {
            if (msg instanceof GroupHello g) {
                if (g.members().size() > Protocol.MAX_GROUP_MEMBERS) {
                    throw new ProtocolException(ErrorCode.TOO_LARGE, g.members().size() + " members (limit "
                            + Protocol.MAX_GROUP_MEMBERS + ")");
                }
                w.u8(Protocol.ROLE_GROUP).str(g.job()).i32(g.nranks()).u32(g.members().size());
                for (GroupMember e : g.members()) {
                    w.i32(e.rank()).str(e.host()).i32(e.pid()).str(e.mpi()).u32(e.generation())
                            .bool(e.restarting()).str(e.ckptdir()).str(e.program());
                }
                return;
            }
            Hello m = (Hello) msg;
            w.u8(m.role()).str(m.job());
            if (m.role() == Protocol.ROLE_RANK) {
                w.i32(m.rank()).i32(m.nranks()).str(m.host()).i32(m.pid()).str(m.mpi()).u32(m.generation())
                        .bool(m.restarting()).str(m.ckptdir()).str(m.program());
            }
        }

        @Override
        public Message decode(WireReader r) throws ProtocolException {
            int role = r.u8();
            String job = r.str();
            if (role == Protocol.ROLE_RANK) {
                return new Hello(role, job, r.i32(), r.i32(), r.str(), r.i32(), r.str(), r.u32(),
                        r.bool(), r.str(), r.str());
            }
            if (role == Protocol.ROLE_GROUP) {
                int nranks = r.i32();
                // smallest member: rank 4, host 2, pid 4, mpi 2, generation 4, restarting 1, ckptdir 2, program 2
                int n = r.count(Protocol.MAX_GROUP_MEMBERS, 21, "members");
                List<GroupMember> members = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    members.add(new GroupMember(r.i32(), r.str(), r.i32(), r.str(), r.u32(), r.bool(), r.str(),
                            r.str()));
                }
                return new GroupHello(job, nranks, members);
            }
            return new Hello(role, job, 0, 0, "", 0, "", 0, false, "", "");
        }
    }

    static final class WelcomeCodec implements BodyCodec<Welcome> {
        @Override
        public void encode(Welcome m, WireWriter w) throws ProtocolException {
            w.u32(m.clientId()).u32(m.generation()).u32(m.interval()).str(m.job());
        }

        @Override
        public Welcome decode(WireReader r) throws ProtocolException {
            return new Welcome(r.u32(), r.u32(), r.u32(), r.str());
        }
    }
}
