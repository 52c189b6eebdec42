package dev.mana.eclipse.internal.ui.images;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.Color;
import org.eclipse.swt.graphics.GC;
import org.eclipse.swt.graphics.Rectangle;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.widgets.Canvas;
import org.eclipse.swt.widgets.Composite;

import dev.mana.eclipse.core.ManaFormat;
import dev.mana.inspector.Half;
import dev.mana.inspector.MemoryRegion;

/**
 * The address space drawn to scale: regions as coloured blocks (upper half saved, upper half not saved,
 * lower half, kernel), unmapped space between them as background. Runs of regions with less than
 * {@link #BREAK_GAP} between them form clusters drawn linearly; a larger gap is drawn as a fixed-width
 * break labelled with its size (a 47-bit address space drawn linearly would leave every region invisible).
 * Clicking a block selects its region.
 */
final class MemoryStrip {
    static final long BREAK_GAP = 1L << 30;
    private static final int BREAK_WIDTH = 64;
    /** A cluster is never narrower than this (a few pages next to 256 MiB would vanish). */
    private static final int MIN_CLUSTER = 70;
    private static final int BAR = 40;
    private static final int HEIGHT = BAR + 44;

    private final Canvas canvas;
    private List<MemoryRegion> regions = List.of();
    private MemoryRegion selected;
    private final Consumer<MemoryRegion> onSelect;
    /** Laid-out blocks for the current width: x0, x1 per region, in region order. */
    private int[] xs = new int[0];
    private final List<int[]> breaks = new ArrayList<>();
    /** x of each cluster's first pixel and its first region index. */
    private final List<int[]> clusterStarts = new ArrayList<>();
    private final List<Long> breakSizes = new ArrayList<>();

    MemoryStrip(Composite parent, Consumer<MemoryRegion> onSelect) {
        this.onSelect = onSelect;
        canvas = new Canvas(parent, SWT.DOUBLE_BUFFERED | SWT.BORDER);
        GridData gd = new GridData(SWT.FILL, SWT.TOP, true, false);
        gd.heightHint = HEIGHT;
        canvas.setLayoutData(gd);
        canvas.addPaintListener(e -> paint(e.gc));
        canvas.addListener(SWT.Resize, e -> canvas.redraw());
        canvas.addListener(SWT.MouseDown, e -> {
            MemoryRegion r = regionAtX(e.x);
            if (r != null) {
                onSelect.accept(r);
            }
        });
        canvas.addListener(SWT.MouseHover, e -> {
            MemoryRegion r = regionAtX(e.x);
            canvas.setToolTipText(r == null ? null : r.saved()
                ? NLS.bind(Messages.MemoryStrip_tip, new Object[] {r, ManaFormat.bytes(r.mappedBytes()), r.half().label()})
                : NLS.bind(Messages.MemoryStrip_tipNotSaved,
                    new Object[] {r, ManaFormat.bytes(r.mappedBytes()), r.half().label(), r.whyNotSaved()}));
        });
    }

    void setRegions(List<MemoryRegion> rs) {
        regions = rs;
        canvas.redraw();
    }

    void setSelected(MemoryRegion r) {
        selected = r;
        canvas.redraw();
    }

    Canvas control() {
        return canvas;
    }

    /** Number of breaks drawn (gaps of a GiB or more): for tests. */
    int breakCount() {
        layout(canvas.getClientArea().width);
        return breaks.size();
    }

    private MemoryRegion regionAtX(int x) {
        for (int i = 0; i < regions.size() && 2 * i + 1 < xs.length; i++) {
            if (x >= xs[2 * i] && x <= xs[2 * i + 1]) {
                return regions.get(i);
            }
        }
        return null;
    }

    /** Positions of every region for a strip {@code width} pixels wide. */
    private void layout(int width) {
        int n = regions.size();
        xs = new int[2 * n];
        breaks.clear();
        breakSizes.clear();
        clusterStarts.clear();
        if (n == 0) {
            return;
        }
        // clusters: [first, last] index ranges, split at gaps of BREAK_GAP or more
        List<int[]> clusters = new ArrayList<>();
        int first = 0;
        for (int i = 1; i <= n; i++) {
            if (i == n || Long.compareUnsigned(regions.get(i).start() - regions.get(i - 1).end(), BREAK_GAP) >= 0) {
                clusters.add(new int[] {first, i - 1});
                first = i;
            }
        }
        int usable = Math.max(clusters.size(), width - 4 - BREAK_WIDTH * (clusters.size() - 1));
        // widths to scale, but at least MIN_CLUSTER each (taken from the clusters above the minimum)
        double total = 0;
        for (int[] c : clusters) {
            total += span(c);
        }
        double[] w = new double[clusters.size()];
        int small = 0;
        double bigTotal = 0;
        for (int k = 0; k < w.length; k++) {
            w[k] = usable * span(clusters.get(k)) / total;
            if (w[k] < MIN_CLUSTER) {
                small++;
            } else {
                bigTotal += span(clusters.get(k));
            }
        }
        int left = usable - small * MIN_CLUSTER;
        if (small > 0 && left > 0 && bigTotal > 0) {
            for (int k = 0; k < w.length; k++) {
                w[k] = w[k] < MIN_CLUSTER ? MIN_CLUSTER : left * span(clusters.get(k)) / bigTotal;
            }
        }
        double x = 2;
        for (int k = 0; k < clusters.size(); k++) {
            int[] c = clusters.get(k);
            long base = regions.get(c[0]).start();
            clusterStarts.add(new int[] {(int) Math.round(x), c[0]});
            for (int i = c[0]; i <= c[1]; i++) {
                MemoryRegion r = regions.get(i);
                int x0 = (int) Math.round(x + w[k] * unsigned(r.start() - base) / span(c));
                int x1 = (int) Math.round(x + w[k] * unsigned(r.end() - base) / span(c)) - 1;
                xs[2 * i] = x0;
                xs[2 * i + 1] = Math.max(x0, x1); // at least one pixel
            }
            x += w[k];
            if (k < clusters.size() - 1) {
                breaks.add(new int[] {(int) Math.round(x), (int) Math.round(x) + BREAK_WIDTH});
                breakSizes.add(regions.get(clusters.get(k + 1)[0]).start() - regions.get(c[1]).end());
                x += BREAK_WIDTH;
            }
        }
    }

