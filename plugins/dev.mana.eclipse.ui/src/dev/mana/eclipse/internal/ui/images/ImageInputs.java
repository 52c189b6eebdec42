package dev.mana.eclipse.internal.ui.images;

import java.io.File;
import java.net.URI;
import java.nio.file.Path;

import org.eclipse.core.filesystem.EFS;
import org.eclipse.core.resources.IFile;
import org.eclipse.ui.IEditorInput;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.IPathEditorInput;
import org.eclipse.ui.IURIEditorInput;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.ide.FileStoreEditorInput;
import org.eclipse.ui.ide.IDE;

/** Where an editor input's image lies on disk, and how the MANA views open an image file. */
public final class ImageInputs {
    private ImageInputs() {}

    /** The local file behind an editor input (workspace file, File > Open File..., our own inputs), or null. */
    public static Path pathOf(IEditorInput input) {
        if (input instanceof IURIEditorInput u) {
            URI uri = u.getURI();
            if (uri != null && "file".equals(uri.getScheme())) {
                return Path.of(uri);
            }
        }
        if (input instanceof IPathEditorInput p) {
            return p.getPath().toFile().toPath();
        }
        IFile f = input == null ? null : input.getAdapter(IFile.class);
        if (f != null && f.getLocation() != null) {
            return f.getLocation().toFile().toPath();
        }
        return null;
    }

    /** Opens {@code file} in the image editor, whatever its name (a copy called *.bak is an image too). */
    public static IEditorPart open(IWorkbenchPage page, File file) throws PartInitException {
        IEditorInput in = new FileStoreEditorInput(EFS.getLocalFileSystem().getStore(file.getAbsoluteFile().toURI()));
        return IDE.openEditor(page, in, ImageEditor.ID, true);
    }
}
