package dev.mana.dap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.mana.gdb.testsupport.ManaRuntime;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.lsp4j.debug.Capabilities;
import org.eclipse.lsp4j.debug.DisconnectArguments;
import org.eclipse.lsp4j.debug.InitializeRequestArguments;
import org.eclipse.lsp4j.debug.launch.DSPLauncher;
import org.eclipse.lsp4j.debug.services.IDebugProtocolClient;
import org.eclipse.lsp4j.debug.services.IDebugProtocolServer;
import org.eclipse.lsp4j.jsonrpc.Launcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command itself, as an editor runs it: a JVM of its own speaking DAP on stdin/stdout (nothing else
 * may reach stdout), or on a TCP port. Launch attributes that cannot work are refused with a message the
 * client shows; the process ends after the disconnect.
 */
@Timeout(60)
class ManaDapCliTest {
    @TempDir
    Path tmp;

    static Process start(String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ManaDap.class.getName(),
                "--root", ManaRuntime.root().toString()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).start();
    }

    static String error(CompletableFuture<?> f) throws Exception {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause().getMessage();
        }
        return fail("the request succeeded");
    }

    static Capabilities initialize(IDebugProtocolServer s) throws Exception {
        InitializeRequestArguments ia = new InitializeRequestArguments();
        ia.setAdapterID("mana");
        return s.initialize(ia).get(30, TimeUnit.SECONDS);
    }

    @Test
    void stdioSessionRefusesBadLaunchesAndEndsAfterDisconnect() throws Exception {
        Process p = start();
        try {
            Launcher<IDebugProtocolServer> l = DSPLauncher.createClientLauncher(new IDebugProtocolClient() { },
                    p.getInputStream(), p.getOutputStream());
            l.startListening();
            IDebugProtocolServer s = l.getRemoteProxy();
            assertTrue(initialize(s).getSupportsFunctionBreakpoints());

            String e = error(s.threads());
            assertTrue(e.contains("launch or attach first"), e);
            e = error(s.launch(Map.of("request", "launch")));
            assertTrue(e.startsWith("launch: launch needs either \"restartdir\""), e);
            e = error(s.launch(Map.of("restartdir", tmp.resolve("nothere").toString())));
            assertTrue(e.contains("does not exist"), e);
            e = error(s.attach(Map.of("pid", 999_999_999)));
            assertTrue(e.contains("no process 999999999"), e);

            s.disconnect(new DisconnectArguments()).get(30, TimeUnit.SECONDS);
            p.getOutputStream().close();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "mana-dap still runs after the disconnect");
            assertEquals(0, p.exitValue());
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void portMode() throws Exception {
        Process p = start("--port", "0");
        try (BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            String line = err.readLine(); // blocks until the server prints it (or ends: null)
            assertTrue(line != null && line.startsWith("mana-dap: listening on 127.0.0.1:"), String.valueOf(line));
            int port = Integer.parseInt(line.substring(line.lastIndexOf(':') + 1));
            for (int session = 0; session < 2; session++) { // one session per connection, one after the other
                try (Socket so = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    Launcher<IDebugProtocolServer> l = DSPLauncher.createClientLauncher(new IDebugProtocolClient() { },
                            so.getInputStream(), so.getOutputStream());
                    l.startListening();
                    IDebugProtocolServer s = l.getRemoteProxy();
                    assertTrue(initialize(s).getSupportsConfigurationDoneRequest());
                    s.disconnect(new DisconnectArguments()).get(30, TimeUnit.SECONDS);
                }
            }
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