    private double span(int[] c) {
        return Math.max(1, unsigned(regions.get(c[1]).end() - regions.get(c[0]).start()));
    }

    private static double unsigned(long v) {
        return v >= 0 ? v : v + 0x1p64;
    }

    private void paint(GC gc) {
        Rectangle a = canvas.getClientArea();
        layout(a.width);
        var d = canvas.getDisplay();
        gc.setBackground(d.getSystemColor(SWT.COLOR_WIDGET_LIGHT_SHADOW));
        gc.fillRectangle(a);
        int top = 4;
        int h = BAR;
        int lineH = gc.getFontMetrics().getHeight();
        for (int i = 0; i < regions.size(); i++) {
            MemoryRegion r = regions.get(i);
            gc.setBackground(colour(r));
            gc.fillRectangle(xs[2 * i], top, xs[2 * i + 1] - xs[2 * i] + 1, h);
        }
        // a gap of a GiB or more: a break with its size
        gc.setForeground(d.getSystemColor(SWT.COLOR_DARK_GRAY));
        for (int k = 0; k < breaks.size(); k++) {
            int[] b = breaks.get(k);
            gc.drawLine(b[0] + 10, top, b[0] + 4, top + h);
            gc.drawLine(b[1] - 4, top, b[1] - 10, top + h);
            String gap = ManaFormat.bytes(breakSizes.get(k));
            gc.drawText(gap, (b[0] + b[1] - gc.textExtent(gap).x) / 2, top + (h - lineH) / 2, true);
        }
        if (selected != null) {
            int i = regions.indexOf(selected);
            if (i >= 0 && 2 * i + 1 < xs.length) {
                gc.setForeground(d.getSystemColor(SWT.COLOR_BLACK));
                gc.setLineWidth(2);
                gc.drawRectangle(xs[2 * i] - 1, top - 2, xs[2 * i + 1] - xs[2 * i] + 2, h + 3);
                gc.setLineWidth(1);
            }
        }
        // each cluster's first address under it; the legend on the second line
        gc.setForeground(d.getSystemColor(SWT.COLOR_BLACK));
        int lastEnd = -1;
        for (int[] cs : clusterStarts) {
            String s = hex(regions.get(cs[1]).start());
            if (cs[0] > lastEnd) {
                gc.drawText(s, cs[0], top + h + 2, true);
                lastEnd = cs[0] + gc.textExtent(s).x + 8;
            }
        }
        if (!regions.isEmpty()) {
            String end = hex(regions.get(regions.size() - 1).end());
            int ex = a.width - gc.textExtent(end).x - 2;
            if (ex > lastEnd) {
                gc.drawText(end, ex, top + h + 2, true);
            }
        }
        int lx = 2;
        int ly = top + h + 2 + lineH;
        String[] names = {Messages.MemoryStrip_upperSaved, Messages.MemoryStrip_upperNotSaved, Messages.MemoryStrip_lower,
            Messages.MemoryStrip_kernel};

        Color[] colours = {new Color(50, 110, 200), new Color(170, 185, 205), new Color(235, 150, 60),
            new Color(150, 100, 190)};
        for (int k = 0; k < names.length; k++) {
            gc.setBackground(colours[k]);
            gc.fillRectangle(lx, ly + 3, 12, lineH - 6);
            gc.drawText(names[k], lx + 16, ly, true);
            lx += 16 + gc.textExtent(names[k]).x + 18;
        }
    }

    static Color colour(MemoryRegion r) {
        if (r.half() == Half.LOWER) {
            return new Color(235, 150, 60);
        }
        if (r.half() == Half.KERNEL) {
            return new Color(150, 100, 190);
        }
        return r.saved() ? new Color(50, 110, 200) : new Color(170, 185, 205);
    }

    private static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }
}
