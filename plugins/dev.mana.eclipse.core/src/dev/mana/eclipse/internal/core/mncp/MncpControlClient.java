package dev.mana.eclipse.internal.core.mncp;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.mana.eclipse.core.CheckpointProgress;
import dev.mana.eclipse.core.CheckpointResult;
import dev.mana.eclipse.core.CoordinatorEndpoint;
import dev.mana.eclipse.core.JobStatus;
import dev.mana.eclipse.core.RankInfo;

/**
 * A control client of the coordinator (what {@code mana_status} does), written from
 * docs/coordinator-protocol.md. One connection per call: calls are rare and the coordinator is near.
 */
public final class MncpControlClient {

    private static final AtomicInteger IDS = new AtomicInteger(1);
    private final CoordinatorEndpoint endpoint;
    private final String job;
    private final int connectTimeoutMillis;

    public MncpControlClient(CoordinatorEndpoint endpoint, String job) {
        this(endpoint, job, 5000);
    }

    public MncpControlClient(CoordinatorEndpoint endpoint, String job, int connectTimeoutMillis) {
        this.endpoint = endpoint;
        this.job = job == null ? "" : job;
        this.connectTimeoutMillis = connectTimeoutMillis;
    }

    /** An open, authenticated control connection. */
    private final class Conn implements AutoCloseable {
        final Socket s;
        final InputStream in;
        final OutputStream out;

        Conn(int readTimeoutMillis) throws IOException {
            s = new Socket();
            try {
                s.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), connectTimeoutMillis);
                s.setTcpNoDelay(true);
                s.setSoTimeout(readTimeoutMillis);
                in = new BufferedInputStream(s.getInputStream());
                out = new BufferedOutputStream(s.getOutputStream());
                Mncp.write(out, Mncp.HELLO, IDS.getAndIncrement(),
                    new Mncp.Writer().str(endpoint.secret()).u8(2).str(job));
                Mncp.Frame f = Mncp.read(in);
                check(f, Mncp.WELCOME);
            } catch (IOException e) {
                s.close();
                throw new IOException("cannot reach coordinator at " + endpoint + ": " + e.getMessage(), e);
            }
        }

        Mncp.Frame call(int type, Mncp.Writer body, int replyType) throws IOException {
            Mncp.write(out, type, IDS.getAndIncrement(), body);
            Mncp.Frame f = Mncp.read(in);
            check(f, replyType);
            return f;
        }

        @Override
        public void close() {
            try {
                s.close();
            } catch (IOException e) {
                // closing
            }
        }
    }

    private static void check(Mncp.Frame f, int expected) throws IOException {
        if (f.type() == Mncp.ERROR) {
            int code = f.body().u16();
            String msg = f.body().str();
            throw new CoordinatorException(code, msg);
        }
        if (f.type() != expected) {
            throw new IOException("unexpected reply type 0x" + Integer.toHexString(f.type()) + " from the coordinator");
        }
    }

    public List<RankInfo> list() throws IOException {
        try (Conn c = new Conn(10_000)) {
            return readList(c.call(Mncp.LIST, null, Mncp.LIST_REPLY).body());
        }
    }

    public JobStatus status() throws IOException {
        try (Conn c = new Conn(10_000)) {
            return readStatus(c.call(Mncp.STATUS, null, Mncp.STATUS_REPLY).body());
        }
    }

    /** LIST and STATUS over one connection (the job view polls this). */
    public Snapshot snapshot() throws IOException {
        try (Conn c = new Conn(10_000)) {
            List<RankInfo> ranks = readList(c.call(Mncp.LIST, null, Mncp.LIST_REPLY).body());
            JobStatus st = readStatus(c.call(Mncp.STATUS, null, Mncp.STATUS_REPLY).body());
            return new Snapshot(ranks, st);
        }
    }

    /** Ranks and summary at one moment. */
    public record Snapshot(List<RankInfo> ranks, JobStatus status) {}

    public CheckpointResult checkpoint(boolean exit, Consumer<CheckpointProgress> progress) throws IOException {
        try (Conn c = new Conn(0)) {
            Mncp.write(c.out, Mncp.CHECKPOINT, IDS.getAndIncrement(), new Mncp.Writer().u8((exit ? 1 : 0) | 2));
            while (true) {
                Mncp.Frame f = Mncp.read(c.in);
                if (f.type() == Mncp.CKPT_PROGRESS) {
                    Mncp.Reader r = f.body();
                    CheckpointProgress p = new CheckpointProgress(r.u32(), Mncp.stateName(r.u8()), (int) r.u32(),
                        (int) r.u32());
                    if (progress != null) {
                        progress.accept(p);
                    }
                    continue;
                }
                check(f, Mncp.CKPT_RESULT);
                Mncp.Reader r = f.body();
                boolean ok = r.u8() == 1;
                long gen = r.u32();
                long ns = r.u64();
                long bytes = r.u64();
                int ranks = (int) r.u32();
                String dir = r.str();
                String msg = r.str();
                return new CheckpointResult(ok, gen, ns, bytes, ranks, dir, msg);
            }
        }
    }

    public void setInterval(int seconds) throws IOException {
        try (Conn c = new Conn(10_000)) {
            c.call(Mncp.SET_INTERVAL, new Mncp.Writer().u32(seconds), Mncp.OK);
        }
    }

    public void killJob() throws IOException {
        try (Conn c = new Conn(10_000)) {
            c.call(Mncp.KILL_JOB, null, Mncp.OK);
        }
    }

    public void quit() throws IOException {
        try (Conn c = new Conn(10_000)) {
            c.call(Mncp.QUIT, null, Mncp.OK);
        }
    }

    private static List<RankInfo> readList(Mncp.Reader r) throws IOException {
        long n = r.u32();
        List<RankInfo> l = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            int rank = r.i32();
            String host = r.str();
            int pid = r.i32();
            int state = r.u8();
            long gen = r.u32();
            String mpi = r.str();
            r.u32(); // client id
            l.add(new RankInfo(rank, host, pid, Mncp.stateName(state), gen, mpi));
        }
        l.sort((a, b) -> Integer.compare(a.rank(), b.rank()));
        return l;
    }

    private static JobStatus readStatus(Mncp.Reader r) throws IOException {
        String job = r.str();
        int nranks = r.i32();
        int connected = (int) r.u32();
        long gen = r.u32();
        boolean ck = r.u8() != 0;
        long lastMs = r.i64();
        long lastNs = r.u64();
        long lastBytes = r.u64();
        String lastDir = r.str();
        int interval = (int) r.u32();
        return new JobStatus(job, nranks, connected, gen, ck, lastMs, lastNs, lastBytes, lastDir, interval);
    }

    /** An ERROR frame from the coordinator. */
    public static final class CoordinatorException extends IOException {
        private static final long serialVersionUID = 1L;
        private final int code;

        public CoordinatorException(int code, String message) {
            super(message);
            this.code = code;
        }

        public int code() {
            return code;
        }
    }
}
