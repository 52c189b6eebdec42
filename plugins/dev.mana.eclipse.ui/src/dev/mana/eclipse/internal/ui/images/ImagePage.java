package dev.mana.eclipse.internal.ui.images;

import org.eclipse.jface.viewers.ColumnLabelProvider;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.jface.viewers.TableViewerColumn;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Label;

import dev.mana.inspector.ImageException;

/**
 * One page of the image editor. Its controls are made with the editor; its data is read from the image
 * the first time the page is shown (so opening a large image reads only what the first page needs). A
 * part of the image that cannot be read puts its error on the page and in the editor's banner; the other
 * pages are not affected.
 */
abstract class ImagePage {
    final ImageEditor editor;
    Composite root;
    private Label message;
    private boolean loaded;
    private boolean created;

    ImagePage(ImageEditor editor) {
        this.editor = editor;
    }

    abstract String title();

    /** Makes the page's controls (empty). */
    abstract void createContents(Composite parent);

    /** Reads what the page shows from the image and fills the controls. */
    abstract void fill() throws ImageException;

    final Control create(Composite parent) {
        root = new Composite(parent, SWT.NONE);
        GridLayout gl = new GridLayout(1, false);
        gl.marginWidth = 6;
        gl.marginHeight = 6;
        root.setLayout(gl);
        message = new Label(root, SWT.WRAP);
        GridData gd = new GridData(SWT.FILL, SWT.TOP, true, false);
        gd.exclude = true;
        message.setLayoutData(gd);
        message.setVisible(false);
        return root;
    }

    /** Makes the page's controls the first time it is needed (opening an image makes only the Overview's). */
    final void ensureCreated() {
        if (!created) {
            created = true;
            createContents(root);
            root.layout(true, true);
        }
    }

    final void ensureLoaded() {
        if (loaded) {
            return;
        }
        ensureCreated();
        if (!editor.ready()) {
            showMessage(Messages.ImagePage_readingGzip);
            return; // the editor loads the page once the image was read
        }
        hideMessage();
        loaded = true;
        if (editor.image() == null) {
            showMessage(Messages.ImagePage_nothingReadable);
            return;
        }
        try {
            fill();
        } catch (ImageException e) {
            showMessage(NLS.bind(Messages.ImagePage_cannotShow, title(), e.getMessage()));
            editor.report(title(), e);
        }
    }

    boolean isLoaded() {
        return loaded;
    }

    /** A line at the top of the page (why it is empty, or what it does not apply to). */
    void showMessage(String text) {
        message.setText(text);
        ((GridData) message.getLayoutData()).exclude = false;
        message.setVisible(true);
        root.layout(true, true);
    }

    private void hideMessage() {
        if (message.getVisible()) {
            ((GridData) message.getLayoutData()).exclude = true;
            message.setVisible(false);
            root.layout(true, true);
        }
    }

    String getMessage() {
        return message.getVisible() ? message.getText() : "";
    }

    static TableViewer table(Composite parent, int style) {
        TableViewer v = new TableViewer(parent, SWT.BORDER | SWT.FULL_SELECTION | style);
        v.getTable().setHeaderVisible(true);
        v.getTable().setLinesVisible(true);
        v.getTable().setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));
        v.setUseHashlookup(true);
        return v;
    }

    static <T> TableViewerColumn column(TableViewer v, String title, int width, Class<T> type,
            java.util.function.Function<T, String> text) {
        TableViewerColumn c = new TableViewerColumn(v, SWT.LEFT);
        c.getColumn().setText(title);
        c.getColumn().setWidth(width);
        c.setLabelProvider(new ColumnLabelProvider() {
            @Override
            public String getText(Object element) {
                return type.isInstance(element) ? text.apply(type.cast(element)) : "";
            }
        });
        return c;
    }

    /** A region's name as the tables show it ({@code [anon]} for an anonymous mapping). */
    static String name(dev.mana.inspector.MemoryRegion r) {
        return r.name().isEmpty() ? Messages.ImagePage_anonymous : r.name();
    }

    static String hex(long v) {

        return "0x" + Long.toHexString(v);
    }
}
