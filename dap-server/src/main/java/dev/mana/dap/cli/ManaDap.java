package dev.mana.dap.cli;

import dev.mana.dap.ManaDebugServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.lsp4j.debug.services.IDebugProtocolClient;
import org.eclipse.lsp4j.jsonrpc.Launcher;
import org.eclipse.lsp4j.jsonrpc.debug.DebugLauncher;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mana-dap}: the Debug Adapter Protocol server. On stdin/stdout by default (what VS Code's
 * {@code debugAdapterExecutable} and nvim-dap's {@code executable} adapters run), or on a TCP port
 * ({@code --port}: VS Code's {@code debugServer}, nvim-dap's {@code server} adapters), one debug session
 * per connection.
 */
@Command(name = "mana-dap", mixinStandardHelpOptions = true, version = "mana-dap 0.1",
        sortOptions = false, usageHelpAutoWidth = true,
        description = {
            "Debug Adapter Protocol server for one rank of a MANA job per session: restart from a checkpoint "
                    + "with a pause, launch with a pause, or attach; both halves' symbols (docs/debugging.md).",
            "",
            "  mana-dap                 DAP on stdin/stdout (an editor starts it per session)",
            "  mana-dap --port 4711     DAP on 127.0.0.1:4711, one session per connection",
            "",
            "Exit status: 0 after the session (or the server) ends; 1 the port cannot be opened; 2 usage."})
public final class ManaDap implements Callable<Integer> {
    @Option(names = "--port", paramLabel = "PORT",
            description = "Listen on this TCP port instead of using stdin/stdout (0: any free port, printed).")
    Integer port;

    @Option(names = "--host", paramLabel = "ADDR", defaultValue = "127.0.0.1",
            description = "With --port: the address to listen on (default ${DEFAULT-VALUE}; a debugger controls "
                    + "processes, so keep it local).")
    String host;

    @Option(names = "--root", paramLabel = "DIR",
            description = "The MANA installation (bin/mana_restart, ...); default: the one this command is in.")
    Path root;

    @Option(names = "--trace", paramLabel = "FILE",
            description = "Write every DAP message, both ways, to FILE (for debugging the adapter or a client).")
    Path trace;

    private final InputStream stdin;
    private final OutputStream stdout;

    ManaDap(InputStream stdin, OutputStream stdout) {
        this.stdin = stdin;
        this.stdout = stdout;
    }

    @Override
    public Integer call() throws Exception {
        Path r = root != null ? root : installRoot();
        PrintWriter traceOut = trace == null ? null
                : new PrintWriter(Files.newBufferedWriter(trace, StandardCharsets.UTF_8), true);
        if (port == null) {
            serve(stdin, stdout, r, traceOut);
            return 0;
        }
        ServerSocket ss;
        try {
            ss = new ServerSocket(port, 16, InetAddress.getByName(host));
        } catch (IOException e) {
            System.err.println("mana-dap: cannot listen on " + host + ":" + port + ": " + e.getMessage());
            return 1;
        }
        // a client (or a script) reads the port from here when it asked for any free one
        System.err.println("mana-dap: listening on " + host + ":" + ss.getLocalPort());
        AtomicInteger n = new AtomicInteger();
        while (true) {
            Socket s = ss.accept();
            java.lang.Thread t = new java.lang.Thread(() -> {
                try (s) {
                    serve(s.getInputStream(), s.getOutputStream(), r, traceOut);
                } catch (IOException | InterruptedException e) {
                    System.err.println("mana-dap: session ended: " + e.getMessage());
                }
            }, "mana-dap-session-" + n.incrementAndGet());
            t.setDaemon(true);
            t.start();
        }
    }

    /** One debug session on one connection; returns when the client has gone. */
    public static void serve(InputStream in, OutputStream out, Path root, PrintWriter trace) throws InterruptedException {
        ManaDebugServer server = new ManaDebugServer(root);
        // LSP4J's own threads are daemons: the JVM may end with the session (the output pumps of a rank
        // left running are not, and keep it until that rank ends)
        ExecutorService exec = Executors.newCachedThreadPool(rn -> {
            java.lang.Thread t = new java.lang.Thread(rn, "mana-dap-jsonrpc");
            t.setDaemon(true);
            return t;
        });
        DebugLauncher.Builder<IDebugProtocolClient> b = new DebugLauncher.Builder<>();
        b.setLocalService(server).setRemoteInterface(IDebugProtocolClient.class).setInput(in).setOutput(out)
                .setExecutorService(exec);
        if (trace != null) {
            b.traceMessages(trace);
        }
        Launcher<IDebugProtocolClient> launcher = b.create();
        server.connect(launcher.getRemoteProxy());
        try {
            launcher.startListening().get();
        } catch (ExecutionException e) {
            System.err.println("mana-dap: " + e.getCause());
        } finally {
            server.connectionClosed();
            exec.shutdown();
        }
    }

    /** The installation this class runs from: {@code -Dmana.root} (set by bin/mana-dap), else the jar's {@code ../..}. */
    static Path installRoot() {
        String r = System.getProperty("mana.root");
        if (r != null) {
            return Path.of(r).toAbsolutePath().normalize();
        }
        try {
            Path jar = Path.of(ManaDap.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.getParent().getParent().getParent(); // <root>/lib/java/dap-server.jar
        } catch (Exception e) {
            return Path.of(".").toAbsolutePath().normalize();
        }
    }

    public static void main(String[] args) {
        InputStream in = System.in;
        OutputStream out = System.out;
        // stdout carries DAP messages only: anything printed by mistake goes to stderr
        System.setOut(new PrintStream(System.err, true));
        CommandLine cl = new CommandLine(new ManaDap(in, out));
        cl.setOut(new PrintWriter(System.err, true));
        cl.setErr(new PrintWriter(System.err, true));
        cl.setParameterExceptionHandler((ex, a) -> {
            System.err.println("mana-dap: " + ex.getMessage() + " (see mana-dap --help)");
            return 2;
        });
        int rc = cl.execute(args);
        if (rc != 0) {
            System.exit(rc);
        }
        // status 0: return without System.exit, so that output pumps of a rank that was left running
        // (a disconnect without terminate) keep draining its pipes until it ends
    }
}
