package dev.mana.coordinator;

import dev.mana.coordinator.protocol.ErrorCode;
import dev.mana.coordinator.protocol.Frame;
import dev.mana.coordinator.protocol.Handshake;
import dev.mana.coordinator.protocol.Message;
import dev.mana.coordinator.protocol.MessageCodec;
import dev.mana.coordinator.protocol.Messages.*;
import dev.mana.coordinator.protocol.Protocol;
import dev.mana.coordinator.protocol.ProtocolException;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A control connection to a coordinator: what {@code mana_status} and the IDE use. One request at a
 * time (methods are synchronized). Every failure is a {@link CoordinatorException} with a one-line
 * message: unreachable ({@code cannot reach coordinator at HOST:PORT: REASON}), connection lost, or
 * the coordinator's ERROR.
 */
public final class CoordinatorClient implements AutoCloseable {
    /** Default wait for a reply (checkpoints with wait are not limited unless asked). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final CoordinatorAddress address;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final Welcome welcome;
    private final int timeoutMs;
    private int nextId = 1;

    private CoordinatorClient(CoordinatorAddress address, Socket socket, Duration timeout, String job)
            throws CoordinatorException {
        this.address = address;
        this.socket = socket;
        this.timeoutMs = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        try {
            this.in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            this.out = socket.getOutputStream();
        } catch (IOException e) {
            throw lost(e);
        }
        // protocol §2: the coordinator's CHALLENGE, our AUTH, its AUTH_OK (it knows the secret too),
        // then HELLO and WELCOME. HELLO waits for AUTH_OK: behind a refused AUTH it would be unread
        // at the close, and the reset that makes can destroy the ERROR before we read it.
        Frame f = receive(timeoutMs, Protocol.PRE_AUTH_MAX_BODY); // a stranger until AUTH_OK
        if (!(f.message() instanceof Challenge ch)) throw unexpectedReply(f, "connect");
        byte[] key = Handshake.secretBytes(address.secret());
        byte[] mine = Handshake.nonce();
        int authId = nextId++;
        sendAll(encode(authId, new Auth(mine, Handshake.clientProof(key, ch.nonce(), mine))));
        f = receive(timeoutMs, Protocol.PRE_AUTH_MAX_BODY);
        if (!(f.message() instanceof AuthOk ok)) throw unexpectedReply(f, "AUTH");
        if (!Handshake.matches(Handshake.coordinatorProof(key, ch.nonce(), mine), ok.mac())) {
            throw new CoordinatorException("coordinator at " + address + " does not know the secret (its AUTH_OK "
                    + "proof is wrong)", ErrorCode.AUTH, null);
        }
        int id = nextId++;
        sendAll(encode(id, Hello.control(job)));
        f = receive(timeoutMs);
        if (f.message() instanceof Welcome w) {
            this.welcome = w;
        } else {
            throw unexpectedReply(f, "HELLO");
        }
    }

    /** Connects and authenticates; {@code job} may be empty (the only job). */
    public static CoordinatorClient connect(CoordinatorAddress address, String job) throws CoordinatorException {
        return connect(address, job, DEFAULT_TIMEOUT);
    }

