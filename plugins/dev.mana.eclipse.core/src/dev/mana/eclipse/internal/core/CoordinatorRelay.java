package dev.mana.eclipse.internal.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;

/**
 * Reaches a batch job's coordinator where the IDE cannot connect to it directly: the Slurm group's command
 * prefix reaches the cluster (the login node), and from there {@code bash}'s {@code /dev/tcp} opens the
 * connection to the coordinator's host and port. The IDE connects to a port of its own on the loopback
 * ({@link #port()}); each connection accepted there is one such command, its standard input and output
 * carrying the connection's bytes both ways. The protocol's own authentication (the secret from the status
 * file) is end to end, so the relay only moves bytes.
 */
final class CoordinatorRelay implements AutoCloseable {
    /** Opens the connection on the cluster's side and copies it to and from standard input and output. */
    static final String CONNECT = "exec 3<>\"/dev/tcp/$0/$1\" || exit 1; cat <&3 & cat >&3; kill $! 2>/dev/null";

    private final SlurmCommands commands;
    private final String host;
    private final int port;
    private final ServerSocket server;
    private volatile boolean closed;

    CoordinatorRelay(SlurmCommands commands, String host, int port) throws IOException {
        this.commands = commands;
        this.host = host;
        this.port = port;
        this.server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "MANA coordinator relay to " + host + ":" + port);
        t.setDaemon(true);
        t.start();
    }

    /** The loopback port that leads to the coordinator. */
    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket s = server.accept();
                relay(s);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    /** One connection: the command on the cluster's side, and two copying threads; either end closing ends both. */
    private void relay(Socket s) {
        Process p;
        try {
            p = commands.start(List.of("bash", "-c", CONNECT, host, Integer.toString(port)));
        } catch (IOException e) {
            closeQuietly(s);
            return;
        }
        Thread err = new Thread(() -> {
            try (InputStream e = p.getErrorStream()) {
                e.transferTo(OutputStream.nullOutputStream()); // a refused connection's line: the client sees EOF
            } catch (IOException e) {
                // ended
            }
        }, "MANA coordinator relay errors");
        err.setDaemon(true);
        err.start();
        copy(s, p, true);
        copy(s, p, false);
    }

    private static void copy(Socket s, Process p, boolean toCluster) {
        Thread t = new Thread(() -> {
            try (InputStream in = toCluster ? s.getInputStream() : p.getInputStream();
                    OutputStream out = toCluster ? p.getOutputStream() : s.getOutputStream()) {
                byte[] buf = new byte[8192];
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one end closed
            } finally {
                closeQuietly(s);
                p.destroy();
            }
        }, "MANA coordinator relay " + (toCluster ? "out" : "in"));
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closed
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closed
        }
    }
}
