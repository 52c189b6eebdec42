package dev.mana.eclipse.debug.ui;

import java.io.File;
import org.eclipse.core.filesystem.EFS;
import org.eclipse.core.filesystem.IFileStore;
import org.eclipse.core.resources.IFile;
import org.eclipse.debug.ui.IDebugModelPresentation;
import org.eclipse.debug.ui.IValueDetailListener;
import org.eclipse.jface.viewers.ILabelProviderListener;
import org.eclipse.swt.graphics.Image;
import org.eclipse.ui.IEditorInput;
import org.eclipse.ui.ide.FileStoreEditorInput;
import org.eclipse.ui.part.FileEditorInput;
import org.eclipse.debug.core.model.IValue;
import org.eclipse.debug.core.DebugException;

/**
 * The MANA model's presentation: the platform's default labels and images (the model's names already
 * say {@code rank N (pid P)} and {@code [upper] fn at file:line}); sources open in the platform's text
 * editor, from the workspace or, for a path outside it, from the file system.
 */
public final class ManaDebugModelPresentation implements IDebugModelPresentation {
    /** The platform's text editor: no CDT here. */
    public static final String TEXT_EDITOR = "org.eclipse.ui.DefaultTextEditor";

    @Override
    public IEditorInput getEditorInput(Object element) {
        if (element instanceof IFile f) {
            return new FileEditorInput(f);
        }
        if (element instanceof File f) {
            IFileStore store = EFS.getLocalFileSystem().fromLocalFile(f);
            return new FileStoreEditorInput(store);
        }
        return null;
    }

    @Override
    public String getEditorId(IEditorInput input, Object element) {
        return element instanceof IFile || element instanceof File ? TEXT_EDITOR : null;
    }

    @Override
    public void setAttribute(String attribute, Object value) {
    }

    @Override
    public Image getImage(Object element) {
        return null;
    }

    @Override
    public String getText(Object element) {
        return null;
    }

    @Override
    public void computeDetail(IValue value, IValueDetailListener listener) {
        String detail;
        try {
            detail = value.getValueString();
        } catch (DebugException e) {
            detail = e.getMessage();
        }
        listener.detailComputed(value, detail);
    }

    @Override
    public void addListener(ILabelProviderListener listener) {
    }

    @Override
    public void dispose() {
    }

    @Override
    public boolean isLabelProperty(Object element, String property) {
        return false;
    }

    @Override
    public void removeListener(ILabelProviderListener listener) {
    }
}
