package dev.mana.mpidiag.lsp;

import com.google.gson.JsonElement;
import dev.mana.mpidiag.CoverageManifest;
import dev.mana.mpidiag.Language;
import dev.mana.mpidiag.Linter;
import dev.mana.mpidiag.ManifestException;
import dev.mana.mpidiag.MpiFunction;
import dev.mana.mpidiag.MpiReference;
import dev.mana.mpidiag.Severity;
import dev.mana.mpidiag.SourceScan;
import dev.mana.mpidiag.SourceWalker;
import org.eclipse.lsp4j.CodeAction;
import org.eclipse.lsp4j.CodeActionKind;
import org.eclipse.lsp4j.CodeActionOptions;
import org.eclipse.lsp4j.CodeActionParams;
import org.eclipse.lsp4j.Command;
import org.eclipse.lsp4j.Diagnostic;
import org.eclipse.lsp4j.DiagnosticSeverity;
import org.eclipse.lsp4j.DidChangeConfigurationParams;
import org.eclipse.lsp4j.DidChangeTextDocumentParams;
import org.eclipse.lsp4j.DidChangeWatchedFilesParams;
import org.eclipse.lsp4j.DidCloseTextDocumentParams;
import org.eclipse.lsp4j.DidOpenTextDocumentParams;
import org.eclipse.lsp4j.DidSaveTextDocumentParams;
import org.eclipse.lsp4j.Hover;
import org.eclipse.lsp4j.HoverParams;
import org.eclipse.lsp4j.InitializeParams;
import org.eclipse.lsp4j.InitializeResult;
import org.eclipse.lsp4j.InitializedParams;
import org.eclipse.lsp4j.MarkupContent;
import org.eclipse.lsp4j.MarkupKind;
import org.eclipse.lsp4j.MessageParams;
import org.eclipse.lsp4j.MessageType;
import org.eclipse.lsp4j.Position;
import org.eclipse.lsp4j.ProgressParams;
import org.eclipse.lsp4j.PublishDiagnosticsParams;
import org.eclipse.lsp4j.Range;
import org.eclipse.lsp4j.SaveOptions;
import org.eclipse.lsp4j.ServerCapabilities;
import org.eclipse.lsp4j.ServerInfo;
import org.eclipse.lsp4j.TextDocumentContentChangeEvent;
import org.eclipse.lsp4j.TextDocumentSyncKind;
import org.eclipse.lsp4j.TextDocumentSyncOptions;
import org.eclipse.lsp4j.TextEdit;
import org.eclipse.lsp4j.WorkDoneProgressBegin;
import org.eclipse.lsp4j.WorkDoneProgressCreateParams;
import org.eclipse.lsp4j.WorkDoneProgressEnd;
import org.eclipse.lsp4j.WorkDoneProgressReport;
import org.eclipse.lsp4j.WorkspaceEdit;
import org.eclipse.lsp4j.WorkspaceFolder;
import org.eclipse.lsp4j.jsonrpc.messages.Either;
import org.eclipse.lsp4j.services.LanguageClient;
import org.eclipse.lsp4j.services.LanguageClientAware;
import org.eclipse.lsp4j.services.LanguageServer;
import org.eclipse.lsp4j.services.TextDocumentService;
import org.eclipse.lsp4j.services.WorkspaceService;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * mana-lsp: diagnostics for MPI calls that cannot be checkpointed (on open, on change after a short
 * debounce, on save, and for the whole workspace at start with $/progress), hover on MPI function
 * names, a quick fix that inserts a {@code mana-lint: ignore} comment, configuration through
 * initializationOptions and workspace/didChangeConfiguration. All linting runs on one thread, in
 * order, so a document's diagnostics are always those of its latest text.
 */
