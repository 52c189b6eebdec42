package dev.mana.coordinator.protocol;

import static org.junit.jupiter.api.Assertions.*;

import dev.mana.coordinator.protocol.Messages.*;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class MessageCodecTest {

    static List<Message> samples() {
        return List.of(
                new Challenge(seq(32, 1)),
                new Auth(seq(32, 2), seq(32, 3)),
                new AuthOk(seq(32, 4)),
                Hello.rank("job1", 3, 4, "node17", 4242, "mpich", 7, true, "/ckpt", "/bin/app"),
                Hello.control(""),
                new GroupHello("job1", 8, List.of(
                        new GroupMember(4, "node2", 10, "mpich", 0, false, "/ckpt", "/bin/app"),
                        new GroupMember(6, "node2", 11, "mpich", 3, true, "", ""))),
                new Welcome(9, 2, 30, "default"),
                new Collective(5, 16, Protocol.OP_SUM, new long[] {1, -2, Long.MAX_VALUE}),
                Collective.barrier(5, 1),
                new CollectiveDone(5, 16, Protocol.OP_SUM, new long[] {3, 4}),
                new GroupCollective(5, 16, Protocol.OP_SUM, 64, new long[] {7, 0}),
                new GroupCollective(5, 1, Protocol.OP_BARRIER, 3, new long[0]),
                new GroupCkptWritten(6, 5, 4096, 99, "/ckpt/ckpt_rank_6/x.img"),
                new GroupCkptFailed(6, 5, "disk full"),
                new GroupBye(6, Protocol.BYE_EXIT, 2),
                new CkptWritten(5, 1L << 40, 123456789L, "/ckpt/ckpt_rank_3/x.img"),
                new CkptFailed(5, "disk full"),
                new KvPut("key", new byte[] {1, 2, 3}),
                new Ok(),
                new KvGet("key", true),
                new KvValue(true, new byte[] {9}),
                new Bye(Protocol.BYE_AFTER_CHECKPOINT, -1),
                new CkptRequest(6, Protocol.FLAG_EXIT_AFTER, ""),
                new CkptAbort(6, "rank 2 disconnected"),
                new Kill(),
                new ListRequest(),
                new ListReply(List.of(new RankEntry(0, "h", 1, 1, 0, "none", 1), new RankEntry(1, "héllo", 2, 7, 3, "openmpi", 2))),
                new StatusRequest(),
                new StatusReply("default", 4, 3, 2, true, 1700000000000L, 5_000_000L, 1L << 33, "/ckpt", 60),
                new StatusReply("j", 1, 1, 0, false, 0, 0, 0, "", 0, List.of(
                        new RefusedEntry(1, 1, "node7", 4242, "rank 1 outside 0..0"),
                        new RefusedEntry(0, 2, "héllo", 7, "rank 0 of job 'j' is already registered (pid 1 on h)"))),
                new Checkpoint(Protocol.FLAG_WAIT | Protocol.FLAG_EXIT_AFTER),
                new CkptResult(false, 3, 1, 2, 4, "/d", "3 of 4 ranks registered"),
                new CkptProgress(3, 2, 1, 4),
                new SetInterval(120),
                new KillJob(),
                new Quit(),
                new ErrorMessage(ErrorCode.AUTH, "wrong secret"));
    }

    static byte[] seq(int n, int start) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (start + i);
        return b;
    }

    @Test
    void everyMessageTypeRoundTrips() throws Exception {
        List<Message> all = samples();
        assertEquals(MessageType.values().length, all.stream().map(Message::type).distinct().count(),
                "a sample of every type");
        int id = 1;
        for (Message m : all) {
            ByteBuffer b = MessageCodec.encode(id, m);
            assertEquals(Protocol.HEADER_SIZE + b.order(ByteOrder.LITTLE_ENDIAN).getInt(8), b.remaining());
            Frame f = new FrameDecoder().next(b);
            assertNotNull(f, m.type().toString());
            assertEquals(id, f.requestId());
            assertEquals(m, f.message());
            assertFalse(b.hasRemaining());
            id++;
        }
    }

    @Test
    void headerLayoutIsLittleEndianAsSpecified() throws Exception {
        byte[] b = MessageCodec.encodeBytes(0x01020304, new SetInterval(0x0A0B0C0D));
        assertArrayEquals(new byte[] {'M', 'N', 'C', 'P', 2, 0, 0x57, 0, 4, 0, 0, 0, 4, 3, 2, 1, 0x0D, 0x0C, 0x0B, 0x0A}, b);
    }

    @Test
    void helloBodyMatchesTheSpecByteForByte() throws Exception {
        byte[] b = MessageCodec.encodeBytes(1, Hello.control("j"));
        // u8 role 2, str job (u16 1, 'j'): no secret (v2)
        assertArrayEquals(new byte[] {2, 1, 0, 'j'}, java.util.Arrays.copyOfRange(b, 16, b.length));
        b = MessageCodec.encodeBytes(1, new Auth(seq(32, 0), seq(32, 100)));
        assertEquals(0x04, b[6]);
        assertEquals(64, b.length - 16, "AUTH: nonce u8[32], mac u8[32]");
        assertArrayEquals(seq(32, 0), java.util.Arrays.copyOfRange(b, 16, 48));
        assertArrayEquals(seq(32, 100), java.util.Arrays.copyOfRange(b, 48, 80));
    }

    @Test
    void groupMessagesMatchTheSpecByteForByte() throws Exception {
        byte[] b = MessageCodec.encodeBytes(1, new GroupHello("j", 4, List.of(
                new GroupMember(2, "h", 7, "", 1, true, "", "p"))));
        assertEquals(0x01, b[6], "type HELLO");
        // role 3, job, nranks i32 4, count u32 1, then rank i32 2, host, pid i32 7, mpi, generation u32 1,
        // restarting u8 1, ckptdir, program
        assertArrayEquals(new byte[] {3, 1, 0, 'j', 4, 0, 0, 0, 1, 0, 0, 0,
                2, 0, 0, 0, 1, 0, 'h', 7, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 'p'},
                java.util.Arrays.copyOfRange(b, 16, b.length));
        b = MessageCodec.encodeBytes(1, new GroupCollective(9, 64, Protocol.OP_SUM, 5, new long[] {-1}));
        assertEquals(0x12, b[6]);
        // generation u32, phase u16, op u8, reserved u8, members u32, count u32, values i64[count]
        assertArrayEquals(new byte[] {9, 0, 0, 0, 64, 0, 1, 0, 5, 0, 0, 0, 1, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1},
                java.util.Arrays.copyOfRange(b, 16, b.length));
        b = MessageCodec.encodeBytes(1, new GroupBye(3, 1, -1));
        assertArrayEquals(new byte[] {3, 0, 0, 0, 1, -1, -1, -1, -1}, java.util.Arrays.copyOfRange(b, 16, b.length));
        // a member count beyond what the body holds is malformed, beyond the limit too large
        ByteBuffer h = ByteBuffer.allocate(1 + 2 + 4 + 4).order(ByteOrder.LITTLE_ENDIAN);
        h.put((byte) 3).putShort((short) 0).putInt(4).putInt(2);
        assertEquals(ErrorCode.BAD_FRAME, decodeFails(frame(0x01, h.array())).code());
        h.putInt(1 + 2 + 4, Protocol.MAX_GROUP_MEMBERS + 1);
        assertEquals(ErrorCode.TOO_LARGE, decodeFails(frame(0x01, h.array())).code());
    }

    @Test
    void decodesByteByByteAndBackToBack() throws Exception {
        ByteBuffer all = ByteBuffer.allocate(1 << 16);
        List<Message> msgs = samples();
        for (Message m : msgs) all.put(MessageCodec.encode(7, m));
        all.flip();
        FrameDecoder d = new FrameDecoder();
        List<Message> got = new ArrayList<>();
        ByteBuffer one = ByteBuffer.allocate(1);
        while (all.hasRemaining()) {
            one.clear();
            one.put(all.get()).flip();
            Frame f = d.next(one);
            if (f != null) got.add(f.message());
            assertFalse(one.hasRemaining());
        }
        assertEquals(msgs, got);
        assertFalse(d.hasPartialFrame());
        // and all at once, several frames in one buffer
        all.rewind();
        got.clear();
        Frame f;
        while ((f = d.next(all)) != null) got.add(f.message());
        assertEquals(msgs, got);
    }

    @Test
    void trailingBodyBytesAreIgnored() throws Exception {
        ByteBuffer b = MessageCodec.encode(1, new SetInterval(5));
        ByteBuffer longer = ByteBuffer.allocate(b.remaining() + 3).order(ByteOrder.LITTLE_ENDIAN);
        longer.put(b).put(new byte[] {1, 2, 3}).flip();
        longer.putInt(8, 7);
        assertEquals(new SetInterval(5), new FrameDecoder().next(longer).message());
    }

    private static ProtocolException decodeFails(byte[] frame) {
        return assertThrows(ProtocolException.class, () -> new FrameDecoder().next(ByteBuffer.wrap(frame)));
    }

    private static byte[] frame(int type, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(16 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {'M', 'N', 'C', 'P'}).putShort((short) Protocol.VERSION).putShort((short) type).putInt(body.length).putInt(1);
        b.put(body);
        return b.array();
    }

    @Test
    void wrongMagicOrVersionIsBadFrame() throws Exception {
        byte[] f = MessageCodec.encodeBytes(1, new Ok());
        f[0] = 'X';
        assertEquals(ErrorCode.BAD_FRAME, decodeFails(f).code());
        for (byte version : new byte[] {1, 3}) { // v1 (a secret in HELLO) is refused, as is anything newer
            f = MessageCodec.encodeBytes(1, new Ok());
            f[4] = version;
            assertEquals(ErrorCode.BAD_FRAME, decodeFails(f).code());
        }
        assertEquals(ErrorCode.BAD_FRAME, decodeFails("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII)).code());
    }

    @Test
    void oversizedLengthIsRejectedFromTheHeaderAlone() {
        ByteBuffer h = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        h.put(new byte[] {'M', 'N', 'C', 'P'}).putShort((short) Protocol.VERSION).putShort((short) 0x20).putInt(Protocol.MAX_BODY + 1).putInt(0);
        assertEquals(ErrorCode.TOO_LARGE, decodeFails(h.array()).code());
    }

    @Test
    void preAuthenticationLimitRefusesTheHeaderAndCanBeLifted() throws Exception {
        FrameDecoder d = new FrameDecoder(Protocol.PRE_AUTH_MAX_BODY);
        byte[] big = MessageCodec.encodeBytes(1, new CkptFailed(1, "x".repeat(300)));
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> d.next(ByteBuffer.wrap(java.util.Arrays.copyOf(big, 16))));
        assertEquals(ErrorCode.TOO_LARGE, e.code());
        assertTrue(e.getMessage().contains("before authentication"), e.getMessage());
        FrameDecoder ok = new FrameDecoder(Protocol.PRE_AUTH_MAX_BODY);
        byte[] auth = MessageCodec.encodeBytes(1, new Auth(seq(32, 0), seq(32, 0)));
        assertEquals(16, ok.bytesToFrameEnd());
        assertNull(ok.next(ByteBuffer.wrap(auth, 0, 16)));
        assertEquals(64, ok.bytesToFrameEnd(), "reads stop at the end of this frame");
        assertInstanceOf(Auth.class, ok.next(ByteBuffer.wrap(auth, 16, 64)).message());
        ok.maxBody(Protocol.MAX_BODY);
        ByteBuffer b = ByteBuffer.wrap(big);
        Frame f = null;
        while (b.hasRemaining()) { // one byte at a time: the buffer grows with what arrives
            ByteBuffer one = ByteBuffer.wrap(big, b.position(), 1);
            b.position(b.position() + 1);
            f = ok.next(one);
            if (b.hasRemaining()) assertNull(f);
        }
        assertEquals(new CkptFailed(1, "x".repeat(300)), f.message());
    }

    @Test
    void unknownTypeIsProtocolError() {
        assertEquals(ErrorCode.PROTOCOL, decodeFails(frame(0x33, new byte[0])).code());
    }

    @Test
    void truncatedBodiesAreBadFrame() throws Exception {
        // SET_INTERVAL with 2 of its 4 bytes
        assertEquals(ErrorCode.BAD_FRAME, decodeFails(frame(0x57, new byte[] {1, 0})).code());
        // a str whose count runs past the body
        assertEquals(ErrorCode.BAD_FRAME, decodeFails(frame(0x14, new byte[] {1, 0, 0, 0, 10, 0, 'a'})).code());
        // every proper prefix of every sample body that is shorter than its fields
        for (Message m : samples()) {
            byte[] full = MessageCodec.encodeBytes(1, m);
            int older = olderStatusReplyEnd(m);
            for (int cut = 16; cut < full.length; cut++) {
                if (cut == older) continue; // a whole reply of an older coordinator (the test below)
                byte[] body = java.util.Arrays.copyOfRange(full, 16, cut);
                ProtocolException e = decodeFails(frame(m.type().code, body));
                assertEquals(ErrorCode.BAD_FRAME, e.code(), m.type() + " cut at " + cut);
            }
        }
    }

    /** Where a STATUS_REPLY of the first v2 coordinators ends (before the refused ranks), else -1. */
    static int olderStatusReplyEnd(Message m) throws ProtocolException {
        if (!(m instanceof StatusReply r)) return -1;
        StatusReply none = new StatusReply(r.job(), r.nranks(), r.connected(), r.generation(), r.checkpointing(),
                r.lastCkptUnixMs(), r.lastCkptNs(), r.lastCkptBytes(), r.lastCkptDir(), r.interval());
        return MessageCodec.encodeBytes(1, none).length - 4;   // without the u32 count of refused ranks
    }

    @Test
    void aStatusReplyEndsWithItsRefusedRanksAndOneFromAnOlderCoordinatorHasNone() throws Exception {
        StatusReply r = new StatusReply("j", 1, 1, 0, false, 0, 0, 0, "", 0,
                List.of(new RefusedEntry(1, 1, "h", 0x01020304, "x")));
        byte[] b = MessageCodec.encodeBytes(1, r);
        // ... interval u32, then count u32 1, rank i32 1, nranks i32 1, host str "h", pid i32, reason str "x"
        assertArrayEquals(new byte[] {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 'h', 4, 3, 2, 1, 1, 0, 'x'},
                java.util.Arrays.copyOfRange(b, b.length - 26, b.length));
        int older = olderStatusReplyEnd(r);
        byte[] olderBody = java.util.Arrays.copyOfRange(b, 16, older);
        StatusReply got = (StatusReply) new FrameDecoder().next(ByteBuffer.wrap(frame(0x53, olderBody))).message();
        assertEquals(List.of(), got.refused());
        assertEquals(new StatusReply("j", 1, 1, 0, false, 0, 0, 0, "", 0), got);
        // a count beyond what the body holds is malformed
        byte[] cut = java.util.Arrays.copyOfRange(b, 16, b.length - 1);
        assertEquals(ErrorCode.BAD_FRAME, decodeFails(frame(0x53, cut)).code());
    }

    @Test
    void limitsOnStringsBlobsAndValues() throws Exception {
        ByteBuffer s = ByteBuffer.allocate(4 + 2 + 5000).order(ByteOrder.LITTLE_ENDIAN);
        s.putInt(1).putShort((short) 5000).put(new byte[5000]);
        assertEquals(ErrorCode.TOO_LARGE, decodeFails(frame(0x14, s.array())).code());
        ByteBuffer v = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        v.putInt(1).putShort((short) 1).put((byte) 1).put((byte) 0).putInt(Protocol.MAX_VALUES + 1);
        assertEquals(ErrorCode.TOO_LARGE, decodeFails(frame(0x10, v.array())).code());
        ByteBuffer bl = ByteBuffer.allocate(2 + 1 + 4).order(ByteOrder.LITTLE_ENDIAN);
        bl.putShort((short) 1).put((byte) 'k').putInt(Protocol.MAX_BLOB + 1);
        assertEquals(ErrorCode.TOO_LARGE, decodeFails(frame(0x20, bl.array())).code());
        assertThrows(ProtocolException.class, () -> MessageCodec.encode(1, new CkptFailed(1, "x".repeat(5000))));
        assertThrows(ProtocolException.class, () -> MessageCodec.encode(1, new Collective(1, 1, 1, new long[5000])));
    }

    @Test
    void invalidUtf8IsBadFrame() {
        ByteBuffer b = ByteBuffer.allocate(4 + 2 + 2).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(1).putShort((short) 2).put((byte) 0xC3).put((byte) 0x28);
        assertEquals(ErrorCode.BAD_FRAME, decodeFails(frame(0x14, b.array())).code());
    }

    @Test
    void dispatcherRoutesToTheHandlerMethodAndRejectsTheRest() throws Exception {
        List<String> seen = new ArrayList<>();
        MessageHandler h = new MessageHandler() {
            @Override public void onSetInterval(int id, SetInterval m) { seen.add(id + ":" + m.seconds()); }
        };
        new MessageDispatcher(h).dispatch(new Frame(4, new SetInterval(9)));
        assertEquals(List.of("4:9"), seen);
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> MessageDispatcher.dispatch(new Frame(1, new Quit()), h));
        assertEquals(ErrorCode.PROTOCOL, e.code());
    }
}
