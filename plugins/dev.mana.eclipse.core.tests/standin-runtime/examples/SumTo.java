import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
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
import java.util.zip.CRC32C;

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
        send(0x01, new W().str(secret).u8(1).str(env("", "MANA_JOB")).i32(rank).i32(nranks)
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
        h.put("MNCP".getBytes(StandardCharsets.US_ASCII)).putShort((short) 1).putShort((short) type)
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
     * Our image format v1 (docs/image-format.md), as small as is well-formed: the header (rank, nranks,
     * generation, program), one saved anonymous region holding the state, one thread and its (zero)
     * stack, no files, no signal handlers. The same writer as the core tests' ManaImageWriter.
     */
    static final class ImageWriter {
        private static final int PAGE = 4096;

        static final String MARK = "MANA stand-in image\n";

        /** The state text that {@link #bytes} stored in an image's memory region. */
        static String state(byte[] image) {
            String s = new String(image, StandardCharsets.ISO_8859_1);
            int from = s.indexOf(MARK);
            if (from < 0) throw new IllegalArgumentException("not a stand-in image");
            int to = s.indexOf('#', from);
            return s.substring(from, to < 0 ? s.length() : to);
        }

        public static byte[] bytes(String program, int rank, int nranks, int generation, byte[] content) {
            int pages = Math.max(1, (content.length + PAGE - 1) / PAGE);
            byte[] payload = new byte[pages * PAGE];
            System.arraycopy(content, 0, payload, 0, content.length);
            int pid = 4000 + rank;
            long start = 0x555555600000L;
            CRC32C pc = new CRC32C();
            pc.update(payload);
            byte[] name = "[heap]".getBytes(StandardCharsets.UTF_8);
            Out mem = new Out().i64(start).i64(start + payload.length).i32(3).i32(0x2 | 0x10).i64(0).i64(0).i32(0).i32(0)
                .i64(PAGE).i64(payload.length).i32(1).i32(pc.getValue()).i32(name.length).i32(0).bytes(name).pad8()
                .i64(0).i64(pages);
            long fs = 0x7ffff7d8a740L, stackLo = 0x7ffffffde000L, stackHi = 0x7ffffffe2000L, rsp = 0x7ffffffe1000L;
            byte[] stackName = "[stack]".getBytes(StandardCharsets.UTF_8);
            // the thread's stack: mapped, all zero pages (nothing stored)
            mem.i64(stackLo).i64(stackHi).i32(3).i32(0x2 | 0x8).i64(0).i64(0).i32(0).i32(0).i64(0).i64(0).i32(0).i32(0)
                .i32(stackName.length).i32(0).bytes(stackName).pad8();
            Out proc = new Out().i32(pid).i32(pid - 1).i32(pid - 2).i32(pid - 2).i32(022).i32(0x2d0).i64(0x7ffff7ff0000L)
                .i64(0x7ffff7fc2000L).i64(0x7ffff7fc4000L).i64(0x7ffff7fc0000L).i64(0x7ffff7fc2000L)
                .i64(0x7fffff000000L).i64(0x7fffff800000L).i64(0x7ffff7fe3290L);
            for (int i = 0; i < 5; i++) {
                proc.i64(0);
            }
            proc.str("/usr/bin/" + program).str("/tmp").i32(1).i32(0).str(program);
            Out thr = new Out().i32(pid).i32(1).i64(fs).i64(0).i64(fs + 0x2d0).i64(stackLo).i64(stackHi).i64(rsp - 0x400)
                .i64(0).i64(0x1000).i64(fs + 0x9e0).i64(24).i64(0).i64(0).i32(2).i32(0);
            for (int g = 0; g < 23; g++) {
                thr.i64(g == 16 ? 0x555555555123L : g == 15 ? rsp : g == 17 ? 0x246 : 0x1000L * g + pid);
            }
            Out sig = new Out().i32(0).i32(0).i64(0);
            // type, body, count: PROCESS, MEMORY, THREADS, FILES, SIGNALS
            Object[][] secs = {{1, proc.done(), 1}, {2, mem.done(), 2}, {3, thr.done(), 1}, {4, new byte[0], 0},
                {5, sig.done(), 0}};
            ByteArrayOutputStream file = new ByteArrayOutputStream();
            file.writeBytes(new byte[PAGE]);
            file.writeBytes(payload);
            Out table = new Out();
            for (Object[] s : secs) {
                while ((file.size() & 7) != 0) {
                    file.write(0);
                }
                byte[] body = (byte[]) s[1];
                table.i32((Integer) s[0]).i32(1).i64(file.size()).i64(body.length).i32(crc(body)).i32((Integer) s[2]);
                file.writeBytes(body);
            }
            long tableOff = file.size();
            file.writeBytes(table.done());
            byte[] img = file.toByteArray();
            Out h = new Out().bytes("MANAIMG1".getBytes(StandardCharsets.US_ASCII)).i32(1).i32(256).i64(img.length)
                .i64(tableOff).i32(secs.length).i32(32).i32(PAGE).i32(0).i32(rank).i32(nranks).i32(generation).i32(pid)
                .i64(1_764_000_000_000_000_000L + generation).i64(payload.length + (stackHi - stackLo)).i64(payload.length).i32(0).i32(0)
                .bytes(fixed("testhost", 64)).bytes(fixed("openmpi", 16)).bytes(fixed(program, 80));
            byte[] hdr = h.done();
            ByteBuffer.wrap(hdr).order(ByteOrder.LITTLE_ENDIAN).putInt(88, (int) crc(hdr));
            System.arraycopy(hdr, 0, img, 0, hdr.length);
            return img;
        }

        private static long crc(byte[] b) {
            CRC32C c = new CRC32C();
            c.update(b);
            return c.getValue();
        }

        private static byte[] fixed(String s, int n) {
            byte[] b = new byte[n];
            byte[] v = s.getBytes(StandardCharsets.UTF_8);
            System.arraycopy(v, 0, b, 0, Math.min(v.length, n - 1));
            return b;
        }

        /** Little-endian fields, strings as u32 length + bytes padded to 8. */
        private static final class Out {
            private final ByteBuffer b = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);

            Out i32(long v) { b.putInt((int) v); return this; }
            Out i64(long v) { b.putLong(v); return this; }
            Out bytes(byte[] v) { b.put(v); return this; }
            Out pad8() { while ((b.position() & 7) != 0) { b.put((byte) 0); } return this; }
            Out str(String s) {
                byte[] v = s.getBytes(StandardCharsets.UTF_8);
                return i32(v.length).bytes(v).pad8();
            }
            byte[] done() {
                byte[] r = new byte[b.position()];
                b.flip();
                b.get(r);
                return r;
            }
        }
    }
}
