package dev.mana.coordinator;

import static org.junit.jupiter.api.Assertions.*;

import dev.mana.coordinator.protocol.Protocol;
import dev.mana.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Strangers cannot hurt the coordinator (issue 9): frames announced before authentication are
 * refused from their header, and a crowd of idle connections neither stalls an authenticated
 * client nor stays open. Figures go to stdout for docs/benchmarks.md.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PreAuthTest {
    @TempDir Path tmp;

    /**
     * 1,000 connections each announcing a 1 MiB frame and sending 4 KiB of it, against a
     * coordinator in its own JVM with a 48 MiB heap: it must answer each with an ERROR and stay up
     * (before the pre-authentication limit it died with OutOfMemoryError).
     */
    @Test
    void framesAnnouncedByStrangersAllocateNothing() throws Exception {
        Path rc = tmp.resolve("rc");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-XX:+UseSerialGC", "-Xms16m", "-Xmx48m", "-XX:+ExitOnOutOfMemoryError",
                "-cp", System.getProperty("java.class.path"), "dev.mana.coordinator.cli.CoordinatorCommand",
                "--foreground", "-q", "-p", "0", "--bind", "127.0.0.1", "--no-exit-on-last", "--status-file", rc.toString())
                .redirectErrorStream(true).redirectOutput(tmp.resolve("coordinator.log").toFile()).start();
        try {
            Await.until(Duration.ofSeconds(30), "the coordinator's status file " + rc, () -> {
                assertTrue(p.isAlive(), "coordinator died: " + Files.readString(tmp.resolve("coordinator.log")));
                return Files.exists(rc);
            }, null);
            StatusFile sf = StatusFile.read(rc);
            CoordinatorAddress addr = new CoordinatorAddress("127.0.0.1", sf.port(), sf.secret(), "test");
            int n = 1000;
            ByteBuffer frame = ByteBuffer.allocate(16 + 4096).order(ByteOrder.LITTLE_ENDIAN);
            frame.put(new byte[] {'M', 'N', 'C', 'P'}).putShort((short) Protocol.VERSION).putShort((short) 0x20)
                    .putInt(1 << 20).putInt(1);
            List<Socket> flood = new ArrayList<>();
            long t0 = System.nanoTime();
            try {
                for (int i = 0; i < n; i++) {
                    Socket s = new Socket();
                    flood.add(s);
                    s.connect(new InetSocketAddress("127.0.0.1", sf.port()), 5000);
                    s.setSoTimeout(10_000);
                    s.getOutputStream().write(frame.array());
                }
                int refused = 0;
                for (Socket s : flood) if (answeredAndClosed(s.getInputStream())) refused++;
                long rss = rssKiB(p.pid());
                System.out.printf("pre-auth flood: %d connections announcing 1 MiB each: %d refused and closed in %.2f s;"
                        + " coordinator RSS %d MiB (heap limit 48 MiB)%n", n, refused, (System.nanoTime() - t0) / 1e9,
                        rss / 1024);
                assertEquals(n, refused, "every stranger's frame is refused from its header");
            } finally {
                for (Socket s : flood) s.close();
            }
            assertTrue(p.isAlive(), "coordinator alive: " + Files.readString(tmp.resolve("coordinator.log")));
            try (CoordinatorClient cl = CoordinatorClient.connect(addr, "")) {
                assertEquals(0, cl.status().nranks());
                cl.quit();
            }
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), Files.readString(tmp.resolve("coordinator.log")));
        } finally {
            p.destroyForcibly();
        }
    }

    /** Reads up to EOF: true when the peer wrote something (its ERROR) and then closed. */
    private static boolean answeredAndClosed(InputStream in) throws IOException {
        int total = 0;
        byte[] b = new byte[4096];
        try {
            for (int r; (r = in.read(b)) >= 0;) total += r;
        } catch (java.net.SocketException e) {
            // reset after the close: the ERROR may or may not have been read first
            return true;
        }
        return total > 0;
    }

    private static long rssKiB(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("\\D", ""));
        }
        return -1;
    }

    /**
     * 5,000 idle connections from another address (127.0.0.2) opened as fast as one thread can, while an authenticated control
     * client asks STATUS every 5 ms and fresh clients connect: nothing waits long, the
     * coordinator starts no more handshakes than its per-address limit and holds no more waiting
     * connections than its held limit (the rest are refused as they come).
     */
    @Test
    void idleStrangersNeitherStallClientsNorStay() throws Exception {
        int perAddress = 256, heldPerAddress = 1024;
        try (Coordinator c = Coordinator.builder().port(0).bindHost("127.0.0.1").maxUnauthenticated(1024, perAddress)
                .maxHeld(4096, heldPerAddress).build().start()) {
            CoordinatorAddress addr = c.loopbackAddress();
            AtomicLong worstStatusNs = new AtomicLong();
            AtomicLong worstConnectNs = new AtomicLong();
            AtomicLong probes = new AtomicLong();
            Thread probe;
            List<Socket> idle = new ArrayList<>();
            int n = 5000;
            try (CoordinatorClient cl = CoordinatorClient.connect(addr, "")) {
                volatile_stop = false;
                probe = new Thread(() -> {
                    try {
                        while (!volatile_stop) {
                            long t = System.nanoTime();
                            cl.status();
                            worstStatusNs.accumulateAndGet(System.nanoTime() - t, Math::max);
                            if (probes.incrementAndGet() % 20 == 0) {
                                t = System.nanoTime();
                                try (CoordinatorClient fresh = CoordinatorClient.connect(addr, "", Duration.ofSeconds(10))) {
                                    fresh.status();
                                }
                                worstConnectNs.accumulateAndGet(System.nanoTime() - t, Math::max);
                            }
                            Thread.sleep(5);
                        }
                    } catch (Exception e) {
                        probeFailure = e;
                    }
                }, "status-probe");
                probe.start();
                long t0 = System.nanoTime();
                try {
                    for (int i = 0; i < n; i++) {
                        Socket s = new Socket();
                        idle.add(s);
                        s.bind(new InetSocketAddress(FLOOD_SOURCE, 0));
                        s.connect(new InetSocketAddress("127.0.0.1", c.port()), 5000);
                    }
                    long opened = System.nanoTime() - t0;
                    // the probe first: its own fresh connection is unauthenticated for the moment of its
                    // handshake, and counted with the flood's it made 257 once (a loaded machine)
                    volatile_stop = true;
                    probe.join(20_000);
                    int held = c.unauthenticatedCount().get(10, TimeUnit.SECONDS);
                    int waiting = c.heldCount().get(10, TimeUnit.SECONDS);
                    System.out.printf("idle flood: %d idle connections opened in %.2f s; %d handshakes started (limit %d"
                            + " per address), %d held (limit %d); worst authenticated STATUS %.1f ms over %d probes,"
                            + " worst fresh connect+AUTH+STATUS %.1f ms%n", n, opened / 1e9, held, perAddress, waiting,
                            heldPerAddress, worstStatusNs.get() / 1e6, probes.get(), worstConnectNs.get() / 1e6);
                    assertNull(probeFailure, () -> "probe failed: " + probeFailure);
                    assertTrue(held <= perAddress, held + " handshakes started");
                    assertTrue(waiting <= heldPerAddress, waiting + " connections held");
                    assertTrue(probes.get() > 10, "the probe ran");
                    // Behaviour, not speed: every probe completed and none waited for good. The latency
                    // figures (printed above) belong to docs/benchmarks.md; a bound tight enough to measure
                    // them fails on a loaded machine (a 2 s bound failed at load average 15).
                    assertTrue(worstStatusNs.get() < 20_000_000_000L, "an authenticated client waited "
                            + worstStatusNs.get() / 1_000_000 + " ms");
                    assertTrue(worstConnectNs.get() < 20_000_000_000L, "a fresh client waited "
                            + worstConnectNs.get() / 1_000_000 + " ms");
                    assertEquals(0, cl.status().nranks());
                } finally {
                    volatile_stop = true;
                    for (Socket s : idle) s.close();
                }
            }
        }
    }

    /*
     * The flood comes from another loopback address than the clients. From the same address a
     * fresh client waits behind the flood's queue (backpressure: no started handshake is closed for
     * others, PreAuthBackpressureTest); the start slots are shared out in turn over the addresses,
     * so a flood cannot delay legitimate clients at other addresses, which is what this test proves.
     */
    private static final InetAddress FLOOD_SOURCE = floodSource();

    private static InetAddress floodSource() {
        try {
            return InetAddress.getByName("127.0.0.2");
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static volatile boolean volatile_stop;
    private static volatile Exception probeFailure;
}
