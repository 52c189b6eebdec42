/*
 * AttackBench - the coordinator under attack (make bench-attack, through bench_attack.sh).
 *
 * Run as a single-file program against a coordinator that bench_attack.sh started in its own JVM
 * with the daemon's options:  java -cp "lib/java/*" AttackBench.java STATUS_FILE COORD_PID IDLE HOSTILE
 *
 * While an authenticated control client asks STATUS every 5 ms (and every 20th probe a fresh client
 * connects, authenticates and asks STATUS), two threads attack at once:
 *   idle     opens IDLE connections as fast as it can and keeps them open, saying nothing;
 *   hostile  opens HOSTILE connections that each announce a 1 MiB frame and send 4 KiB of it.
 * Then the idle crowd stays open for 3 s more (steady state), and everything is closed.
 * The idle crowd comes from 127.0.0.2 and the hostile connections from 127.0.0.3 (properties
 * attack.idleSource, attack.hostileSource), the probes from 127.0.0.1: the coordinator shares its
 * handshake slots out over the addresses in turn, and a fresh client from the crowd's own address
 * would wait behind the crowd's queue (backpressure, protocol §2), which is no measure of anything.
 * Prints a table per phase (STATUS p50/p99/worst, worst fresh connect, coordinator RSS and the
 * sockets it holds), then one JSON line.  Exit 1 if a probe failed or the coordinator died.
 */
import dev.mana.coordinator.CoordinatorAddress;
import dev.mana.coordinator.CoordinatorClient;
import dev.mana.coordinator.StatusFile;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

public class AttackBench {
    /** Latencies of one phase, in nanoseconds, and the coordinator's peaks during it. */
    static final class Phase {
        final String name;
        final List<Long> status = Collections.synchronizedList(new ArrayList<>());
        final AtomicLong worstConnect = new AtomicLong();
        final AtomicLong peakRssKiB = new AtomicLong();
        final AtomicInteger peakSockets = new AtomicInteger();
        volatile double seconds;

        Phase(String name) { this.name = name; }

        long pct(double p) {
            List<Long> s;
            synchronized (status) { s = new ArrayList<>(status); }
            if (s.isEmpty()) return -1;
            Collections.sort(s);
            return s.get(Math.min(s.size() - 1, (int) Math.ceil(p * s.size()) - 1));
        }
    }

    static volatile Phase current;
    static volatile boolean stop;
    static volatile Throwable probeFailure;

    /** Connections one process holds at most: each process's descriptor limit may be 20,000 or less. */
    static final int PER_PROCESS = 8000;

    static final String IDLE_SOURCE = System.getProperty("attack.idleSource", "127.0.0.2");
    static final String HOSTILE_SOURCE = System.getProperty("attack.hostileSource", "127.0.0.3");

