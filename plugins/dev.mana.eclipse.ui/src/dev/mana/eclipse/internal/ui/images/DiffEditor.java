package dev.mana.eclipse.internal.ui.images;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.jface.resource.ImageDescriptor;
import org.eclipse.jface.viewers.ArrayContentProvider;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Label;
import org.eclipse.ui.IEditorInput;
import org.eclipse.ui.IEditorSite;
import org.eclipse.ui.IPersistableElement;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.part.EditorPart;

import dev.mana.eclipse.core.ManaFormat;
import dev.mana.inspector.ImageDiff;
import dev.mana.inspector.MemoryRegion;

/**
 * The diff page of two generations: per rank, the regions added, removed and changed with their byte counts
 * and what changed (end, permissions, name, contents...), and the summary fields that differ. Read-only.
 */
public final class DiffEditor extends EditorPart {
    public static final String ID = "dev.mana.eclipse.ui.imageDiffEditor";

    /** The input: a finished comparison (not persisted: it is recomputed from the directory view). */
    static final class Input implements IEditorInput {
        final GenerationDiff diff;

        Input(GenerationDiff diff) {
            this.diff = diff;
        }

        @Override
        public <T> T getAdapter(Class<T> adapter) {
            return null;
        }

        @Override
        public boolean exists() {
            return false;
        }

        @Override
        public ImageDescriptor getImageDescriptor() {
            return ImageDescriptor.getMissingImageDescriptor();
        }

        @Override
        public String getName() {
            return NLS.bind(Messages.DiffEditor_name, diff.genA(), diff.genB());
        }

        @Override
        public IPersistableElement getPersistable() {
            return null;
        }

        @Override
        public String getToolTipText() {
            return NLS.bind(Messages.DiffEditor_tip, new Object[] {diff.directory(), diff.genA(), diff.genB()});
        }
    }

    /** One table row: a rank's region diff (or the rank's error, with diff null). */
    record Row(long rank, ImageDiff.RegionDiff diff, String error) {}

    private GenerationDiff diff;
    private Label summary;
    private TableViewer viewer;
    private Button changedOnly;
    private final List<Row> rows = new ArrayList<>();

    @Override
    public void init(IEditorSite site, IEditorInput input) throws PartInitException {
        if (!(input instanceof Input in)) {
            throw new PartInitException(NLS.bind(Messages.DiffEditor_notAComparison, input.getName()));
        }
        setSite(site);
        setInput(input);
        diff = in.diff;
        setPartName(input.getName());
        setTitleToolTip(input.getToolTipText());
    }

    @Override
    public void createPartControl(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        c.setLayout(new GridLayout(1, false));
        summary = new Label(c, SWT.WRAP);
        summary.setLayoutData(new GridData(SWT.FILL, SWT.TOP, true, false));
        changedOnly = new Button(c, SWT.CHECK);
        changedOnly.setText(Messages.DiffEditor_changedOnly);
        changedOnly.setSelection(true);
        changedOnly.addListener(SWT.Selection, e -> viewer.setInput(visibleRows()));
        viewer = ImagePage.table(c, SWT.SINGLE);
        viewer.setContentProvider(ArrayContentProvider.getInstance());
        ImagePage.column(viewer, Messages.DiffEditor_columnRank, 50, Row.class, r -> Long.toString(r.rank()));
        ImagePage.column(viewer, Messages.DiffEditor_columnChange, 90, Row.class,
            r -> r.diff() == null ? Messages.DiffEditor_error : r.diff().kind().name());
        ImagePage.column(viewer, Messages.DiffEditor_columnRange, 250, Row.class,
            r -> r.diff() == null ? "" : range(r.diff().either()));
        ImagePage.column(viewer, Messages.DiffEditor_columnName, 240, Row.class,
            r -> r.diff() == null ? "" : ImagePage.name(r.diff().either()));
        ImagePage.column(viewer, Messages.DiffEditor_columnBytesChanged, 110, Row.class,
            r -> r.diff() == null ? "" : ManaFormat.bytes(r.diff().bytesChanged()));
        ImagePage.column(viewer, Messages.DiffEditor_columnBytesCompared, 110, Row.class,
            r -> r.diff() == null ? "" : ManaFormat.bytes(r.diff().bytesCompared()));
        ImagePage.column(viewer, Messages.DiffEditor_columnDetails, 400, Row.class,
            r -> r.diff() == null ? r.error() : String.join("; ", r.diff().changes()));
        StringBuilder sb = new StringBuilder(
            NLS.bind(Messages.DiffEditor_head, new Object[] {diff.directory(), diff.genA(), diff.genB()})).append('\n');
        for (GenerationDiff.RankDiff rd : diff.ranks()) {
            if (rd.diff() == null) {
                rows.add(new Row(rd.rank(), null, rd.error()));
                sb.append(NLS.bind(Messages.DiffEditor_rankError, rd.rank(), rd.error())).append('\n');
                continue;
            }
            ImageDiff d = rd.diff();
            for (ImageDiff.RegionDiff r : d.regions()) {
                rows.add(new Row(rd.rank(), r, null));
            }
            sb.append(NLS.bind(Messages.DiffEditor_rankSummary, new Object[] {rd.rank(), d.count(ImageDiff.Kind.ADDED),
                d.count(ImageDiff.Kind.REMOVED), d.count(ImageDiff.Kind.CHANGED), d.count(ImageDiff.Kind.UNCHANGED),
                ManaFormat.bytes(d.bytesChanged()), d.bytesChanged(), d.headerChanges().isEmpty() ? ""
                    : NLS.bind(Messages.DiffEditor_headerChanges, String.join(", ", d.headerChanges()))}))
                .append('\n');
        }

        summary.setText(sb.toString().strip());
        viewer.setInput(visibleRows());
    }

    private List<Row> visibleRows() {
        return changedOnly.getSelection()
            ? rows.stream().filter(r -> r.diff() == null || r.diff().kind() != ImageDiff.Kind.UNCHANGED).toList() : rows;
    }

    private static String range(MemoryRegion r) {
        return "0x" + Long.toHexString(r.start()) + "-0x" + Long.toHexString(r.end());
    }

    public String getSummary() {
        return summary.getText();
    }

    public int getVisibleRows() {
        return viewer.getTable().getItemCount();
    }

    public GenerationDiff.RankDiff rank(long rank) {
        return diff.ranks().stream().filter(r -> r.rank() == rank).findFirst().orElse(null);
    }

    @Override
    public void setFocus() {
        viewer.getControl().setFocus();
    }

    @Override
    public void doSave(IProgressMonitor monitor) {
        // nothing to save
    }

    @Override
    public void doSaveAs() {
        // nothing to save
    }

    @Override
    public boolean isDirty() {
        return false;
    }

    @Override
    public boolean isSaveAsAllowed() {
        return false;
    }
}
