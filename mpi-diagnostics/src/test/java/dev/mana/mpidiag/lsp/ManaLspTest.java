package dev.mana.mpidiag.lsp;

import com.google.gson.JsonObject;
import dev.mana.mpidiag.TestManifest;
import dev.mana.testing.Await;
import org.eclipse.lsp4j.ClientCapabilities;
import org.eclipse.lsp4j.CodeAction;
import org.eclipse.lsp4j.CodeActionContext;
import org.eclipse.lsp4j.CodeActionParams;
import org.eclipse.lsp4j.Diagnostic;
import org.eclipse.lsp4j.DiagnosticSeverity;
import org.eclipse.lsp4j.DidChangeConfigurationParams;
import org.eclipse.lsp4j.DidChangeTextDocumentParams;
import org.eclipse.lsp4j.DidOpenTextDocumentParams;
import org.eclipse.lsp4j.Hover;
import org.eclipse.lsp4j.HoverParams;
import org.eclipse.lsp4j.InitializeParams;
import org.eclipse.lsp4j.InitializedParams;
import org.eclipse.lsp4j.MessageParams;
import org.eclipse.lsp4j.MessageType;
import org.eclipse.lsp4j.Position;
import org.eclipse.lsp4j.PublishDiagnosticsParams;
import org.eclipse.lsp4j.TextDocumentContentChangeEvent;
import org.eclipse.lsp4j.TextDocumentIdentifier;
import org.eclipse.lsp4j.TextDocumentItem;
import org.eclipse.lsp4j.TextEdit;
import org.eclipse.lsp4j.VersionedTextDocumentIdentifier;
import org.eclipse.lsp4j.WindowClientCapabilities;
import org.eclipse.lsp4j.WorkDoneProgressBegin;
import org.eclipse.lsp4j.WorkDoneProgressEnd;
import org.eclipse.lsp4j.WorkspaceFolder;
import org.eclipse.lsp4j.jsonrpc.Launcher;
import org.eclipse.lsp4j.jsonrpc.messages.Either;
import org.eclipse.lsp4j.launch.LSPLauncher;
import org.eclipse.lsp4j.services.LanguageServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real LSP client (LSP4J's client side) drives the server, run as its own JVM
 * (dev.mana.mpidiag.lsp.ManaLsp, what bin/mana-lsp starts) over its standard input and output.
 */
class ManaLspTest {
    @TempDir
    Path dir;

    Process process;
    RecordingClient client;
    LanguageServer server;

    @AfterEach
    void stop() throws Exception {
        if (process != null && process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private void start(JsonObject options) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        process = new ProcessBuilder(java, "-XX:+UseSerialGC", "-Dmana.root=" + dir.resolve("root"),
                "-cp", System.getProperty("java.class.path"), "dev.mana.mpidiag.lsp.ManaLsp", "--stdio")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        client = new RecordingClient();
        Launcher<LanguageServer> l = LSPLauncher.createClientLauncher(client, process.getInputStream(),
                process.getOutputStream());
        l.startListening();
        server = l.getRemoteProxy();
        InitializeParams init = new InitializeParams();
        init.setWorkspaceFolders(List.of(new WorkspaceFolder(dir.resolve("ws").toUri().toString(), "ws")));
        ClientCapabilities caps = new ClientCapabilities();
        WindowClientCapabilities window = new WindowClientCapabilities();
        window.setWorkDoneProgress(true);
        caps.setWindow(window);
        init.setCapabilities(caps);
        init.setInitializationOptions(options);
        var result = server.initialize(init).get(20, TimeUnit.SECONDS);
        assertTrue(result.getCapabilities().getHoverProvider().getLeft());
        server.initialized(new InitializedParams());
    }

    private static JsonObject options(Path manifest, long debounceMs) {
        JsonObject o = new JsonObject();
        o.addProperty("manifest", manifest.toString());
        o.addProperty("debounceMs", debounceMs);
        return o;
    }

    private String open(Path file, String text) throws Exception {
        Files.writeString(file, text);
        String uri = file.toUri().toString();
        server.getTextDocumentService().didOpen(new DidOpenTextDocumentParams(new TextDocumentItem(uri, "c", 1, text)));
        return uri;
    }

    private void change(String uri, int version, String text) {
        server.getTextDocumentService().didChange(new DidChangeTextDocumentParams(
                new VersionedTextDocumentIdentifier(uri, version), List.of(new TextDocumentContentChangeEvent(text))));
    }

    @Test
    void diagnosticsHoverQuickFixConfigurationAndWorkspaceScan() throws Exception {
        Files.createDirectories(dir.resolve("ws/sub"));
        Path lib = dir.resolve("ws/sub/lib.f90");
        Files.writeString(lib, "subroutine s(w)\n  use mpi\n  integer :: w, ierr\n  call MPI_COMM_ACCEPT(w, ierr)\nend subroutine\n");
        start(options(TestManifest.file(), 50));

        // the workspace scan, with $/progress
        PublishDiagnosticsParams scanned = client.await(lib.toUri().toString(), d -> !d.getDiagnostics().isEmpty());
        assertEquals("MPI_COMM_ACCEPT is not supported under checkpointing: " + TestManifest.DYNAMIC,
                scanned.getDiagnostics().get(0).getMessage().getLeft().replace("MPI_Comm_accept", "MPI_COMM_ACCEPT"));
        Await.until(Duration.ofSeconds(20), "the workspace scan's $/progress end",
                () -> client.progress.stream().anyMatch(p -> p.getValue().getLeft() instanceof WorkDoneProgressEnd));
        assertTrue(client.progress.get(0).getValue().getLeft() instanceof WorkDoneProgressBegin);
        assertEquals(List.of("mana-lsp/workspace-scan"), client.progressCreated);

        // open: diagnostics with exact range, severity, code
        String text = "#include <mpi.h>\nvoid f(MPI_Win *w) {\n    MPI_Comm_spawn(0, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, w);\n}\n";
        String uri = open(dir.resolve("ws/main.c"), text);
        PublishDiagnosticsParams first = client.await(uri, d -> d.getVersion() != null && d.getVersion() == 1);
        assertEquals(1, first.getDiagnostics().size());
        Diagnostic d = first.getDiagnostics().get(0);
        assertEquals(DiagnosticSeverity.Error, d.getSeverity());
        assertEquals("mana/unsupported", d.getCode().getLeft());
        assertEquals("mana", d.getSource());
        assertEquals(new Position(2, 4), d.getRange().getStart());
        assertEquals(new Position(2, 18), d.getRange().getEnd());

        // hover on the name
        Hover h = server.getTextDocumentService().hover(new HoverParams(new TextDocumentIdentifier(uri),
                new Position(2, 10))).get(20, TimeUnit.SECONDS);
        String md = h.getContents().getRight().getValue();
        assertTrue(md.contains("**MPI_Comm_spawn**: not supported under checkpointing"), md);
        assertTrue(md.contains(TestManifest.DYNAMIC), md);
        assertTrue(md.contains("mpi-coverage.md"), md);

        // the quick fix inserts the suppression comment; applying it clears the diagnostic
        CodeActionParams cap = new CodeActionParams(new TextDocumentIdentifier(uri), d.getRange(),
                new CodeActionContext(List.of(d)));
        List<Either<org.eclipse.lsp4j.Command, CodeAction>> actions =
                server.getTextDocumentService().codeAction(cap).get(20, TimeUnit.SECONDS);
        assertEquals(1, actions.size());
        CodeAction a = actions.get(0).getRight();
        assertEquals("Ignore MPI_Comm_spawn here (mana-lint: ignore)", a.getTitle());
        TextEdit edit = a.getEdit().getChanges().get(uri).get(0);
        assertEquals(" // mana-lint: ignore MPI_Comm_spawn", edit.getNewText());
        String[] lines = text.split("\n", -1);
        assertEquals(new Position(2, lines[2].length()), edit.getRange().getStart());
        lines[2] = lines[2] + edit.getNewText();
        change(uri, 2, String.join("\n", lines));
        PublishDiagnosticsParams fixed = client.await(uri, p -> p.getVersion() != null && p.getVersion() == 2);
        assertEquals(List.of(), fixed.getDiagnostics());

        // an edit storm is debounced: the last text wins
        for (int v = 3; v <= 7; v++) {
            change(uri, v, "void g(void) {\n" + "  MPI_Close_port(0);\n".repeat(v - 2) + "}\n");
        }
        PublishDiagnosticsParams last = client.await(uri, p -> p.getVersion() != null && p.getVersion() == 7);
        assertEquals(5, last.getDiagnostics().size());

        // configuration: another manifest in which everything is supported
        Path m2 = dir.resolve("m2.json");
        Files.writeString(m2, Files.readString(TestManifest.file()).replace("\"unsupported\"", "\"supported\""));
        JsonObject settings = new JsonObject();
        settings.add("mana", options(m2, 50));
        server.getWorkspaceService().didChangeConfiguration(new DidChangeConfigurationParams(settings));
        assertEquals(List.of(), client.await(uri, p -> p.getDiagnostics().isEmpty()).getDiagnostics());
        assertEquals(List.of(), client.await(lib.toUri().toString(), p -> p.getDiagnostics().isEmpty()).getDiagnostics());

        server.shutdown().get(20, TimeUnit.SECONDS);
        server.exit();
        assertTrue(process.waitFor(20, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue());
    }

    /** The figure of docs/benchmarks.md: diagnostics after an edit in a 10,000-line file. */
    @Test
    void anEditInATenThousandLineFile() throws Exception {
        Files.createDirectories(dir.resolve("ws"));
        start(options(TestManifest.file(), 0));
        StringBuilder sb = new StringBuilder("#include <mpi.h>\n");
        for (int i = 1; i < 9_999; i++) {
            sb.append(i % 100 == 0 ? "  MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD); /* line */\n"
                    : "  x = x * 3 + " + i + "; // arithmetic \"" + i + "\"\n");
        }
        String base = sb.toString();
        String uri = open(dir.resolve("ws/big.c"), base + "}\n");
        client.await(uri, p -> p.getVersion() != null && p.getVersion() == 1);
        long best = Long.MAX_VALUE;
        for (int v = 2; v < 12; v++) {
            String edited = base + (v % 2 == 0 ? "  MPI_Comm_accept(&w);\n" : "") + "}\n";
            long t0 = System.nanoTime();
            change(uri, v, edited);
            int version = v;
            PublishDiagnosticsParams p = client.await(uri, q -> q.getVersion() != null && q.getVersion() == version);
            best = Math.min(best, System.nanoTime() - t0);
            assertEquals(v % 2 == 0 ? 1 : 0, p.getDiagnostics().size());
        }
        System.out.printf("LSP diagnostics after an edit in a 10,000-line file: %.1f ms (best of 10, debounce 0)%n",
                best / 1e6);
        assertTrue(best < TimeUnit.SECONDS.toNanos(2), "took " + best / 1e6 + " ms");
    }

    @Test
    void aMissingManifestIsReportedOnce() throws Exception {
        Files.createDirectories(dir.resolve("ws"));
        start(options(dir.resolve("absent.json"), 0));
        MessageParams m = client.messages.poll(20, TimeUnit.SECONDS);
        assertNotNull(m);
        assertEquals(MessageType.Error, m.getType());
        assertTrue(m.getMessage().startsWith("mana-lsp: MPI coverage manifest not found: "), m.getMessage());
        String uri = open(dir.resolve("ws/a.c"), "void f(void) { MPI_Comm_accept(0); }\n");
        assertEquals(List.of(), client.await(uri, p -> true).getDiagnostics());
    }

    static String cp() {
        return System.getProperty("java.class.path").replace(File.pathSeparatorChar, ':');
    }
}
