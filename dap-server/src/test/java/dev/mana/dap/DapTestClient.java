package dev.mana.dap;

import dev.mana.dap.cli.ManaDap;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.eclipse.lsp4j.debug.BreakpointEventArguments;
import org.eclipse.lsp4j.debug.ContinuedEventArguments;
import org.eclipse.lsp4j.debug.ExitedEventArguments;
import org.eclipse.lsp4j.debug.OutputEventArguments;
import org.eclipse.lsp4j.debug.StoppedEventArguments;
import org.eclipse.lsp4j.debug.TerminatedEventArguments;
import org.eclipse.lsp4j.debug.ThreadEventArguments;
import org.eclipse.lsp4j.debug.launch.DSPLauncher;
import org.eclipse.lsp4j.debug.services.IDebugProtocolClient;
import org.eclipse.lsp4j.debug.services.IDebugProtocolServer;
import org.eclipse.lsp4j.jsonrpc.Launcher;

/**
 * The client side of a DAP connection for the tests: LSP4J's DSP client launcher talking to the real
 * server ({@link ManaDap#serve}, what {@code bin/mana-dap --port} runs per connection) over a loopback
 * socket. Every event is kept in arrival order; tests wait for one with a time-out and fail when it does
 * not come.
 */
final class DapTestClient implements IDebugProtocolClient, AutoCloseable {
    /** The {@code initialized} event (it has no body). */
    record Initialized() {
    }

    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

    private final List<Object> events = new ArrayList<>();
    private final StringBuilder output = new StringBuilder();
    private final ServerSocket listen;
    private final Socket socket;
    private final java.lang.Thread serverThread;
    final IDebugProtocolServer server;

    private DapTestClient(Path root) throws IOException {
        listen = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        serverThread = new java.lang.Thread(() -> {
            try (Socket s = listen.accept()) {
                ManaDap.serve(s.getInputStream(), s.getOutputStream(), root, null);
            } catch (IOException | InterruptedException e) {
                // the test closed the connection
            }
        }, "dap-test-server");
        serverThread.setDaemon(true);
        serverThread.start();
        socket = new Socket(InetAddress.getLoopbackAddress(), listen.getLocalPort());
        Launcher<IDebugProtocolServer> l = DSPLauncher.createClientLauncher(this, socket.getInputStream(),
                socket.getOutputStream());
        l.startListening();
        server = l.getRemoteProxy();
    }

    static DapTestClient connect(Path root) throws IOException {
        return new DapTestClient(root);
    }

    /** The answer to a request, or a failure naming it after {@link #REQUEST_TIMEOUT}. */
    static <T> T get(CompletableFuture<T> f, String what) throws Exception {
        return get(f, what, REQUEST_TIMEOUT);
    }

    static <T> T get(CompletableFuture<T> f, String what, Duration timeout) throws Exception {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("no answer to " + what + " within " + timeout.toSeconds() + " s");
        } catch (ExecutionException e) {
            throw new AssertionError(what + " failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    // ---- events ----------------------------------------------------------------------------------

    private synchronized void add(Object e) {
        events.add(e);
        notifyAll();
    }

    @Override
    public void initialized() {
        add(new Initialized());
    }

    @Override
    public void stopped(StoppedEventArguments a) {
        add(a);
    }

    @Override
    public void continued(ContinuedEventArguments a) {
        add(a);
    }

    @Override
    public void exited(ExitedEventArguments a) {
        add(a);
    }

    @Override
    public void terminated(TerminatedEventArguments a) {
        add(a == null ? new TerminatedEventArguments() : a);
    }

    @Override
    public void thread(ThreadEventArguments a) {
        add(a);
    }

    @Override
    public void breakpoint(BreakpointEventArguments a) {
        add(a);
    }

    @Override
    public void output(OutputEventArguments a) {
        synchronized (this) {
            output.append(a.getOutput());
        }
        add(a);
    }

    /**
     * The first event of {@code type} that matches, at or after position {@code from} of the log: tests
     * pass the position they had before the request that causes it, so an older event never counts.
     */
    synchronized <T> T await(Class<T> type, Predicate<? super T> match, int from, Duration timeout, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int seen = from;
        while (true) {
            for (; seen < events.size(); seen++) {
                Object e = events.get(seen);
                if (type.isInstance(e) && match.test(type.cast(e))) {
                    return type.cast(e);
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no " + what + " within " + timeout.toSeconds() + " s; events: " + summary());
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    <T> T await(Class<T> type, int from, Duration timeout, String what) throws InterruptedException {
        return await(type, x -> true, from, timeout, what);
    }

    /** Waits until the program's output (stdout events) holds a line that starts with {@code prefix}; returns it. */
    synchronized String awaitOutputLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (String l : output.toString().split("\n", -1)) {
                if (l.startsWith(prefix) && output.indexOf(l + "\n") >= 0) {
                    return l;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no output line \"" + prefix + "...\" within " + timeout.toSeconds()
                        + " s; output: " + output);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** The position of the next event: pass it to {@link #await} for events caused after this point. */
    synchronized int mark() {
        return events.size();
    }

    synchronized List<Object> events() {
        return List.copyOf(events);
    }

    synchronized String outputText() {
        return output.toString();
    }

    private String summary() {
        StringBuilder b = new StringBuilder();
        for (Object e : events) {
            if (e instanceof OutputEventArguments o) {
                b.append("\n  output[").append(o.getCategory()).append("] ").append(o.getOutput().stripTrailing());
            } else {
                b.append("\n  ").append(e);
            }
        }
        return b.toString();
    }

    @Override
    public void close() throws Exception {
        // end of input for the server: it ends the session and closes its side, then ours reads EOF
        socket.shutdownOutput();
        serverThread.join(10_000);
        socket.close();
        listen.close();
    }
}
