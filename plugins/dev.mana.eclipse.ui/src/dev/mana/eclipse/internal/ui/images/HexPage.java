package dev.mana.eclipse.internal.ui.images;

import java.nio.ByteBuffer;
import java.util.List;

import org.eclipse.jface.resource.JFaceResources;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.StyledText;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Text;

import dev.mana.inspector.HexDump;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.MemoryRegion;

/**
 * Hex and ASCII of process memory as restore would recreate it (zero pages as zeros), one 4 KiB page at a
 * time read from the file on demand: never the image, nor a region, in memory. The lines are those of
 * {@code mana_inspect hexdump} (the library's {@link HexDump}).
 */
final class HexPage extends ImagePage {
    static final int PAGE = 4096;
    private Text address;
    private Label where;
    private StyledText text;
    private long shownStart = -1;
    private int shownLength;

    HexPage(ImageEditor editor) {
        super(editor);
    }

    @Override
    String title() {
        return Messages.HexPage_title;
    }

    @Override
    void createContents(Composite parent) {
        Composite bar = new Composite(parent, SWT.NONE);
        bar.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        GridLayout gl = new GridLayout(6, false);
        gl.marginWidth = 0;
        bar.setLayout(gl);
        new Label(bar, SWT.NONE).setText(Messages.HexPage_address);
        address = new Text(bar, SWT.BORDER);
        GridData ad = new GridData(SWT.LEFT, SWT.CENTER, false, false);
        ad.widthHint = 180;
        address.setLayoutData(ad);
        address.setMessage("0x7ffff7dbc000");
        address.addListener(SWT.DefaultSelection, e -> go());
        Button go = new Button(bar, SWT.PUSH);
        go.setText(Messages.HexPage_go);
        go.addListener(SWT.Selection, e -> go());
        Button prev = new Button(bar, SWT.PUSH);
        prev.setText(Messages.HexPage_previous);
        prev.addListener(SWT.Selection, e -> step(-1));
        Button next = new Button(bar, SWT.PUSH);
        next.setText(Messages.HexPage_next);
        next.addListener(SWT.Selection, e -> step(1));
        where = new Label(bar, SWT.NONE);
        where.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        text = new StyledText(parent, SWT.BORDER | SWT.READ_ONLY | SWT.V_SCROLL | SWT.H_SCROLL);
        text.setFont(JFaceResources.getTextFont());
        text.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));
    }

    @Override
    void fill() throws ImageException {
        if (shownStart < 0) {
            // the first saved region with contents, so the page never opens empty
            for (MemoryRegion r : editor.image().regions()) {
                if (r.saved() && r.storedBytes() > 0) {
                    show(r.start());
                    return;
                }
            }
            where.setText(Messages.HexPage_noContents);
        }
    }

    private void go() {
        String s = address.getText().trim().toLowerCase();
        try {
            long a = s.startsWith("0x") ? Long.parseUnsignedLong(s.substring(2), 16) : Long.parseUnsignedLong(s);
            show(a);
        } catch (NumberFormatException e) {
            where.setText(NLS.bind(Messages.HexPage_notAnAddress, s));
        }
    }

    private void step(int dir) {
        if (shownStart < 0) {
            return;
        }
        try {
            MemoryRegion r = editor.image().regionAt(shownStart);
            long next = dir > 0 ? shownStart + shownLength : shownStart - PAGE;
            if (r != null && r.contains(next)) {
                show(next);
                return;
            }
            // leave the region: the next (previous) saved region's first (last) page
            List<MemoryRegion> rs = editor.image().regions();
            int i = r == null ? -1 : r.index();
            for (int k = i + dir; k >= 0 && k < rs.size(); k += dir) {
                MemoryRegion o = rs.get(k);
                if (o.saved()) {
                    show(dir > 0 ? o.start() : Math.max(o.start(), (o.end() - 1) & ~(long) (PAGE - 1)));
                    return;
                }
            }
        } catch (ImageException e) {
            where.setText(e.getMessage());
        }
    }

    /** Shows the 4 KiB page holding {@code addr} (clipped to its region). */
    void show(long addr) {
        address.setText(hex(addr));
        try {
            MemoryRegion r = editor.image().regionAt(addr);
            if (r == null) {
                where.setText(NLS.bind(Messages.HexPage_notInRegion, hex(addr)));
                return;
            }
            if (!r.saved()) {
                where.setText(NLS.bind(Messages.HexPage_notSaved, new Object[] {hex(addr), r, r.whyNotSaved()}));
                return;
            }
            long start = Math.max(r.start(), addr & ~(long) (PAGE - 1));
            int n = (int) Math.min(PAGE, r.end() - start);
            ByteBuffer b = ByteBuffer.allocate(n);
            editor.image().readMemory(start, b);
            text.setText(HexDump.lines(start, b.array(), n));
            shownStart = start;
            shownLength = n;
            long pageNo = (start - r.start()) / PAGE;
            where.setText(NLS.bind(Messages.HexPage_where, new Object[] {r.index(), name(r), r.permissions(), pageNo + 1,
                (r.mappedBytes() + PAGE - 1) / PAGE}));
            int line = (int) ((addr - start) / 16);
            text.setTopIndex(Math.max(0, line - 2));
        } catch (ImageException e) {
            where.setText(NLS.bind(Messages.HexPage_cannotRead, hex(addr), e.getMessage()));

            editor.report(title(), e);
        }
        where.getParent().layout();
    }

    String getText() {
        return text.getText();
    }

    String getWhere() {
        return where.getText();
    }

    long shownStart() {
        return shownStart;
    }
}
