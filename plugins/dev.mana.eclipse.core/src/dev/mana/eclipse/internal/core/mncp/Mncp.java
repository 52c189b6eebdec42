package dev.mana.eclipse.internal.core.mncp;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Framing of the coordinator protocol (docs/coordinator-protocol.md): 16-byte header, little-endian body. */
public final class Mncp {
    public static final int VERSION = 1;
    public static final int MAX_BODY = 1 << 20;

    public static final int HELLO = 0x01, WELCOME = 0x02;
    public static final int COLLECTIVE = 0x10, COLLECTIVE_DONE = 0x11, CKPT_WRITTEN = 0x13, CKPT_FAILED = 0x14;
    public static final int OK = 0x21;
    public static final int BYE = 0x30;
    public static final int CKPT_REQUEST = 0x40, CKPT_ABORT = 0x41, KILL = 0x42;
    public static final int LIST = 0x50, LIST_REPLY = 0x51, STATUS = 0x52, STATUS_REPLY = 0x53, CHECKPOINT = 0x54,
        CKPT_RESULT = 0x55, CKPT_PROGRESS = 0x56, SET_INTERVAL = 0x57, KILL_JOB = 0x58, QUIT = 0x59;
    public static final int ERROR = 0x7F;

    public static final String[] STATES = {"UNKNOWN", "RUNNING", "SUSPENDED", "DRAINED", "CHECKPOINTED", "COMMITTED",
        "RESTARTING", "EXITED"};

    private Mncp() {}

    public static String stateName(int s) {
        return s >= 0 && s < STATES.length ? STATES[s] : "UNKNOWN(" + s + ")";
    }

    /** A received frame. */
    public record Frame(int type, int requestId, Reader body) {}

    public static void write(OutputStream out, int type, int requestId, Writer body) throws IOException {
        byte[] b = body == null ? new byte[0] : body.toByteArray();
        ByteBuffer h = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        h.put((byte) 'M').put((byte) 'N').put((byte) 'C').put((byte) 'P');
        h.putShort((short) VERSION).putShort((short) type).putInt(b.length).putInt(requestId);
        synchronized (out) {
            out.write(h.array());
            out.write(b);
            out.flush();
        }
    }

    public static Frame read(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        byte[] h = new byte[16];
        try {
            d.readFully(h);
        } catch (EOFException e) {
            throw new EOFException("the coordinator closed the connection");
        }
        ByteBuffer bb = ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN);
        if (h[0] != 'M' || h[1] != 'N' || h[2] != 'C' || h[3] != 'P') {
            throw new IOException("not a coordinator (bad magic)");
        }
        int version = bb.getShort(4) & 0xffff;
        int type = bb.getShort(6) & 0xffff;
        long len = bb.getInt(8) & 0xffffffffL;
        int req = bb.getInt(12);
        if (version != VERSION) {
            throw new IOException("unsupported protocol version " + version);
        }
        if (len > MAX_BODY) {
            throw new IOException("frame too large: " + len);
        }
        byte[] body = new byte[(int) len];
        d.readFully(body);
        return new Frame(type, req, new Reader(body));
    }

    /** Builds a body. */
    public static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteBuffer tmp = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);

        public Writer u8(int v) {
            out.write(v & 0xff);
            return this;
        }

        public Writer u16(int v) {
            tmp.clear();
            tmp.putShort((short) v);
            out.write(tmp.array(), 0, 2);
            return this;
        }

        public Writer u32(long v) {
            tmp.clear();
            tmp.putInt((int) v);
            out.write(tmp.array(), 0, 4);
            return this;
        }

        public Writer i32(int v) {
            return u32(v);
        }

        public Writer u64(long v) {
            tmp.clear();
            tmp.putLong(v);
            out.write(tmp.array(), 0, 8);
            return this;
        }

        public Writer i64(long v) {
            return u64(v);
        }

        public Writer str(String s) {
            byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
            if (b.length > 4096) {
                throw new IllegalArgumentException("string over 4096 bytes");
            }
            u16(b.length);
            out.write(b, 0, b.length);
            return this;
        }

        public Writer blob(byte[] b) {
            u32(b.length);
            out.write(b, 0, b.length);
            return this;
        }

        public byte[] toByteArray() {
            return out.toByteArray();
        }
    }

    /** Reads a body; a body shorter than its fields throws. */
    public static final class Reader {
        private final ByteBuffer b;

        public Reader(byte[] body) {
            b = ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN);
        }

        private void need(int n) throws IOException {
            if (b.remaining() < n) {
                throw new IOException("malformed reply from the coordinator (body ends inside a field)");
            }
        }

        public int u8() throws IOException {
            need(1);
            return b.get() & 0xff;
        }

        public int u16() throws IOException {
            need(2);
            return b.getShort() & 0xffff;
        }

        public long u32() throws IOException {
            need(4);
            return b.getInt() & 0xffffffffL;
        }

        public int i32() throws IOException {
            need(4);
            return b.getInt();
        }

        public long u64() throws IOException {
            need(8);
            return b.getLong();
        }

        public long i64() throws IOException {
            return u64();
        }

        public String str() throws IOException {
            int n = u16();
            need(n);
            byte[] s = new byte[n];
            b.get(s);
            return new String(s, StandardCharsets.UTF_8);
        }

        public byte[] blob() throws IOException {
            long n = u32();
            if (n > b.remaining()) {
                throw new IOException("malformed reply from the coordinator (blob)");
            }
            byte[] s = new byte[(int) n];
            b.get(s);
            return s;
        }
    }
}
