package dev.mana.eclipse.internal.ui.images;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import org.eclipse.jface.viewers.ArrayContentProvider;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.jface.viewers.StructuredSelection;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.jface.viewers.TableViewerColumn;
import org.eclipse.jface.viewers.Viewer;
import org.eclipse.jface.viewers.ViewerComparator;
import org.eclipse.jface.viewers.ViewerFilter;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Text;

import dev.mana.eclipse.core.ManaFormat;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.MemoryRegion;

/**
 * Memory map: every region with its half, range, size, protection, name, stored and zero bytes, and why
 * it is not saved; the strip above draws the address space to scale. Filter (text in any column, saved
 * only) and sort (click a column header). "Show Hex" (or a double-click) opens the region on the Hex page.
 */
final class MemoryMapPage extends ImagePage {
    private TableViewer viewer;
    private MemoryStrip strip;
    private Text filter;
    private Button savedOnly;
    private Label totals;
    private List<MemoryRegion> regions = List.of();
    private Comparator<MemoryRegion> sort;
    private boolean descending;

    MemoryMapPage(ImageEditor editor) {
        super(editor);
    }

    @Override
    String title() {
        return Messages.MemoryMapPage_title;
    }

    @Override
    void createContents(Composite parent) {
        strip = new MemoryStrip(parent, this::select);
        Composite bar = new Composite(parent, SWT.NONE);
        bar.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        GridLayout gl = new GridLayout(5, false);
        gl.marginWidth = 0;
        bar.setLayout(gl);
        new Label(bar, SWT.NONE).setText(Messages.MemoryMapPage_filter);
        filter = new Text(bar, SWT.BORDER | SWT.SEARCH | SWT.ICON_CANCEL);
        filter.setMessage(Messages.MemoryMapPage_filterHint);
        GridData fd = new GridData(SWT.LEFT, SWT.CENTER, false, false);
        fd.widthHint = 260;
        filter.setLayoutData(fd);
        filter.addModifyListener(e -> viewer.refresh());
        savedOnly = new Button(bar, SWT.CHECK);
        savedOnly.setText(Messages.MemoryMapPage_savedOnly);
        savedOnly.addListener(SWT.Selection, e -> viewer.refresh());
        Button hex = new Button(bar, SWT.PUSH);
        hex.setText(Messages.MemoryMapPage_showHex);
        hex.addListener(SWT.Selection, e -> showSelectedInHex());
        totals = new Label(bar, SWT.NONE);
        totals.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));

        viewer = table(parent, SWT.SINGLE);
        viewer.setContentProvider(ArrayContentProvider.getInstance());
        sortable(Messages.ImagePage_columnIndex, 45, r -> Integer.toString(r.index()), Comparator.comparingInt(MemoryRegion::index));
        sortable(Messages.MemoryMapPage_columnHalf, 60, r -> r.half().label(), Comparator.comparing(r -> r.half()));
        sortable(Messages.MemoryMapPage_columnStart, 130, r -> hex(r.start()), (a, b) -> Long.compareUnsigned(a.start(), b.start()));
        sortable(Messages.MemoryMapPage_columnEnd, 130, r -> hex(r.end()), (a, b) -> Long.compareUnsigned(a.end(), b.end()));
        sortable(Messages.MemoryMapPage_columnSize, 80, r -> ManaFormat.bytes(r.mappedBytes()), Comparator.comparingLong(MemoryRegion::mappedBytes));
        sortable(Messages.MemoryMapPage_columnPerms, 55, MemoryRegion::permissions, Comparator.comparing(MemoryRegion::permissions));
        sortable(Messages.MemoryMapPage_columnName, 300, ImagePage::name, Comparator.comparing(MemoryRegion::name));
        sortable(Messages.MemoryMapPage_columnStored, 80, r -> ManaFormat.bytes(r.storedBytes()), Comparator.comparingLong(MemoryRegion::storedBytes));
        sortable(Messages.MemoryMapPage_columnZero, 80, r -> ManaFormat.bytes(r.zeroBytes()), Comparator.comparingLong(MemoryRegion::zeroBytes));
        sortable(Messages.MemoryMapPage_columnNotSaved, 200, MemoryRegion::whyNotSaved, Comparator.comparing(MemoryRegion::whyNotSaved));
        viewer.addFilter(new ViewerFilter() {
            @Override
            public boolean select(Viewer v, Object parentElement, Object element) {
                MemoryRegion r = (MemoryRegion) element;
                if (savedOnly.getSelection() && !r.saved()) {
                    return false;
                }
                String f = filter.getText().trim().toLowerCase(Locale.ROOT);
                return f.isEmpty() || (r.name() + " " + hex(r.start()) + " " + hex(r.end()) + " " + r.permissions() + " "
                    + r.half().label() + " " + String.join(" ", r.flagNames())).toLowerCase(Locale.ROOT).contains(f);
            }
        });
        viewer.setComparator(new ViewerComparator() {
            @Override
            public int compare(Viewer v, Object a, Object b) {
                if (sort == null) {
                    return 0;
                }
                int c = sort.compare((MemoryRegion) a, (MemoryRegion) b);
                return descending ? -c : c;
            }
        });
        viewer.addSelectionChangedListener(e -> strip.setSelected(selected()));
        viewer.addDoubleClickListener(e -> showSelectedInHex());
    }

    private void sortable(String title, int width, Function<MemoryRegion, String> text, Comparator<MemoryRegion> cmp) {
        TableViewerColumn c = column(viewer, title, width, MemoryRegion.class, text);
        c.getColumn().addListener(SWT.Selection, e -> {
            descending = sort == cmp && !descending;
            sort = cmp;
            viewer.getTable().setSortColumn(c.getColumn());
            viewer.getTable().setSortDirection(descending ? SWT.DOWN : SWT.UP);
            viewer.refresh();
        });
    }

    @Override
    void fill() throws ImageException {
        regions = editor.image().regions();
        long mapped = 0;
        long stored = 0;
        long zero = 0;
        int saved = 0;
        for (MemoryRegion r : regions) {
            if (r.saved()) {
                saved++;
                mapped += r.mappedBytes();
            }
            stored += r.storedBytes();
            zero += r.zeroBytes();
        }
        totals.setText(NLS.bind(Messages.MemoryMapPage_totals, new Object[] {regions.size(), saved,
            ManaFormat.bytes(mapped), ManaFormat.bytes(stored), ManaFormat.bytes(zero)}));

        totals.getParent().layout();
        strip.setRegions(regions);
        viewer.setInput(regions);
    }

    MemoryRegion selected() {
        return (MemoryRegion) ((IStructuredSelection) viewer.getSelection()).getFirstElement();
    }

    /** Selects a region in the table and the strip. */
    void select(MemoryRegion r) {
        viewer.setSelection(new StructuredSelection(r), true);
        strip.setSelected(r);
    }

    void showSelectedInHex() {
        MemoryRegion r = selected();
        if (r != null) {
            editor.showHex(r.start());
        }
    }

    void setFilter(String text, boolean saved) {
        filter.setText(text);
        savedOnly.setSelection(saved);
        viewer.refresh();
    }

    List<MemoryRegion> regions() {
        return regions;
    }

    int visibleRows() {
        return viewer.getTable().getItemCount();
    }

    MemoryStrip strip() {
        return strip;
    }
}
