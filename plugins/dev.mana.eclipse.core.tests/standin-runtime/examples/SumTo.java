import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * Test program for the stand-in runtime: adds 1..N, one number per step, printing progress, then
 * the sum. It is its own checkpoint runtime: a rank client of the coordinator protocol
 * (docs/coordinator-protocol.md) that writes its state (step, sum) as its image and resumes from
 * one when MANA_RESTART_IMAGE is set.
 */
public class SumTo {
    static final Object USER = new Object(); // held by the "user thread" for each step
    static long n, step, sum, delayMs;
    static int rank, nranks, generation;
    static String program, args, ckptdir;
    static Socket sock;
    static InputStream in;
    static OutputStream out;
    static int reqId = 1;
    static volatile boolean leaving; // said BYE: the connection's end is expected

    public static void main(String[] a) throws Exception {
        program = a[0];
        n = Long.parseLong(a[1]);
        delayMs = a.length > 2 ? Long.parseLong(a[2]) : 50;
        args = a[1] + (a.length > 2 ? " " + a[2] : "");
        rank = Integer.parseInt(env("0", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"));
        nranks = Integer.parseInt(env("1", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "MANA_RANKS"));
        ckptdir = env(System.getProperty("user.dir"), "MANA_CKPTDIR");
        String image = System.getenv("MANA_RESTART_IMAGE");
        boolean restarting = image != null;
        if (restarting) {
            for (String line : ImageWriter.state(Files.readAllBytes(Path.of(image))).split("\n")) {
                if (line.startsWith("step=")) step = Long.parseLong(line.substring(5));
                if (line.startsWith("sum=")) sum = Long.parseLong(line.substring(4));
                if (line.startsWith("generation=")) generation = Integer.parseInt(line.substring(11));
            }
            System.out.println("restarted from " + image + " at step " + step + " (generation " + generation + ")");
        }
        connect(restarting);
        Thread t = new Thread(SumTo::serve, "checkpoint thread");
        t.setDaemon(true);
        t.start();
        while (true) {
            synchronized (USER) {
                if (step >= n) break;
                step++;
                sum += step;
                if (step % 20 == 0) System.out.println("step " + step + "/" + n + ": partial sum " + sum);
            }
            Thread.sleep(delayMs);
        }
        System.out.println("sum(1.." + n + ") = " + sum);
        System.out.flush();
        leaving = true;
        send(0x30, new W().u8(0).i32(0)); // BYE
        sock.close();
    }

    static String env(String dflt, String... names) {
        for (String s : names) {
            String v = System.getenv(s);
            if (v != null && !v.isEmpty()) return v;
        }
        return dflt;
    }

    static void connect(boolean restarting) throws IOException {
        String host = env("localhost", "MANA_COORD_HOST");
        int port = Integer.parseInt(env("7779", "MANA_COORD_PORT"));
        String secret = "";
        String rc = System.getenv("MANA_RC");
        if (rc != null && Files.isRegularFile(Path.of(rc))) {
            for (String line : Files.readAllLines(Path.of(rc))) {
                if (line.startsWith("Secret:")) secret = line.substring(7).trim();
            }
        }
        sock = new Socket(host, port);
        sock.setTcpNoDelay(true);
        in = new BufferedInputStream(sock.getInputStream());
        out = new BufferedOutputStream(sock.getOutputStream());
        // MNCP v2 (docs/coordinator-protocol.md §2): CHALLENGE, AUTH (HMAC over both nonces), AUTH_OK, HELLO
        Frame ch = read();
        if (ch.type != 0x03) fail(ch);
        byte[] theirs = new byte[32], mine = new byte[32];
        ch.b.get(theirs);
        new java.security.SecureRandom().nextBytes(mine);
        send(0x04, new W().put(ByteBuffer.wrap(mine)).put(ByteBuffer.wrap(proof(secret, "MNCP2 client", theirs, mine))));
        Frame ok = read();
        if (ok.type != 0x05) fail(ok);
        byte[] mac = new byte[32];
        ok.b.get(mac);
        if (!java.security.MessageDigest.isEqual(mac, proof(secret, "MNCP2 coordinator", theirs, mine))) {
            System.err.println("the coordinator does not know the secret");
            System.exit(1);
        }
        send(0x01, new W().u8(1).str(env("", "MANA_JOB")).i32(rank).i32(nranks)
            .str(InetAddress.getLocalHost().getHostName()).i32((int) ProcessHandle.current().pid()).str("none")
            .u32(generation).u8(restarting ? 1 : 0).str(Path.of(ckptdir).toAbsolutePath().toString()).str(program));
        Frame f = read();
        if (f.type != 0x02) fail(f);
        if (restarting) {
            for (int phase : new int[] {32, 33, 34}) {
                collective(generation, phase);
            }
        }
    }

    static byte[] proof(String secret, String label, byte[] coordinatorNonce, byte[] clientNonce) {
        try {
            javax.crypto.Mac m = javax.crypto.Mac.getInstance("HmacSHA256");
            byte[] key = secret.getBytes(StandardCharsets.UTF_8);
            m.init(new javax.crypto.spec.SecretKeySpec(key.length == 0 ? new byte[1] : key, "HmacSHA256"));
            m.update(label.getBytes(StandardCharsets.US_ASCII));
            m.update(coordinatorNonce);
            m.update(clientNonce);
            return m.doFinal();
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static void fail(Frame f) {
        if (f.type == 0x7F) {
            int code = f.b.getShort() & 0xffff;
            System.err.println("coordinator error " + code + ": " + str(f.b));
        } else {
            System.err.println("unexpected message 0x" + Integer.toHexString(f.type));
        }
        System.exit(1);
    }

    /** Sends COLLECTIVE (barrier) and waits for its DONE; false when the checkpoint was aborted. */
    static boolean collective(int gen, int phase) throws IOException {
        send(0x10, new W().u32(gen).u16(phase).u8(0).u8(0).u32(0));
        while (true) {
            Frame f = read();
            if (f.type == 0x11) return true;
            if (f.type == 0x41) return false; // CKPT_ABORT
            if (f.type == 0x42) System.exit(0); // KILL
            fail(f);
        }
    }

    /** The checkpoint thread: answers the coordinator. */
    static void serve() {
        try {
            while (true) {
                Frame f = read();
                switch (f.type) {
                    case 0x40 -> {
                        int g = f.b.getInt();
                        int flags = f.b.get() & 0xff;
                        String dir = str(f.b);
                        checkpoint(g, (flags & 1) != 0, dir.isEmpty() ? ckptdir : dir);
                    }
                    case 0x42 -> {
                        System.out.println("killed by the coordinator");
                        System.out.flush();
                        Runtime.getRuntime().halt(0);
                    }
                    case 0x41 -> { /* abort outside a checkpoint: nothing to undo */ }
                    default -> { }
                }
            }
        } catch (IOException e) {
            if (!leaving && System.getenv("MANA_QUIET") == null) System.err.println("coordinator connection lost");
        }
    }

    static void checkpoint(int g, boolean exit, String dir) throws IOException {
        synchronized (USER) { // the user thread is stopped while we hold this
            Path rankDir = Path.of(dir, "ckpt_rank_" + rank);
            Path fin = rankDir.resolve("ckpt_sum_to_gen" + g + ".mana");
            Path tmp = rankDir.resolve("ckpt_sum_to_gen" + g + ".mana.tmp");
            if (!collective(g, 1)) return;
            long pause = Long.parseLong(env("0", "SUMTO_CKPT_DELAY_MS")); // lets a test see the phases
            if (pause > 0) {
                try { Thread.sleep(pause); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
            }
            if (!collective(g, 2)) return;
            if (String.valueOf(rank).equals(System.getenv("SUMTO_CKPT_FAIL_RANK")) && g >= 2) { // for failure tests
                send(0x14, new W().u32(g).str("rank " + rank + ": disk full (simulated)"));
                while (true) { // wait for the abort, then go on
                    Frame f = read();
                    if (f.type == 0x41) return;
                    if (f.type == 0x42) Runtime.getRuntime().halt(0);
                }
            }
            long t0 = System.nanoTime();
            if (!Files.isDirectory(rankDir)) {
                Files.createDirectories(rankDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            StringBuilder img = new StringBuilder("MANA stand-in image\nprogram=" + program + "\nargs=" + args
                + "\nrank=" + rank + "\nnranks=" + nranks + "\ngeneration=" + g + "\nstep=" + step + "\nsum=" + sum + "\n");
            img.append("#".repeat(64 * 1024 - img.length() - 1)).append('\n'); // stands in for memory
            // a real image of our format (the IDE reads its header), the state in its memory region
            byte[] data = ImageWriter.bytes(Path.of(program).getFileName().toString(), rank, nranks, g,
                img.toString().getBytes(StandardCharsets.UTF_8));
            Files.deleteIfExists(tmp);
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(data));
                ch.force(true);
            }
            long bytes = Files.size(tmp);
            send(0x13, new W().u32(g).u64(bytes).u64(System.nanoTime() - t0).str(fin.toString()));
            if (!collective(g, 3)) {
                Files.deleteIfExists(tmp);
                return;
            }
            Files.move(tmp, fin, StandardCopyOption.ATOMIC_MOVE);
            if (!collective(g, 4)) {
                Files.deleteIfExists(fin);
                return;
            }
            generation = g;
            try (var s = Files.list(rankDir)) {
                for (Path p : s.toList()) {
                    String name = p.getFileName().toString();
                    if (!p.equals(fin) && name.matches("ckpt_sum_to_gen\\d+\\.mana")) Files.deleteIfExists(p);
                }
            }
            System.out.println("checkpoint " + g + " written at step " + step);
            if (exit) {
                System.out.println("stopping after checkpoint " + g);
                System.out.flush();
                leaving = true;
                send(0x30, new W().u8(1).i32(0));
                out.flush();
                Runtime.getRuntime().halt(0);
            }
        }
    }

    // ---- framing ----
    record Frame(int type, ByteBuffer b) {}

    static synchronized void send(int type, W body) throws IOException {
        byte[] b = body.bytes();
        ByteBuffer h = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        h.put("MNCP".getBytes(StandardCharsets.US_ASCII)).putShort((short) 2).putShort((short) type)
            .putInt(b.length).putInt(reqId++);
        out.write(h.array());
        out.write(b);
        out.flush();
    }

    static Frame read() throws IOException {
        DataInputStream d = new DataInputStream(in);
        byte[] h = new byte[16];
        d.readFully(h);
        ByteBuffer hb = ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN);
        int type = hb.getShort(6) & 0xffff;
        int len = hb.getInt(8);
        byte[] body = new byte[len];
        d.readFully(body);
        return new Frame(type, ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN));
    }

    static String str(ByteBuffer b) {
        int len = b.getShort() & 0xffff;
        byte[] s = new byte[len];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    static final class W {
        final List<byte[]> parts = new ArrayList<>();
        int size;

        W put(ByteBuffer b) {
            parts.add(b.array());
            size += b.capacity();
            return this;
        }

        ByteBuffer buf(int n) { return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN); }

        W u8(int v) { return put(buf(1).put((byte) v)); }
        W u16(int v) { return put(buf(2).putShort((short) v)); }
        W u32(long v) { return put(buf(4).putInt((int) v)); }
        W i32(int v) { return u32(v); }
        W u64(long v) { return put(buf(8).putLong(v)); }

        W str(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            u16(b.length);
            parts.add(b);
            size += b.length;
            return this;
        }

        byte[] bytes() {
            ByteBuffer all = ByteBuffer.allocate(size);
            for (byte[] p : parts) all.put(p);
            return all.array();
        }
    }

    /**
     * The image: our format v1, written by the tests' shared writer (dev.mana.eclipse.tests.support,
     * on the class path from sum_to), with the state text in its memory region.
     */
    static final class ImageWriter {
        static final String MARK = "MANA stand-in image\n";

        /** The state text that {@link #bytes} stored in an image's memory region. */
        static String state(byte[] image) {
            String s = new String(image, StandardCharsets.ISO_8859_1);
            int from = s.indexOf(MARK);
            if (from < 0) throw new IllegalArgumentException("not a stand-in image");
            int to = s.indexOf('#', from);
            return s.substring(from, to < 0 ? s.length() : to);
        }

        static byte[] bytes(String program, int rank, int nranks, int generation, byte[] content) {
            return dev.mana.eclipse.tests.support.ManaImageWriter.bytes(program, rank, nranks, generation, content);
        }
    }
}
