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
        return Messages.FilesPage_title;
    }

    @Override
    void createContents(Composite parent) {
        viewer = table(parent, SWT.SINGLE);
        viewer.setContentProvider(ArrayContentProvider.getInstance());
        column(viewer, Messages.FilesPage_columnFd, 50, OpenFile.class, f -> Integer.toString(f.fd()));
        column(viewer, Messages.FilesPage_columnKind, 90, OpenFile.class, OpenFile::kindName);
        column(viewer, Messages.FilesPage_columnFlags, 200, OpenFile.class, f -> f.openFlagNames() + f.fdFlagWords());
        column(viewer, Messages.FilesPage_columnOffset, 90, OpenFile.class, f -> Long.toString(f.offset()));
        column(viewer, Messages.FilesPage_columnSize, 90, OpenFile.class, f -> ManaFormat.bytes(f.size()));
        column(viewer, Messages.FilesPage_columnMode, 70, OpenFile.class, f -> String.format("%o", f.mode()));
        column(viewer, Messages.FilesPage_columnPath, 420, OpenFile.class, OpenFile::path);
    }

    @Override
    void fill() throws ImageException {
        if (!(editor.image() instanceof ManaImage m)) {
            showMessage(Messages.FilesPage_dmtcp);

            return;
        }
        viewer.setInput(m.files());
    }

    int rows() {
        return viewer.getTable().getItemCount();
    }
}
