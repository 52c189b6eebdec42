package dev.mana.eclipse.internal.ui.images;

import org.eclipse.jface.viewers.ArrayContentProvider;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Composite;

import dev.mana.eclipse.core.ManaFormat;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.OpenFile;

/** Open files (our format): fd, kind, O_* flags, cloexec / inherited, offset, size, path. */
final class FilesPage extends ImagePage {
    private TableViewer viewer;

    FilesPage(ImageEditor editor) {
        super(editor);
    }

    @Override
    String title() {
        return "Files";
    }

    @Override
    void createContents(Composite parent) {
        viewer = table(parent, SWT.SINGLE);
        viewer.setContentProvider(ArrayContentProvider.getInstance());
        column(viewer, "FD", 50, OpenFile.class, f -> Integer.toString(f.fd()));
        column(viewer, "Kind", 90, OpenFile.class, OpenFile::kindName);
        column(viewer, "Flags", 200, OpenFile.class, f -> f.openFlagNames() + f.fdFlagWords());
        column(viewer, "Offset", 90, OpenFile.class, f -> Long.toString(f.offset()));
        column(viewer, "Size", 90, OpenFile.class, f -> ManaFormat.bytes(f.size()));
        column(viewer, "Mode", 70, OpenFile.class, f -> String.format("%o", f.mode()));
        column(viewer, "Path", 420, OpenFile.class, OpenFile::path);
    }

    @Override
    void fill() throws ImageException {
        if (!(editor.image() instanceof ManaImage m)) {
            showMessage("DMTCP v4.0 images keep open files in DMTCP's plugin state; this reader does not decode it.");
            return;
        }
        viewer.setInput(m.files());
    }

    int rows() {
        return viewer.getTable().getItemCount();
    }
}
