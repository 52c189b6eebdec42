package dev.mana.eclipse.internal.mpidiag;

import dev.mana.eclipse.mpidiag.MpiMarkers;
import dev.mana.mpidiag.Language;
import dev.mana.mpidiag.Suppression;
import org.eclipse.core.filebuffers.FileBuffers;
import org.eclipse.core.filebuffers.ITextFileBuffer;
import org.eclipse.core.filebuffers.ITextFileBufferManager;
import org.eclipse.core.filebuffers.LocationKind;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.IPath;
import org.eclipse.jface.text.BadLocationException;
import org.eclipse.jface.text.IDocument;
import org.eclipse.jface.text.IRegion;
import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.IMarkerResolution;
import org.eclipse.ui.IMarkerResolution2;
import org.eclipse.ui.IMarkerResolutionGenerator2;

/**
 * Quick Fix of a MANA MPI marker (Problems view, the editor's Quick Fix): writes the suppression comment
 * {@code mana-lint: ignore NAME} where the language reads it (the library's {@link Suppression}, as the
 * language server's quick fix). Through the file's text buffer: into the open editor's document when the file
 * is open (unsaved, like any edit there; the markers follow as you type), else into the file.
 */
public final class IgnoreHereResolutions implements IMarkerResolutionGenerator2 {
    @Override
    public boolean hasResolutions(IMarker marker) {
        return !marker.getAttribute(MpiMarkers.ATTR_FUNCTION, "").isEmpty() && marker.getResource() instanceof IFile f
                && Language.of(f.getName()).isPresent();
    }

    @Override
    public IMarkerResolution[] getResolutions(IMarker marker) {
        return hasResolutions(marker) ? new IMarkerResolution[] {new IgnoreHere(marker.getAttribute(MpiMarkers.ATTR_FUNCTION, ""))}
                : new IMarkerResolution[0];
    }

    /** The fix for one function. */
    static final class IgnoreHere implements IMarkerResolution2 {
        private final String function;

        IgnoreHere(String function) {
            this.function = function;
        }

        @Override
        public String getLabel() {
            return NLS.bind(Messages.IgnoreHere_label, function);
        }

        @Override
        public String getDescription() {
            return NLS.bind(Messages.IgnoreHere_description, function);
        }

        @Override
        public org.eclipse.swt.graphics.Image getImage() {
            return null;
        }

        @Override
        public void run(IMarker marker) {
            IFile file = (IFile) marker.getResource();
            int line = marker.getAttribute(IMarker.LINE_NUMBER, 0) - 1;
            Language lang = Language.of(file.getName()).orElseThrow();
            ITextFileBufferManager buffers = FileBuffers.getTextFileBufferManager();
            IPath path = file.getFullPath();
            try {
                buffers.connect(path, LocationKind.IFILE, null);
                try {
                    ITextFileBuffer buffer = buffers.getTextFileBuffer(path, LocationKind.IFILE);
                    IDocument doc = buffer.getDocument();
                    if (line < 0 || line >= doc.getNumberOfLines()) {
                        return; // the marker is older than the text
                    }
                    IRegion li = doc.getLineInformation(line);
                    Suppression.Insertion at = Suppression.at(lang, doc.get(li.getOffset(), li.getLength()), line, function);
                    doc.replace(doc.getLineOffset(at.line()) + at.column(), 0, at.text());
                    if (!buffer.isShared()) {
                        buffer.commit(null, false); // no editor has it: the file itself
                    }
                } finally {
                    buffers.disconnect(path, LocationKind.IFILE, null);
                }
            } catch (CoreException | BadLocationException e) {
                ILog.of(IgnoreHereResolutions.class).error("MANA MPI diagnostics: cannot write the comment in "
                        + path + ": " + e.getMessage(), e);
            }
        }
    }
}