    public static CoordinatorClient connect(CoordinatorAddress address, String job, Duration timeout)
            throws CoordinatorException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            int ms = (int) Math.min(timeout.toMillis(), 10_000);
            s.connect(new InetSocketAddress(address.host(), address.port()), ms);
        } catch (IOException e) {
            closeQuietly(s);
            throw new CoordinatorException("cannot reach coordinator at " + address.host() + ":" + address.port()
                    + ": " + reason(e), null, e);
        }
        try {
            return new CoordinatorClient(address, s, timeout, job == null ? "" : job);
        } catch (CoordinatorException e) {
            closeQuietly(s);
            throw e;
        }
    }

    public CoordinatorAddress address() { return address; }

    /** The job name the coordinator resolved at HELLO (may be empty while no job exists). */
    public String job() { return welcome.job(); }

    public int clientId() { return welcome.clientId(); }

    /** The ranks of the job, by rank. */
    public synchronized List<RankInfo> list() throws CoordinatorException {
        ListReply r = request(new ListRequest(), ListReply.class);
        List<RankInfo> out = new ArrayList<>(r.ranks().size());
        for (RankEntry e : r.ranks()) {
            out.add(new RankInfo(job(), e.rank(), e.host(), e.pid(), RankState.of(e.state()), e.generation(), e.mpi(),
                    e.clientId(), "", ""));
        }
        return out;
    }

    public synchronized JobStatus status() throws CoordinatorException {
        StatusReply r = request(new StatusRequest(), StatusReply.class);
        List<RefusedRank> refused = new ArrayList<>(r.refused().size());
        for (RefusedEntry e : r.refused()) refused.add(new RefusedRank(e.rank(), e.nranks(), e.host(), e.pid(), e.reason()));
        return new JobStatus(r.job(), r.nranks(), r.connected(), r.generation(), r.checkpointing(), r.lastCkptUnixMs(),
                r.lastCkptNs(), r.lastCkptBytes(), r.lastCkptDir(), r.interval(), refused);
    }

    /**
     * Checkpoints the job and waits until it is committed or aborted, with no time limit.
     *
     * @param progress called on this thread as ranks reach each phase; may be null
     */
    public CheckpointResult checkpoint(boolean exitAfter, Consumer<CheckpointProgress> progress)
            throws CoordinatorException {
        return checkpoint(exitAfter, progress, Duration.ZERO);
    }

    /** As {@link #checkpoint(boolean, Consumer)}, giving up after {@code limit} (zero = no limit). */
    public CheckpointResult checkpoint(boolean exitAfter, Consumer<CheckpointProgress> progress,
                                       Duration limit) throws CoordinatorException {
        return checkpoint(exitAfter, 0, progress, limit);
    }

    /**
     * As {@link #checkpoint(boolean, Consumer, Duration)}, with how this checkpoint's images are written:
     * {@code imageFlags} of {@link Protocol#IMAGE_FLAGS} ({@code FLAG_FULL}, {@code FLAG_FORKED},
     * {@code FLAG_UNFORKED}; 0 = as the job was launched).
     */
    public synchronized CheckpointResult checkpoint(boolean exitAfter, int imageFlags, Consumer<CheckpointProgress> progress,
                                                    Duration limit) throws CoordinatorException {
        int id = nextId++;
        send(id, new Checkpoint((exitAfter ? Protocol.FLAG_EXIT_AFTER : 0) | Protocol.FLAG_WAIT
                | (imageFlags & Protocol.IMAGE_FLAGS)));
        long deadline = limit.isZero() ? 0 : System.nanoTime() + limit.toNanos();
        while (true) {
            int wait = 0;
            if (deadline != 0) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) throw new CoordinatorException("checkpoint did not finish within " + limit.toSeconds() + " s");
                wait = (int) Math.max(1, left);
            }
            Frame f = receive(wait);
            Message m = f.message();
            if (m instanceof CkptProgress p) {
                if (progress != null) {
                    progress.accept(new CheckpointProgress(job(), p.generation(), RankState.of(p.state()), p.reached(),
                            p.nranks()));
                }
            } else if (m instanceof CkptResult r && f.requestId() == id) {
                return toResult(r);
            } else {
                throw unexpectedReply(f, "CHECKPOINT");
            }
        }
    }

    /** Asks for a checkpoint and returns at once; {@code ok} means "started". */
    public CheckpointResult startCheckpoint(boolean exitAfter) throws CoordinatorException {
        return startCheckpoint(exitAfter, 0);
    }

    /** As {@link #startCheckpoint(boolean)}, with {@code imageFlags} as for {@link #checkpoint(boolean, int, Consumer, Duration)}. */
    public synchronized CheckpointResult startCheckpoint(boolean exitAfter, int imageFlags) throws CoordinatorException {
        return toResult(request(new Checkpoint((exitAfter ? Protocol.FLAG_EXIT_AFTER : 0) | (imageFlags & Protocol.IMAGE_FLAGS)),
                CkptResult.class));
    }

    /** Interval checkpoints every {@code seconds} (0 = off). */
    public synchronized void setInterval(int seconds) throws CoordinatorException {
        request(new SetInterval(seconds), Ok.class);
    }

    /** Sends KILL to every rank of the job. */
    public synchronized void killJob() throws CoordinatorException {
        request(new KillJob(), Ok.class);
    }

    /** Kills every rank of every job, then the coordinator exits. */
    public synchronized void quit() throws CoordinatorException {
        request(new Quit(), Ok.class);
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }

    private CheckpointResult toResult(CkptResult r) {
        return new CheckpointResult(job(), r.ok(), r.generation(), r.elapsedNs(), r.totalBytes(), r.ranks(), r.dir(),
                r.message());
    }

    private <T extends Message> T request(Message m, Class<T> replyType) throws CoordinatorException {
        int id = nextId++;
        send(id, m);
        while (true) {
            Frame f = receive(timeoutMs);
            if (replyType.isInstance(f.message()) && f.requestId() == id) return replyType.cast(f.message());
            if (f.message() instanceof CkptProgress) continue; // stray progress of an earlier request
            throw unexpectedReply(f, m.type().name());
        }
    }

    private static byte[] encode(int id, Message m) throws CoordinatorException {
        try {
            return MessageCodec.encodeBytes(id, m);
        } catch (ProtocolException e) {
            throw new CoordinatorException(e.getMessage(), e.code(), e);
        }
    }

    private void sendAll(byte[]... frames) throws CoordinatorException {
        try {
            for (byte[] b : frames) out.write(b);
            out.flush();
        } catch (IOException e) {
            throw lost(e);
        }
    }

    private void send(int id, Message m) throws CoordinatorException {
        try {
            ByteBuffer b = MessageCodec.encode(id, m);
            out.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
            out.flush();
        } catch (ProtocolException e) {
            throw new CoordinatorException(e.getMessage(), e.code(), e);
        } catch (IOException e) {
            throw lost(e);
        }
    }

    private Frame receive(int timeoutMillis) throws CoordinatorException {
        return receive(timeoutMillis, Protocol.MAX_BODY);
    }

    private Frame receive(int timeoutMillis, int maxBody) throws CoordinatorException {
        try {
            socket.setSoTimeout(timeoutMillis);
            byte[] header = readFully(Protocol.HEADER_SIZE);
            MessageCodec.Header h = MessageCodec.readHeader(ByteBuffer.wrap(header), maxBody);
            byte[] body = readFully(h.length());
            return new Frame(h.requestId(), MessageCodec.decodeBody(h.type(), ByteBuffer.wrap(body)));
        } catch (SocketTimeoutException e) {
            throw new CoordinatorException("no answer from coordinator at " + address + " within "
                    + timeoutMillis / 1000 + " s", null, e);
        } catch (ProtocolException e) {
            throw new CoordinatorException("bad reply from coordinator at " + address + ": " + e.getMessage(), e.code(), e);
        } catch (IOException e) {
            throw lost(e);
        }
    }

    private byte[] readFully(int n) throws IOException {
        byte[] b = new byte[n];
        int off = 0;
        while (off < n) {
            int r = in.read(b, off, n - off);
            if (r < 0) throw new EOFException("connection closed");
            off += r;
        }
        return b;
    }

    private CoordinatorException unexpectedReply(Frame f, String request) {
        if (f.message() instanceof ErrorMessage e) {
            ErrorCode code = e.errorCode();
            String text = code == ErrorCode.AUTH ? "coordinator at " + address + " refused the secret: " + e.message()
                    : e.message();
            return new CoordinatorException(text, code, null);
        }
        return new CoordinatorException("unexpected " + f.type() + " from coordinator in reply to " + request);
    }

    private CoordinatorException lost(IOException e) {
        return new CoordinatorException("coordinator connection lost (" + address + "): " + reason(e), null, e);
    }

    static String reason(IOException e) {
        String m = e.getMessage();
        if (e instanceof EOFException || m == null) return "connection closed";
        return m;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

}