    public static void main(String[] args) throws Exception {
        if (args[0].equals("--hold")) {
            hold(Integer.parseInt(args[1]), Integer.parseInt(args[2]), args[3]);
            return;
        }
        Path rc = Path.of(args[0]);
        long coordPid = Long.parseLong(args[1]);
        int nIdle = Integer.parseInt(args[2]);
        int nHostile = Integer.parseInt(args[3]);
        StatusFile sf = StatusFile.read(rc);
        CoordinatorAddress addr = new CoordinatorAddress("127.0.0.1", sf.port(), sf.secret(), "bench");

        List<Phase> phases = new ArrayList<>();
        try (CoordinatorClient control = CoordinatorClient.connect(addr, "")) {
            Thread probe = new Thread(() -> probeLoop(control, addr), "status-probe");
            Thread sampler = new Thread(() -> sampleLoop(coordPid), "sampler");
            probe.setDaemon(true);
            sampler.setDaemon(true);

            Phase quiet = new Phase("quiet (no attack)");
            phases.add(quiet);
            current = quiet;
            probe.start();
            sampler.start();
            long t0 = System.nanoTime();
            Thread.sleep(2000);
            quiet.seconds = (System.nanoTime() - t0) / 1e9;

            Phase attack = new Phase(String.format(Locale.ROOT, "%,d idle + %,d hostile connections opening", nIdle, nHostile));
            phases.add(attack);
            current = attack;
            // The idle crowd lives in child processes (this one's descriptors would not hold it all).
            List<Process> holders = new ArrayList<>();
            AtomicInteger refused = new AtomicInteger();
            AtomicInteger idleErrors = new AtomicInteger();
            AtomicInteger idleHeld = new AtomicInteger();
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Thread idler = new Thread(() -> {
                List<Thread> readers = new ArrayList<>();
                for (int left = nIdle; left > 0 && !stop; left -= PER_PROCESS) {
                    int k = Math.min(left, PER_PROCESS);
                    try {
                        Process h = new ProcessBuilder(java, "-Xss256k", "-XX:+UseSerialGC", "-cp",
                                System.getProperty("java.class.path"), SOURCE, "--hold", Integer.toString(sf.port()),
                                Integer.toString(k), IDLE_SOURCE).redirectError(ProcessBuilder.Redirect.INHERIT).start();
                        holders.add(h);
                        Thread r = new Thread(() -> {     // "held N errors E" once its connections are open
                            try {
                                String[] w = new java.io.BufferedReader(new java.io.InputStreamReader(
                                        h.getInputStream())).readLine().trim().split(" ");
                                idleHeld.addAndGet(Integer.parseInt(w[1]));
                                idleErrors.addAndGet(Integer.parseInt(w[3]));
                            } catch (Exception e) {
                                idleErrors.addAndGet(k);
                            }
                        });
                        r.start();
                        readers.add(r);
                    } catch (IOException e) {
                        idleErrors.addAndGet(k);
                    }
                }
                for (Thread r : readers) {
                    try { r.join(); } catch (InterruptedException e) { return; }
                }
            }, "idle-flood");
            Thread hostile = new Thread(() -> {
                ByteBuffer frame = ByteBuffer.allocate(16 + 4096).order(ByteOrder.LITTLE_ENDIAN);
                frame.put(new byte[] {'M', 'N', 'C', 'P'}).putShort((short) 2).putShort((short) 0x20)
                        .putInt(1 << 20).putInt(1);
                for (int i = 0; i < nHostile && !stop; i++) {
                    try (Socket s = new Socket()) {
                        s.bind(new InetSocketAddress(HOSTILE_SOURCE, 0));
                        s.connect(new InetSocketAddress("127.0.0.1", sf.port()), 10_000);
                        s.setSoTimeout(15_000);
                        s.getOutputStream().write(frame.array());
                        if (answeredOrClosed(s.getInputStream())) refused.incrementAndGet();
                    } catch (java.net.SocketTimeoutException e) {
                        // neither answered nor closed within 15 s: not refused
                    } catch (IOException e) {
                        refused.incrementAndGet();    // reset by the coordinator: refused too
                    }
                }
            }, "hostile-flood");
            t0 = System.nanoTime();
            idler.start();
            hostile.start();
            idler.join();
            hostile.join();
            attack.seconds = (System.nanoTime() - t0) / 1e9;

            Phase held = new Phase(String.format(Locale.ROOT, "%,d idle connections held open, 3 s", nIdle));
            phases.add(held);
            current = held;
            t0 = System.nanoTime();
            Thread.sleep(3000);
            held.seconds = (System.nanoTime() - t0) / 1e9;

            Phase after = new Phase("after the attack (all closed)");
            phases.add(after);
            for (Process h : holders) h.getOutputStream().close();     // EOF: each holder closes and exits
            for (Process h : holders) h.waitFor();
            current = after;
            t0 = System.nanoTime();
            Thread.sleep(2000);
            after.seconds = (System.nanoTime() - t0) / 1e9;
            stop = true;
            probe.join(30_000);
            sampler.join(5_000);

            System.out.printf(Locale.ROOT, "coordinator under attack: %,d idle connections (from %s) held open by %d"
                    + " processes (%d could not connect), %,d hostile (from %s; %,d refused or reset); probes from"
                    + " 127.0.0.1; coordinator pid %d, load average %s%n", idleHeld.get(), IDLE_SOURCE, holders.size(),
                    idleErrors.get(), nHostile, HOSTILE_SOURCE, refused.get(), coordPid,
                    Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
            System.out.printf("%-52s %8s %9s %9s %9s %11s %10s %9s%n", "phase", "seconds", "STATUS n", "p50 ms",
                    "p99 ms", "worst ms", "fresh ms", "RSS MiB");
            for (Phase p : phases) {
                System.out.printf(Locale.ROOT, "%-52s %8.1f %9d %9.2f %9.2f %11.1f %10.1f %9d   sockets held %d%n",
                        p.name, p.seconds, p.status.size(), p.pct(0.5) / 1e6, p.pct(0.99) / 1e6, p.pct(1.0) / 1e6,
                        p.worstConnect.get() / 1e6, p.peakRssKiB.get() / 1024, p.peakSockets.get());
            }
            if (probeFailure != null) {
                System.out.println("FAIL: the authenticated probe failed: " + probeFailure);
                System.exit(1);
            }
            if (!ProcessHandle.of(coordPid).map(ProcessHandle::isAlive).orElse(false)) {
                System.out.println("FAIL: the coordinator died");
                System.exit(1);
            }
            control.status();     // still answers after everything
            StringBuilder json = new StringBuilder("{");
            json.append(String.format(Locale.ROOT, "\"idle\": %d, \"hostile\": %d, \"refused\": %d", nIdle, nHostile,
                    refused.get()));
            String[] keys = {"quiet", "attack", "held", "after"};
            for (int i = 0; i < phases.size(); i++) {
                Phase p = phases.get(i);
                json.append(String.format(Locale.ROOT, ", \"%s_status_p50_ms\": %.2f, \"%s_status_worst_ms\": %.1f,"
                        + " \"%s_fresh_worst_ms\": %.1f, \"%s_rss_mb\": %d, \"%s_sockets\": %d", keys[i],
                        p.pct(0.5) / 1e6, keys[i], p.pct(1.0) / 1e6, keys[i], p.worstConnect.get() / 1e6, keys[i],
                        p.peakRssKiB.get() / 1024, keys[i], p.peakSockets.get()));
            }
            System.out.println(json.append("}"));
        }
    }

    /** This file, run again as a holder of idle connections. */
    static final String SOURCE = System.getProperty("attack.source", "AttackBench.java");

    /** A holder: opens n idle connections from {@code source}, says "held N errors E", keeps them until stdin closes. */
    static void hold(int port, int n, String source) throws IOException {
        List<Socket> held = new ArrayList<>();
        int errors = 0;
        for (int i = 0; i < n; i++) {
            try {
                Socket s = new Socket();
                s.bind(new InetSocketAddress(source, 0));
                s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
                held.add(s);
            } catch (IOException e) {
                errors++;
            }
        }
        System.out.println("held " + held.size() + " errors " + errors);
        System.out.flush();
        while (System.in.read() >= 0) { }
        for (Socket s : held) s.close();
    }

    /** STATUS every 5 ms on the control connection; every 20th probe a fresh client does AUTH + STATUS. */
    static void probeLoop(CoordinatorClient control, CoordinatorAddress addr) {
        long n = 0;
        try {
            while (!stop) {
                Phase p = current;
                long t = System.nanoTime();
                control.status();
                p.status.add(System.nanoTime() - t);
                if (++n % 20 == 0) {
                    t = System.nanoTime();
                    try (CoordinatorClient fresh = CoordinatorClient.connect(addr, "", Duration.ofSeconds(30))) {
                        fresh.status();
                    }
                    long dt = System.nanoTime() - t;
                    p.worstConnect.accumulateAndGet(dt, Math::max);
                }
                Thread.sleep(5);
            }
        } catch (Throwable e) {
            probeFailure = e;
        }
    }

    /** The coordinator's resident set and the sockets it holds, every 100 ms. */
    static void sampleLoop(long pid) {
        while (!stop) {
            Phase p = current;
            try {
                for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                    if (line.startsWith("VmRSS:")) {
                        long kib = Long.parseLong(line.replaceAll("\\D", ""));
                        p.peakRssKiB.accumulateAndGet(kib, Math::max);
                    }
                }
                int sockets = 0;
                try (var fds = Files.newDirectoryStream(Path.of("/proc/" + pid + "/fd"))) {
                    for (Path fd : fds) {
                        try {
                            if (Files.readSymbolicLink(fd).toString().startsWith("socket:")) sockets++;
                        } catch (IOException gone) {
                            // closed while we looked
                        }
                    }
                }
                int s = sockets;
                p.peakSockets.accumulateAndGet(s, Math::max);
                Thread.sleep(100);
            } catch (IOException | InterruptedException e) {
                return;
            }
        }
    }

    /** True once the peer wrote something (its ERROR) or closed; a read time-out throws. */
    static boolean answeredOrClosed(InputStream in) throws IOException {
        return in.read(new byte[4096]) != 0;
    }
}
