package dev.mana.coordinator;

import dev.mana.coordinator.protocol.Frame;
import dev.mana.coordinator.protocol.FrameDecoder;
import dev.mana.coordinator.protocol.Handshake;
import dev.mana.coordinator.protocol.Message;
import dev.mana.coordinator.protocol.MessageCodec;
import dev.mana.coordinator.protocol.Messages.Auth;
import dev.mana.coordinator.protocol.Messages.AuthOk;
import dev.mana.coordinator.protocol.Messages.Challenge;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A raw protocol client for tests: frames in, frames out. {@link #stranger} has read the
 * coordinator's CHALLENGE and sent nothing; {@link #authenticated} has also passed AUTH.
 */
final class RawClient implements AutoCloseable {
    final Socket s = new Socket();
    final InputStream in;
    Challenge challenge;

    private RawClient(int port) throws IOException {
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(10_000);
        in = s.getInputStream();
    }

    /** Connected, CHALLENGE read, nothing sent. */
    static RawClient stranger(Coordinator c) throws IOException {
        RawClient r = new RawClient(c.port());
        r.challenge = (Challenge) r.read();
        return r;
    }

    /** Connected and authenticated with the coordinator's secret: the next frame to send is HELLO. */
    static RawClient authenticated(Coordinator c) throws IOException {
        RawClient r = stranger(c);
        Message m = r.authenticate(c.secret());
        if (!(m instanceof AuthOk)) throw new IOException("AUTH refused: " + m);
        return r;
    }

    /** Sends AUTH with {@code secret}; returns the answer (AUTH_OK or ERROR). */
    Message authenticate(String secret) throws IOException {
        byte[] mine = Handshake.nonce();
        send(1, new Auth(mine, Handshake.clientProof(Handshake.secretBytes(secret), challenge.nonce(), mine)));
        return read();
    }

    void write(byte[] b) throws IOException { s.getOutputStream().write(b); }

    void send(int id, Message m) throws IOException { write(MessageCodec.encodeBytes(id, m)); }

    Frame readFrame() throws IOException {
        return readFrame(in);
    }

    /** One whole frame from {@code in} (its 16-byte header, then the body it announces); null at the end. */
    static Frame readFrame(InputStream in) throws IOException {
        byte[] h = in.readNBytes(16);
        if (h.length < 16) return null;
        int len = ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN).getInt(8);
        byte[] body = in.readNBytes(len);
        ByteBuffer all = ByteBuffer.allocate(16 + len).put(h).put(body);
        all.flip();
        return new FrameDecoder().next(all);
    }

    Message read() throws IOException {
        Frame f = readFrame();
        return f == null ? null : f.message();
    }

    /** True when the coordinator closed the connection. */
    boolean closedByPeer() throws IOException {
        try {
            return in.read() < 0;
        } catch (java.net.SocketException e) {
            return true;
        }
    }

    @Override public void close() throws IOException { s.close(); }
}
