package dev.mana.coordinator.protocol;

import dev.mana.coordinator.protocol.Messages.*;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Bytes to messages and back: the frame header (§1) and every message body (§4). The only place
 * that knows the wire layout.
 */
public final class MessageCodec {
    private MessageCodec() {}

    /** A parsed frame header. */
    public record Header(MessageType type, int length, int requestId) {}

    /** Encodes a whole frame (header and body), ready to write. */
    public static ByteBuffer encode(int requestId, Message m) throws ProtocolException {
        WireWriter w = new WireWriter(64);
        w.u32(Protocol.MAGIC).u16(Protocol.VERSION).u16(m.type().code).u32(0).u32(requestId);
        writeBody(m, w);
        int length = w.position() - Protocol.HEADER_SIZE;
        if (length > Protocol.MAX_BODY) {
            throw new ProtocolException(ErrorCode.TOO_LARGE, m.type() + " body of " + length + " bytes (limit "
                    + Protocol.MAX_BODY + ")");
        }
        w.putU32At(8, length);
        return w.finish();
    }

    /** Same as {@link #encode}, as a byte array. */
    public static byte[] encodeBytes(int requestId, Message m) throws ProtocolException {
        ByteBuffer b = encode(requestId, m);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** Reads and checks the 16 header bytes at the buffer's position (advancing it). */
    public static Header readHeader(ByteBuffer buf) throws ProtocolException {
        return readHeader(buf, Protocol.MAX_BODY);
    }

    /**
     * As {@link #readHeader(ByteBuffer)}, with a smaller body limit: before authentication the
     * coordinator passes {@link Protocol#PRE_AUTH_MAX_BODY}, so a stranger's announced length is
     * refused before anything is allocated for it.
     */
    public static Header readHeader(ByteBuffer buf, int maxBody) throws ProtocolException {
        ByteBuffer b = buf.slice().order(ByteOrder.LITTLE_ENDIAN);
        if (b.remaining() < Protocol.HEADER_SIZE) throw new ProtocolException(ErrorCode.BAD_FRAME, "short header");
        int magic = b.getInt(0);
        if (magic != Protocol.MAGIC) {
            throw new ProtocolException(ErrorCode.BAD_FRAME, String.format("bad magic 0x%08x", magic));
        }
        int version = b.getShort(4) & 0xffff;
        if (version != Protocol.VERSION) {
            throw new ProtocolException(ErrorCode.BAD_FRAME, "unsupported protocol version " + version + " (this end speaks "
                    + Protocol.VERSION + ")");
        }
        int typeCode = b.getShort(6) & 0xffff;
        long length = b.getInt(8) & 0xffffffffL;
        int requestId = b.getInt(12);
        if (length > maxBody) {
            throw new ProtocolException(ErrorCode.TOO_LARGE, "frame body of " + length + " bytes (limit " + maxBody
                    + (maxBody < Protocol.MAX_BODY ? " before authentication" : "") + ")");
        }
        MessageType type = MessageType.of(typeCode);
        if (type == null) {
            throw new ProtocolException(ErrorCode.PROTOCOL, String.format("unknown message type 0x%02x", typeCode));
        }
        buf.position(buf.position() + Protocol.HEADER_SIZE);
        return new Header(type, (int) length, requestId);
    }

    /** Decodes one body (exactly the bytes between position and limit; trailing bytes are ignored). */
    public static Message decodeBody(MessageType type, ByteBuffer body) throws ProtocolException {
        WireReader r = new WireReader(body);
        switch (type) {
            case CHALLENGE:
                return new Challenge(r.fixed(Protocol.NONCE_SIZE));
            case AUTH:
                return new Auth(r.fixed(Protocol.NONCE_SIZE), r.fixed(Protocol.MAC_SIZE));
            case AUTH_OK:
                return new AuthOk(r.fixed(Protocol.MAC_SIZE));
            case HELLO: {
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
            case WELCOME:
                return new Welcome(r.u32(), r.u32(), r.u32(), r.str());
            case COLLECTIVE: {
                int g = r.u32(), phase = r.u16(), op = r.u8();
                r.u8();
                int n = r.count(Protocol.MAX_VALUES, 8, "values");
                return new Collective(g, phase, op, r.i64s(n));
            }
            case COLLECTIVE_DONE: {
                int g = r.u32(), phase = r.u16(), op = r.u8();
                r.u8();
                int n = r.count(Protocol.MAX_VALUES, 8, "result");
                return new CollectiveDone(g, phase, op, r.i64s(n));
            }
            case GROUP_COLLECTIVE: {
                int g = r.u32(), phase = r.u16(), op = r.u8();
                r.u8();
                int members = r.u32();
                int n = r.count(Protocol.MAX_VALUES, 8, "values");
                return new GroupCollective(g, phase, op, members, r.i64s(n));
            }
            case CKPT_WRITTEN:
                return new CkptWritten(r.u32(), r.u64(), r.u64(), r.str());
            case GROUP_CKPT_WRITTEN:
                return new GroupCkptWritten(r.i32(), r.u32(), r.u64(), r.u64(), r.str());
            case GROUP_CKPT_FAILED:
                return new GroupCkptFailed(r.i32(), r.u32(), r.str());
            case CKPT_FAILED:
                return new CkptFailed(r.u32(), r.str());
            case KV_PUT:
                return new KvPut(r.str(), r.blob());
            case OK:
                return new Ok();
            case KV_GET:
                return new KvGet(r.str(), r.bool());
            case KV_VALUE:
                return new KvValue(r.bool(), r.blob());
            case BYE:
                return new Bye(r.u8(), r.i32());
            case GROUP_BYE:
                return new GroupBye(r.i32(), r.u8(), r.i32());
            case CKPT_REQUEST:
                return new CkptRequest(r.u32(), r.u8(), r.str());
            case CKPT_ABORT:
                return new CkptAbort(r.u32(), r.str());
            case KILL:
                return new Kill();
            case LIST:
                return new ListRequest();
            case LIST_REPLY: {
                // smallest entry: rank 4, host 2, pid 4, state 1, generation 4, mpi 2, client 4
                int n = r.count(Integer.MAX_VALUE, 21, "ranks");
                List<RankEntry> ranks = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    ranks.add(new RankEntry(r.i32(), r.str(), r.i32(), r.u8(), r.u32(), r.str(), r.u32()));
                }
                return new ListReply(ranks);
            }
            case STATUS:
                return new StatusRequest();
            case STATUS_REPLY: {
                String job = r.str();
                int nranks = r.i32(), connected = r.u32(), generation = r.u32();
                boolean checkpointing = r.bool();
                long unixMs = r.i64(), ns = r.u64(), bytes = r.u64();
                String dir = r.str();
                int interval = r.u32();
                List<RefusedEntry> refused = new ArrayList<>(0);
                if (r.remaining() > 0) { // absent from the first v2 coordinators' replies
                    // smallest entry: rank 4, nranks 4, host 2, pid 4, reason 2
                    int n = r.count(Integer.MAX_VALUE, 16, "refused ranks");
                    for (int i = 0; i < n; i++) refused.add(new RefusedEntry(r.i32(), r.i32(), r.str(), r.i32(), r.str()));
                }
                return new StatusReply(job, nranks, connected, generation, checkpointing, unixMs, ns, bytes, dir,
                        interval, refused);
            }
            case CHECKPOINT:
                return new Checkpoint(r.u8());
            case CKPT_RESULT:
                return new CkptResult(r.bool(), r.u32(), r.u64(), r.u64(), r.u32(), r.str(), r.str());
            case CKPT_PROGRESS:
                return new CkptProgress(r.u32(), r.u8(), r.u32(), r.u32());
            case SET_INTERVAL:
                return new SetInterval(r.u32());
            case KILL_JOB:
                return new KillJob();
            case QUIT:
                return new Quit();
            case ERROR:
                return new ErrorMessage(r.u16(), r.str());
            default:
                throw new ProtocolException(ErrorCode.PROTOCOL, "unknown message type " + type);
        }
    }

    static void writeBody(Message msg, WireWriter w) throws ProtocolException {
        switch (msg.type()) {
            case CHALLENGE:
                w.fixed(((Challenge) msg).nonce(), Protocol.NONCE_SIZE);
                break;
            case AUTH: {
                Auth m = (Auth) msg;
                w.fixed(m.nonce(), Protocol.NONCE_SIZE).fixed(m.mac(), Protocol.MAC_SIZE);
                break;
            }
            case AUTH_OK:
                w.fixed(((AuthOk) msg).mac(), Protocol.MAC_SIZE);
                break;
            case HELLO: {
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
                    break;
                }
                Hello m = (Hello) msg;
                w.u8(m.role()).str(m.job());
                if (m.role() == Protocol.ROLE_RANK) {
                    w.i32(m.rank()).i32(m.nranks()).str(m.host()).i32(m.pid()).str(m.mpi()).u32(m.generation())
                            .bool(m.restarting()).str(m.ckptdir()).str(m.program());
                }
                break;
            }
            case WELCOME: {
                Welcome m = (Welcome) msg;
                w.u32(m.clientId()).u32(m.generation()).u32(m.interval()).str(m.job());
                break;
            }
            case COLLECTIVE: {
                Collective m = (Collective) msg;
                writeValues(w, m.generation(), m.phase(), m.op(), m.values());
                break;
            }
            case COLLECTIVE_DONE: {
                CollectiveDone m = (CollectiveDone) msg;
                writeValues(w, m.generation(), m.phase(), m.op(), m.result());
                break;
            }
            case GROUP_COLLECTIVE: {
                GroupCollective m = (GroupCollective) msg;
                if (m.values().length > Protocol.MAX_VALUES) {
                    throw new ProtocolException(ErrorCode.TOO_LARGE, m.values().length + " values (limit "
                            + Protocol.MAX_VALUES + ")");
                }
                w.u32(m.generation()).u16(m.phase()).u8(m.op()).u8(0).u32(m.members()).u32(m.values().length);
                for (long v : m.values()) w.i64(v);
                break;
            }
            case GROUP_CKPT_WRITTEN: {
                GroupCkptWritten m = (GroupCkptWritten) msg;
                w.i32(m.rank()).u32(m.generation()).u64(m.imageBytes()).u64(m.writeNs()).str(m.path());
                break;
            }
            case GROUP_CKPT_FAILED: {
                GroupCkptFailed m = (GroupCkptFailed) msg;
                w.i32(m.rank()).u32(m.generation()).str(m.reason());
                break;
            }
            case GROUP_BYE: {
                GroupBye m = (GroupBye) msg;
                w.i32(m.rank()).u8(m.reason()).i32(m.status());
                break;
            }
            case CKPT_WRITTEN: {
                CkptWritten m = (CkptWritten) msg;
                w.u32(m.generation()).u64(m.imageBytes()).u64(m.writeNs()).str(m.path());
                break;
            }
            case CKPT_FAILED: {
                CkptFailed m = (CkptFailed) msg;
                w.u32(m.generation()).str(m.reason());
                break;
            }
            case KV_PUT: {
                KvPut m = (KvPut) msg;
                w.str(m.key()).blob(m.value());
                break;
            }
            case KV_GET: {
                KvGet m = (KvGet) msg;
                w.str(m.key()).bool(m.waitForIt());
                break;
            }
            case KV_VALUE: {
                KvValue m = (KvValue) msg;
                w.bool(m.found()).blob(m.value());
                break;
            }
            case BYE: {
                Bye m = (Bye) msg;
                w.u8(m.reason()).i32(m.status());
                break;
            }
            case CKPT_REQUEST: {
                CkptRequest m = (CkptRequest) msg;
                w.u32(m.generation()).u8(m.flags()).str(m.ckptdir());
                break;
            }
            case CKPT_ABORT: {
                CkptAbort m = (CkptAbort) msg;
                w.u32(m.generation()).str(m.reason());
                break;
            }
            case LIST_REPLY: {
                ListReply m = (ListReply) msg;
                w.u32(m.ranks().size());
                for (RankEntry e : m.ranks()) {
                    w.i32(e.rank()).str(e.host()).i32(e.pid()).u8(e.state()).u32(e.generation()).str(e.mpi())
                            .u32(e.clientId());
                }
                break;
            }
            case STATUS_REPLY: {
                StatusReply m = (StatusReply) msg;
                w.str(m.job()).i32(m.nranks()).u32(m.connected()).u32(m.generation()).bool(m.checkpointing())
                        .i64(m.lastCkptUnixMs()).u64(m.lastCkptNs()).u64(m.lastCkptBytes()).str(m.lastCkptDir())
                        .u32(m.interval());
                w.u32(m.refused().size());
                for (RefusedEntry e : m.refused()) w.i32(e.rank()).i32(e.nranks()).str(e.host()).i32(e.pid()).str(e.reason());
                break;
            }
            case CHECKPOINT:
                w.u8(((Checkpoint) msg).flags());
                break;
            case CKPT_RESULT: {
                CkptResult m = (CkptResult) msg;
                w.bool(m.ok()).u32(m.generation()).u64(m.elapsedNs()).u64(m.totalBytes()).u32(m.ranks())
                        .str(m.dir()).str(m.message());
                break;
            }
            case CKPT_PROGRESS: {
                CkptProgress m = (CkptProgress) msg;
                w.u32(m.generation()).u8(m.state()).u32(m.reached()).u32(m.nranks());
                break;
            }
            case SET_INTERVAL:
                w.u32(((SetInterval) msg).seconds());
                break;
            case ERROR: {
                ErrorMessage m = (ErrorMessage) msg;
                w.u16(m.code()).str(m.message());
                break;
            }
            case OK: case KILL: case LIST: case STATUS: case KILL_JOB: case QUIT:
                break;
            default:
                throw new ProtocolException(ErrorCode.PROTOCOL, "cannot encode " + msg.type());
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
