package dev.mana.eclipse.internal.mpidiag;

import dev.mana.mpidiag.Language;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.core.resources.IFile;
import org.eclipse.jface.text.DocumentEvent;
import org.eclipse.jface.text.IDocument;
import org.eclipse.jface.text.IDocumentListener;
import org.eclipse.swt.widgets.Display;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.IEditorReference;
import org.eclipse.ui.IPartListener2;
import org.eclipse.ui.IStartup;
import org.eclipse.ui.IWindowListener;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchPartReference;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.texteditor.ITextEditor;

/**
 * MPI markers as you type: every text editor on a C, C++ or Fortran file of the workspace gets a document
 * listener; {@value #DELAY_MS} ms after the last change the document's text (unsaved) goes to the marker job,
 * which replaces the file's markers with the findings in that text, so the ruler, the Problems view and the
 * hover follow the edit without a save. Started with the workbench ({@code org.eclipse.ui.startup}); all of it
 * runs on the UI thread except the linting.
 */
public final class LiveDiagnostics implements IStartup, IWindowListener, IPartListener2 {
    /** The pause in typing after which the text is checked: one check per burst of keystrokes. */
    static final int DELAY_MS = 300;

    /** The listener of each document being watched, with the file it belongs to. */
    private final Map<IDocument, Watch> watched = new HashMap<>();

    private final class Watch implements IDocumentListener, Runnable {
        final IFile file;
        final IDocument document;
        int editors = 1;

        Watch(IFile file, IDocument document) {
            this.file = file;
            this.document = document;
        }

        @Override
        public void documentAboutToBeChanged(DocumentEvent event) {
        }

        @Override
        public void documentChanged(DocumentEvent event) {
            Display d = Display.getCurrent();
            if (d != null) {
                d.timerExec(-1, this); // a newer change: the pause starts again
                d.timerExec(DELAY_MS, this);
            }
        }

        /** The pause is over: the text as it is now. */
        @Override
        public void run() {
            if (watched.get(document) == this) {
                MarkerService.checkText(file, document.get());
            }
        }
    }

    @Override
    public void earlyStartup() {
        IWorkbench wb = PlatformUI.getWorkbench();
        wb.getDisplay().asyncExec(() -> {
            wb.addWindowListener(this);
            for (IWorkbenchWindow w : wb.getWorkbenchWindows()) {
                windowOpened(w);
            }
        });
    }

    @Override
    public void windowOpened(IWorkbenchWindow window) {
        window.getPartService().addPartListener(this);
        for (IWorkbenchPage page : window.getPages()) {
            for (IEditorReference ref : page.getEditorReferences()) {
                IEditorPart e = ref.getEditor(false);
                if (e != null) {
                    watch(e);
                }
            }
        }
    }

    @Override
    public void windowClosed(IWorkbenchWindow window) {
        window.getPartService().removePartListener(this);
    }

    @Override
    public void windowActivated(IWorkbenchWindow window) {
    }

    @Override
    public void windowDeactivated(IWorkbenchWindow window) {
    }

    @Override
    public void partOpened(IWorkbenchPartReference ref) {
        if (ref.getPart(false) instanceof IEditorPart e) {
            watch(e);
        }
    }

    @Override
    public void partClosed(IWorkbenchPartReference ref) {
        if (ref.getPart(false) instanceof ITextEditor e && e.getDocumentProvider() != null) {
            IDocument doc = e.getDocumentProvider().getDocument(e.getEditorInput());
            Watch w = doc == null ? null : watched.get(doc);
            if (w != null && --w.editors == 0) {
                doc.removeDocumentListener(w);
                watched.remove(doc);
            }
        }
    }

    /** Starts watching the document of a text editor on a C, C++ or Fortran file of the workspace. */
    private void watch(IEditorPart part) {
        if (!(part instanceof ITextEditor e) || e.getDocumentProvider() == null) {
            return;
        }
        IFile file = e.getEditorInput().getAdapter(IFile.class);
        IDocument doc = e.getDocumentProvider().getDocument(e.getEditorInput());
        if (file == null || doc == null || Language.of(file.getName()).isEmpty()) {
            return;
        }
        Watch w = watched.get(doc);
        if (w != null) {
            w.editors++; // a second editor on the same file shares the document
            return;
        }
        w = new Watch(file, doc);
        watched.put(doc, w);
        doc.addDocumentListener(w);
    }
}
