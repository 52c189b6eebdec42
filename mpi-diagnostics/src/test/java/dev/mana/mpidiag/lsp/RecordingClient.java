package dev.mana.mpidiag.lsp;

import org.eclipse.lsp4j.MessageActionItem;
import org.eclipse.lsp4j.MessageParams;
import org.eclipse.lsp4j.ProgressParams;
import org.eclipse.lsp4j.PublishDiagnosticsParams;
import org.eclipse.lsp4j.ShowMessageRequestParams;
import org.eclipse.lsp4j.WorkDoneProgressCreateParams;
import org.eclipse.lsp4j.services.LanguageClient;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** The test's LSP client: records what the server sends; tests wait for it with timeouts. */
final class RecordingClient implements LanguageClient {
    /** every publication, in arrival order; each uri has its own read position */
    private final List<PublishDiagnosticsParams> published = new java.util.ArrayList<>();
    private final java.util.Map<String, Integer> cursor = new java.util.HashMap<>();
    final List<ProgressParams> progress = new CopyOnWriteArrayList<>();
    final BlockingQueue<MessageParams> messages = new LinkedBlockingQueue<>();
    final List<String> progressCreated = new CopyOnWriteArrayList<>();

    /**
     * The next diagnostics for {@code uri} (after the last one this method returned for it) that
     * satisfy {@code p}; fails after 20 s.
     */
    synchronized PublishDiagnosticsParams await(String uri, Predicate<PublishDiagnosticsParams> p)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int i = cursor.getOrDefault(uri, 0);
        while (true) {
            for (; i < published.size(); i++) {
                PublishDiagnosticsParams d = published.get(i);
                if (d.getUri().equals(uri) && p.test(d)) {
                    cursor.put(uri, i + 1);
                    return d;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no matching diagnostics for " + uri + " within 20 s");
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    @Override
    public void telemetryEvent(Object object) {
    }

    @Override
    public synchronized void publishDiagnostics(PublishDiagnosticsParams d) {
        published.add(d);
        notifyAll();
    }

    @Override
    public void showMessage(MessageParams m) {
        messages.add(m);
    }

    @Override
    public CompletableFuture<MessageActionItem> showMessageRequest(ShowMessageRequestParams requestParams) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void logMessage(MessageParams message) {
    }

    @Override
    public CompletableFuture<Void> createProgress(WorkDoneProgressCreateParams params) {
        progressCreated.add(params.getToken().getLeft());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void notifyProgress(ProgressParams params) {
        progress.add(params);
    }
}
