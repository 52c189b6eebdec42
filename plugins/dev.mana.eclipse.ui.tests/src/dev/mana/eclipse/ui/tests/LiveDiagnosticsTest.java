package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.internal.mpidiag.MarkerService;
import dev.mana.eclipse.internal.mpidiag.Messages;
import dev.mana.eclipse.mpidiag.MpiMarkers;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.jface.text.IDocument;
import org.eclipse.jface.text.source.Annotation;
import org.eclipse.jface.text.source.IAnnotationModel;
import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.IMarkerResolution;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.ide.IDE;
import org.eclipse.ui.texteditor.ITextEditor;
import org.eclipse.ui.texteditor.MarkerAnnotation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MPI diagnostics as you type, in the platform's text editor: a C file with only supported calls has no
 * marker; a call of MPI_Win_create typed into the editor (not saved) becomes a MANA marker on that line within
 * moments, and the editor's annotation for it (what the hover shows) names the function, its status and the
 * reason; the marker's Quick Fix writes {@code // mana-lint: ignore MPI_Win_create} at the end of the line,
 * into the open (still unsaved) document, and the marker goes; saving keeps none.
 */
class LiveDiagnosticsTest {
    private static final String MANIFEST = """
            {"format": "mana-mpi-coverage", "version": 1, "runtime": "test",
             "mpis": [{"id": "openmpi", "soname": "libmpi.so.40"}],
             "functions": [
              {"name": "MPI_Finalize", "status": "supported", "mpis": ["openmpi"]},
              {"name": "MPI_Init", "status": "supported", "mpis": ["openmpi"]},
              {"name": "MPI_Win_create", "status": "unsupported", "mpis": ["openmpi"],
               "reason": "one-sided communication cannot be checkpointed yet"}
             ]}""";

    private IProject project;

    @AfterEach
    void cleanUp() throws CoreException {
        Ui.sync(() -> PlatformUI.getWorkbench().getWorkbenchWindows()[0].getActivePage().closeAllEditors(false));
        if (project != null) {
            project.delete(true, true, null);
        }
        MpiMarkers.preferences().remove(MpiMarkers.PREF_MANIFEST);
    }

    private static IMarker[] markers(IFile f) {
        try {
            return f.findMarkers(MpiMarkers.MARKER_TYPE, false, IResource.DEPTH_ZERO);
        } catch (CoreException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void markersAsYouTypeHoverAndQuickFix(@TempDir Path dir) throws Exception {
        Ui.waitFor("the marker service", 20_000, MarkerService::active);
        Path manifest = dir.resolve("mpi-coverage.json");
        Files.writeString(manifest, MANIFEST);
        MpiMarkers.preferences().put(MpiMarkers.PREF_MANIFEST, manifest.toString());
        project = ResourcesPlugin.getWorkspace().getRoot().getProject("live-diagnostics");
        project.create(null);
        project.open(null);
        IFile c = project.getFile("rma.c");
        c.create(new ByteArrayInputStream(("#include <mpi.h>\nint main(int argc, char **argv) {\n  MPI_Init(&argc, &argv);\n"
                + "\n  MPI_Finalize();\n}\n").getBytes(StandardCharsets.UTF_8)), true, null);
        org.eclipse.core.runtime.jobs.Job.getJobManager().join(MpiMarkers.JOB_FAMILY, null);
        assertEquals(0, markers(c).length, "only supported calls");

        IWorkbenchPage page = Ui.sync(() -> PlatformUI.getWorkbench().getWorkbenchWindows()[0].getActivePage());
        ITextEditor editor = Ui.sync(() -> (ITextEditor) IDE.openEditor(page, c, "org.eclipse.ui.DefaultTextEditor"));
        IDocument doc = Ui.sync(() -> editor.getDocumentProvider().getDocument(editor.getEditorInput()));
        String call = "  MPI_Win w; MPI_Win_create(0, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);";
        Ui.sync(() -> {
            try {
                doc.replace(doc.getLineOffset(3), 0, call); // typed on the empty line 4
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        Ui.waitFor(() -> "a marker on the typed call (markers: " + markers(c).length + ")", 30_000,
                () -> markers(c).length == 1);
        assertTrue(Ui.sync(editor::isDirty), "not saved: the marker comes from the editor's text");
        IMarker m = markers(c)[0];
        assertEquals("MPI_Win_create", m.getAttribute(MpiMarkers.ATTR_FUNCTION, ""));
        assertEquals(4, m.getAttribute(IMarker.LINE_NUMBER, 0));
        String text = Ui.sync(() -> doc.get());
        assertEquals("MPI_Win_create", text.substring(m.getAttribute(IMarker.CHAR_START, 0), m.getAttribute(IMarker.CHAR_END, 0)));

        // the hover: the editor's annotation at the call says what and why
        String expected = "MPI_Win_create is not supported under checkpointing: one-sided communication cannot be checkpointed yet";
        Ui.waitFor("the marker's annotation in the editor", 30_000, () -> annotationText(editor) != null);
        assertEquals(expected, annotationText(editor));
        assertEquals(expected, m.getAttribute(IMarker.MESSAGE, ""));

        // Quick Fix: the suppression comment at the end of the line, in the open document
        IMarkerResolution[] fixes = IDE.getMarkerHelpRegistry().getResolutions(m);
        assertEquals(1, fixes.length);
        assertEquals(NLS.bind(Messages.IgnoreHere_label, "MPI_Win_create"), fixes[0].getLabel());
        Ui.sync(() -> fixes[0].run(m));
        assertEquals(call + " // mana-lint: ignore MPI_Win_create", Ui.sync(() -> {
            try {
                return doc.get(doc.getLineOffset(3), doc.getLineLength(3)).stripTrailing();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }));
        Ui.waitFor(() -> "the marker to go after the fix (markers: " + markers(c).length + ")", 30_000,
                () -> markers(c).length == 0);
        assertTrue(Ui.sync(editor::isDirty), "the fix is an edit in the open editor");
        Ui.sync(() -> editor.doSave(null));
        org.eclipse.core.runtime.jobs.Job.getJobManager().join(MpiMarkers.JOB_FAMILY, null);
        assertEquals(0, markers(c).length, "saved: still none");
        assertFalse(Ui.sync(editor::isDirty));
    }

    /** The text of the MANA marker annotation in the editor's annotation model (the hover's), or null. */
    private static String annotationText(ITextEditor editor) {
        return Ui.sync(() -> {
            IAnnotationModel model = editor.getDocumentProvider().getAnnotationModel(editor.getEditorInput());
            assertNotNull(model);
            for (Iterator<Annotation> it = model.getAnnotationIterator(); it.hasNext();) {
                Annotation a = it.next();
                if (a instanceof MarkerAnnotation ma && ma.getMarker().exists()
                        && MpiMarkers.MARKER_TYPE.equals(ma.getMarker().getType())) {
                    return a.getText();
                }
            }
            return null;
        });
    }
}