public final class ManaLanguageServer implements LanguageServer, LanguageClientAware, TextDocumentService,
        WorkspaceService {
    static final String SOURCE = "mana";
    private static final String PROGRESS_TOKEN = "mana-lsp/workspace-scan";

    /** An open document: its latest text and language. */
    private static final class Doc {
        final Language language;
        volatile String text;
        volatile int version;

        Doc(Language language, String text, int version) {
            this.language = language;
            this.text = text;
            this.version = version;
        }
    }

    private final Path root;
    private final Runnable onExit;
    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "mana-lsp-lint");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Doc> docs = new ConcurrentHashMap<>();
    private final Map<String, ScheduledFuture<?>> pending = new ConcurrentHashMap<>();
    /** uris the workspace scan published diagnostics for (re-linted on configuration changes) */
    private final Set<String> scanned = ConcurrentHashMap.newKeySet();
    private final List<Path> folders = new ArrayList<>();

    private volatile LanguageClient client;
    private volatile Settings settings;
    private volatile Linter linter;
    private volatile String manifestError;
    private volatile boolean progressSupported;
    private volatile boolean shutdown;

    /** @param root the installation root (default manifest under it); @param onExit what the exit notification does */
    public ManaLanguageServer(Path root, Runnable onExit) {
        this.root = root;
        this.onExit = onExit;
        this.settings = Settings.defaults(root);
    }

    @Override
    public void connect(LanguageClient c) {
        this.client = c;
    }

    @Override
    public CompletableFuture<InitializeResult> initialize(InitializeParams params) {
        settings = settings.with(params.getInitializationOptions());
        if (params.getWorkspaceFolders() != null && !params.getWorkspaceFolders().isEmpty()) {
            for (WorkspaceFolder f : params.getWorkspaceFolders()) {
                toPath(f.getUri()).ifPresent(folders::add);
            }
        } else if (params.getRootUri() != null) {
            toPath(params.getRootUri()).ifPresent(folders::add);
        }
        var caps = params.getCapabilities();
        progressSupported = caps != null && caps.getWindow() != null
                && Boolean.TRUE.equals(caps.getWindow().getWorkDoneProgress());
        loadManifest();

        ServerCapabilities sc = new ServerCapabilities();
        TextDocumentSyncOptions sync = new TextDocumentSyncOptions();
        sync.setOpenClose(true);
        sync.setChange(TextDocumentSyncKind.Full);
        sync.setSave(new SaveOptions(false));
        sc.setTextDocumentSync(sync);
        sc.setHoverProvider(true);
        sc.setCodeActionProvider(new CodeActionOptions(List.of(CodeActionKind.QuickFix)));
        return CompletableFuture.completedFuture(new InitializeResult(sc, new ServerInfo("mana-lsp", "0.1.0")));
    }

    @Override
    public void initialized(InitializedParams params) {
        if (manifestError != null) {
            message(MessageType.Error, manifestError);
        }
        worker.execute(this::scanWorkspace);
    }

    private void loadManifest() {
        Settings s = settings;
        try {
            linter = new Linter(CoverageManifest.read(s.manifest()), s.mpi());
            manifestError = null;
        } catch (ManifestException e) {
            linter = null;
            manifestError = "mana-lsp: " + e.getMessage();
        }
    }

    private void message(MessageType type, String text) {
        LanguageClient c = client;
        if (c != null) {
            c.showMessage(new MessageParams(type, text));
        }
    }

    /** Every C/C++/Fortran file of the workspace folders, once, with $/progress when the client shows it. */
    private void scanWorkspace() {
        if (folders.isEmpty() || linter == null) {
            return;
        }
        List<Path> files;
        try {
            files = SourceWalker.files(folders);
        } catch (IOException e) {
            message(MessageType.Warning, "mana-lsp: workspace scan: " + e.getMessage());
            return;
        }
        boolean progress = progressSupported && startProgress(files.size());
        int done = 0;
        for (Path f : files) {
            String uri = f.toUri().toString();
            if (!docs.containsKey(uri)) {
                lintDisk(f, uri);
                scanned.add(uri);
            }
            done++;
            if (progress && (done % 50 == 0 || done == files.size())) {
                WorkDoneProgressReport r = new WorkDoneProgressReport();
                r.setMessage(done + "/" + files.size() + " files");
                r.setPercentage(files.isEmpty() ? 100 : done * 100 / files.size());
                client.notifyProgress(new ProgressParams(Either.forLeft(PROGRESS_TOKEN), Either.forLeft(r)));
            }
        }
        if (progress) {
            WorkDoneProgressEnd end = new WorkDoneProgressEnd();
            end.setMessage(files.size() + " files checked");
            client.notifyProgress(new ProgressParams(Either.forLeft(PROGRESS_TOKEN), Either.forLeft(end)));
        }
    }

    private boolean startProgress(int total) {
        try {
            client.createProgress(new WorkDoneProgressCreateParams(Either.forLeft(PROGRESS_TOKEN)))
                    .get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return false; // the client refused or did not answer: scan without progress
        }
        WorkDoneProgressBegin b = new WorkDoneProgressBegin();
        b.setTitle("MANA: checking MPI calls");
        b.setMessage(total + " files");
        b.setPercentage(0);
        client.notifyProgress(new ProgressParams(Either.forLeft(PROGRESS_TOKEN), Either.forLeft(b)));
        return true;
    }

    private void lintDisk(Path f, String uri) {
        Optional<Language> lang = Language.of(f);
        if (lang.isEmpty()) {
            return;
        }
        try {
            publish(uri, null, lint(uri, Linter.readSource(f), lang.get()));
        } catch (IOException e) {
            publish(uri, null, List.of()); // gone or unreadable: nothing to say about it
        }
    }

    private List<Diagnostic> lint(String uri, String text, Language lang) {
        Linter l = linter;
        if (l == null) {
            return List.of();
        }
        List<Diagnostic> out = new ArrayList<>();
        for (dev.mana.mpidiag.Diagnostic d : l.lint(uri, SourceScan.of(text, lang))) {
            out.add(toLsp(d));
        }
        return out;
    }

    static Diagnostic toLsp(dev.mana.mpidiag.Diagnostic d) {
        var r = d.range();
        Diagnostic x = new Diagnostic(new Range(new Position(r.startLine(), r.startColumn()),
                new Position(r.endLine(), r.endColumn())), d.message());
        x.setSeverity(d.severity() == Severity.ERROR ? DiagnosticSeverity.Error
                : d.severity() == Severity.WARNING ? DiagnosticSeverity.Warning : DiagnosticSeverity.Information);
        x.setSource(SOURCE);
        x.setCode(d.rule().id());
        x.setData(d.function());
        return x;
    }

    private void publish(String uri, Integer version, List<Diagnostic> ds) {
        LanguageClient c = client;
        if (c != null) {
            PublishDiagnosticsParams p = new PublishDiagnosticsParams(uri, ds);
            p.setVersion(version);
            c.publishDiagnostics(p);
        }
    }

    private void lintOpen(String uri) {
        Doc d = docs.get(uri);
        if (d != null) {
            int v = d.version;
            publish(uri, v, lint(uri, d.text, d.language));
        }
    }

    private void schedule(String uri, long delayMs) {
        ScheduledFuture<?> old = pending.put(uri, worker.schedule(() -> {
            pending.remove(uri);
            lintOpen(uri);
        }, delayMs, TimeUnit.MILLISECONDS));
        if (old != null) {
            old.cancel(false);
        }
    }

    // ---- text documents

    @Override
    public void didOpen(DidOpenTextDocumentParams params) {
        var td = params.getTextDocument();
        Optional<Language> lang = Language.ofLanguageId(td.getLanguageId(), td.getUri());
        if (lang.isEmpty()) {
            return;
        }
        docs.put(td.getUri(), new Doc(lang.get(), td.getText(), td.getVersion()));
        schedule(td.getUri(), 0);
    }

    @Override
    public void didChange(DidChangeTextDocumentParams params) {
        Doc d = docs.get(params.getTextDocument().getUri());
        if (d == null) {
            return;
        }
        for (TextDocumentContentChangeEvent ch : params.getContentChanges()) {
            if (ch.getRange() == null) {
                d.text = ch.getText(); // full sync (what we ask for)
            }
        }
        d.version = params.getTextDocument().getVersion();
        schedule(params.getTextDocument().getUri(), settings.debounceMs());
    }

    @Override
    public void didSave(DidSaveTextDocumentParams params) {
        String uri = params.getTextDocument().getUri();
        if (docs.containsKey(uri)) {
            schedule(uri, 0);
        }
    }

    @Override
    public void didClose(DidCloseTextDocumentParams params) {
        String uri = params.getTextDocument().getUri();
        docs.remove(uri);
        ScheduledFuture<?> f = pending.remove(uri);
        if (f != null) {
            f.cancel(false);
        }
        // what is on disk stays checked if it belongs to the workspace, else its diagnostics go
        worker.execute(() -> {
            Optional<Path> p = toPath(uri);
            if (p.isPresent() && Files.isRegularFile(p.get()) && inWorkspace(p.get())) {
                lintDisk(p.get(), uri);
            } else {
                publish(uri, null, List.of());
            }
        });
    }

    private boolean inWorkspace(Path p) {
        Path a = p.toAbsolutePath().normalize();
        return folders.stream().anyMatch(f -> a.startsWith(f.toAbsolutePath().normalize()));
    }

    @Override
    public CompletableFuture<Hover> hover(HoverParams params) {
        return CompletableFuture.supplyAsync(() -> {
            Doc d = docs.get(params.getTextDocument().getUri());
            Linter l = linter;
            if (d == null || l == null) {
                return null;
            }
            Position pos = params.getPosition();
            SourceScan scan = SourceScan.of(d.text, d.language);
            for (MpiReference ref : scan.references()) {
                if (!ref.range().contains(pos.getLine(), pos.getCharacter())) {
                    continue;
                }
                Optional<MpiFunction> f = l.find(ref.name(), d.language.isFortran());
                if (f.isPresent()) {
                    String text = Linter.describe(f.get()).replace("See docs/mpi-coverage.md",
                            "See [docs/mpi-coverage.md](" + root.resolve("docs").resolve("mpi-coverage.md").toUri() + ")");
                    if (ref.viaMacro() != null) {
                        text = "through macro `" + ref.viaMacro() + "`\n\n" + text;
                    }
                    var r = ref.range();
                    return new Hover(new MarkupContent(MarkupKind.MARKDOWN, text),
                            new Range(new Position(r.startLine(), r.startColumn()), new Position(r.endLine(), r.endColumn())));
                }
            }
            return null;
        }, worker);
    }

    @Override
    public CompletableFuture<List<Either<Command, CodeAction>>> codeAction(CodeActionParams params) {
        String uri = params.getTextDocument().getUri();
        return CompletableFuture.supplyAsync(() -> {
            Doc d = docs.get(uri);
            List<Either<Command, CodeAction>> out = new ArrayList<>();
            if (d == null) {
                return out;
            }
            String[] lines = d.text.split("\n", -1);
            for (Diagnostic diag : params.getContext().getDiagnostics()) {
                if (!SOURCE.equals(diag.getSource())) {
                    continue;
                }
                String fn = functionOf(diag);
                int line = diag.getRange().getStart().getLine();
                if (fn == null || line >= lines.length) {
                    continue;
                }
                TextEdit edit = Suppress.edit(d.language, lines[line], line, fn);
                CodeAction a = new CodeAction("Ignore " + fn + " here (mana-lint: ignore)");
                a.setKind(CodeActionKind.QuickFix);
                a.setDiagnostics(List.of(diag));
                a.setEdit(new WorkspaceEdit(Map.of(uri, List.of(edit))));
                out.add(Either.forRight(a));
            }
            return out;
        }, worker);
    }

    private static String functionOf(Diagnostic d) {
        Object data = d.getData();
        if (data instanceof JsonElement e && e.isJsonPrimitive()) {
            return e.getAsString();
        }
        if (data instanceof String s) {
            return s;
        }
        // clients that drop "data": the name is the message's first word
        var msg = d.getMessage();
        String m = msg.isLeft() ? msg.getLeft() : msg.getRight().getValue();
        int sp = m.indexOf(' ');
        return sp > 0 ? m.substring(0, sp) : null;
    }

    // ---- workspace

    @Override
    public void didChangeConfiguration(DidChangeConfigurationParams params) {
        Settings before = settings;
        settings = settings.with(params.getSettings());
        if (settings.equals(before)) {
            return;
        }
        worker.execute(() -> {
            loadManifest();
            if (manifestError != null) {
                message(MessageType.Error, manifestError);
            }
            for (String uri : scanned) {
                if (!docs.containsKey(uri)) {
                    toPath(uri).ifPresent(p -> lintDisk(p, uri));
                }
            }
            docs.keySet().forEach(this::lintOpen);
        });
    }

    @Override
    public void didChangeWatchedFiles(DidChangeWatchedFilesParams params) {
        for (var ev : params.getChanges()) {
            String uri = ev.getUri();
            if (!docs.containsKey(uri)) {
                worker.execute(() -> toPath(uri).ifPresent(p -> lintDisk(p, uri)));
            }
        }
    }

    private static Optional<Path> toPath(String uri) {
        try {
            URI u = URI.create(uri);
            return "file".equals(u.getScheme()) ? Optional.of(Path.of(u)) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    // ---- lifecycle

    @Override
    public CompletableFuture<Object> shutdown() {
        shutdown = true;
        worker.shutdownNow();
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void exit() {
        worker.shutdownNow();
        onExit.run();
    }

    boolean shutdownReceived() {
        return shutdown;
    }

    @Override
    public TextDocumentService getTextDocumentService() {
        return this;
    }

    @Override
    public WorkspaceService getWorkspaceService() {
        return this;
    }
}
