package dev.mana.eclipse.internal.mpidiag;

import dev.mana.eclipse.mpidiag.MpiMarkers;
import dev.mana.mpidiag.CoverageManifest;
import dev.mana.mpidiag.Diagnostic;
import dev.mana.mpidiag.Language;
import dev.mana.mpidiag.Linter;
import dev.mana.mpidiag.ManifestException;
import dev.mana.mpidiag.Severity;
import org.eclipse.core.resources.IContainer;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IWorkspaceRoot;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The background job that (re)computes markers: files queue up, the job drains the queue; each file's
 * markers are replaced in one workspace operation on that file's marker rule, so builds and editors
 * are never blocked for the whole workspace.
 */
final class MarkerJob extends Job {
    private final Set<IFile> queue = new LinkedHashSet<>();
    /** Unsaved text of files open in editors (as you type), checked instead of the file's contents. */
    private final java.util.Map<IFile, String> liveText = new java.util.HashMap<>();
    private boolean clearRequested;
    private Linter linter;
    private Path linterManifest;
    private String reportedError;

    MarkerJob() {
        super(Messages.MarkerJob_name);

        setSystem(true);
        setPriority(DECORATE);
    }

    @Override
    public boolean belongsTo(Object family) {
        return family == MpiMarkers.JOB_FAMILY;
    }

    synchronized void check(List<IFile> files) {
        queue.addAll(files);
        schedule(100); // coalesce a burst of saves
    }

    /** Checks {@code text}, the unsaved contents of {@code file} in an editor: markers as you type. */
    synchronized void checkText(IFile file, String text) {
        liveText.put(file, text);
        queue.add(file);
        schedule();
    }

    void checkAll() {
        List<IFile> files = new ArrayList<>();
        for (IProject p : ResourcesPlugin.getWorkspace().getRoot().getProjects()) {
            collect(p, files);
        }
        check(files);
    }

    void checkProject(IProject p) {
        List<IFile> files = new ArrayList<>();
        collect(p, files);
        check(files);
    }

    synchronized void clearAll() {
        queue.clear();
        clearRequested = true;
        schedule();
    }

    synchronized void reloadManifest() {
        linter = null;
        linterManifest = null;
    }

    private static void collect(IContainer c, List<IFile> out) {
        if (c instanceof IProject p && !p.isOpen()) {
            return;
        }
        try {
            for (IResource r : c.members()) {
                if (r instanceof IFile f && Language.of(f.getName()).isPresent()) {
                    out.add(f);
                } else if (r instanceof IContainer sub && !r.isDerived() && !r.getName().startsWith(".")) {
                    collect(sub, out);
                }
            }
        } catch (CoreException e) {
            ILog.of(MarkerJob.class).log(e.getStatus());
        }
    }

    @Override
    protected IStatus run(IProgressMonitor monitor) {
        IWorkspace ws = ResourcesPlugin.getWorkspace();
        while (!monitor.isCanceled()) {
            IFile next;
            String text = null;
            boolean clear;
            synchronized (this) {
                clear = clearRequested;
                clearRequested = false;
                next = clear || queue.isEmpty() ? null : queue.iterator().next();
                if (next != null) {
                    queue.remove(next);
                    text = liveText.remove(next);
                }
            }
            if (clear) {
                removeAll(ws.getRoot());
                continue;
            }
            if (next == null) {
                return Status.OK_STATUS;
            }
            if (!MpiMarkers.enabled()) {
                continue;
            }
            Linter l = linter();
            if (l == null) {
                synchronized (this) {
                    queue.clear();
                    liveText.clear();
                }
                return Status.OK_STATUS; // reported once in the error log
            }
            update(ws, next, text, l, monitor);
        }
        return Status.CANCEL_STATUS;
    }

    private synchronized Linter linter() {
        Path file = MpiMarkers.manifestFile();
        if (linter != null && Objects.equals(file, linterManifest)) {
            return linter;
        }
        if (file == null) {
            reportOnce("MANA MPI diagnostics: no MANA runtime, so no coverage manifest (set one in Preferences > MANA > MPI Diagnostics)");
            return null;
        }
        try {
            linter = new Linter(CoverageManifest.read(file), null);
            linterManifest = file;
            reportedError = null;
            return linter;
        } catch (ManifestException e) {
            reportOnce("MANA MPI diagnostics: " + e.getMessage());
            return null;
        }
    }

    private void reportOnce(String message) {
        if (!message.equals(reportedError)) {
            reportedError = message;
            ILog.of(MarkerJob.class).log(Status.warning(message));
        }
    }

    /** Replaces the markers of {@code file} with the findings in {@code unsaved} (an editor's text), else in its contents. */
    private void update(IWorkspace ws, IFile file, String unsaved, Linter l, IProgressMonitor monitor) {
        if (!file.exists()) {
            return;
        }
        try {
            String text = unsaved;
            if (text == null) {
                try (InputStream in = file.getContents(true)) {
                    text = new String(in.readAllBytes(), Charset.forName(file.getCharset()));
                }
            }
            Language lang = Language.of(file.getName()).orElseThrow();
            List<Diagnostic> ds = l.lint(file.getFullPath().toString(), text, lang);
            ws.run(m -> {
                file.deleteMarkers(MpiMarkers.MARKER_TYPE, false, IResource.DEPTH_ZERO);
                for (Diagnostic d : ds) {
                    file.createMarker(MpiMarkers.MARKER_TYPE, Map.of(
                            IMarker.MESSAGE, d.message(),
                            IMarker.SEVERITY, severity(d.severity()),
                            IMarker.LINE_NUMBER, d.range().startLine() + 1,
                            IMarker.CHAR_START, d.range().startOffset(),
                            IMarker.CHAR_END, d.range().endOffset(),
                            IMarker.SOURCE_ID, "mana",
                            MpiMarkers.ATTR_FUNCTION, d.function(),
                            MpiMarkers.ATTR_RULE, d.rule().id()));
                }
            }, ws.getRuleFactory().markerRule(file), IWorkspace.AVOID_UPDATE, monitor);
        } catch (CoreException | IOException | RuntimeException e) {
            if (file.exists()) {
                ILog.of(MarkerJob.class).log(Status.warning("MANA MPI diagnostics: cannot check " + file.getFullPath(), e));
            }
        }
    }

    private static int severity(Severity s) {
        return switch (s) {
            case ERROR -> IMarker.SEVERITY_ERROR;
            case WARNING -> IMarker.SEVERITY_WARNING;
            case INFORMATION -> IMarker.SEVERITY_INFO;
        };
    }

    private static void removeAll(IWorkspaceRoot root) {
        try {
            root.deleteMarkers(MpiMarkers.MARKER_TYPE, false, IResource.DEPTH_INFINITE);
        } catch (CoreException e) {
            ILog.of(MarkerJob.class).log(e.getStatus());
        }
    }
}
