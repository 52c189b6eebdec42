package dev.mana.mpidiag.lsp;

import org.eclipse.lsp4j.launch.LSPLauncher;
import org.eclipse.lsp4j.services.LanguageClient;
import org.eclipse.lsp4j.jsonrpc.Launcher;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;

/**
 * bin/mana-lsp: the language server on stdin/stdout. Standard output carries only LSP messages, so
 * System.out is pointed at standard error before anything can print.
 */
public final class ManaLsp {
    private ManaLsp() {
    }

    public static void main(String[] args) throws InterruptedException {
        InputStream in = System.in;
        OutputStream out = System.out;
        System.setOut(new PrintStream(System.err, true));
        Path root = dev.mana.mpidiag.cli.ManaLint.installRoot();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--stdio")) {
                continue; // what editors pass; stdio is the only transport
            }
            if (args[i].equals("--version")) {
                System.err.println("mana-lsp 0.1.0");
                System.exit(0);
            }
        }
        ManaLanguageServer[] server = new ManaLanguageServer[1];
        server[0] = new ManaLanguageServer(root, () -> System.exit(server[0].shutdownReceived() ? 0 : 1));
        Launcher<LanguageClient> launcher = LSPLauncher.createServerLauncher(server[0], in, out);
        server[0].connect(launcher.getRemoteProxy());
        try {
            launcher.startListening().get();
        } catch (ExecutionException e) {
            System.err.println("mana-lsp: " + e.getCause());
            System.exit(1);
        }
        // the client closed the connection without exit
        System.exit(server[0].shutdownReceived() ? 0 : 1);
    }
}
