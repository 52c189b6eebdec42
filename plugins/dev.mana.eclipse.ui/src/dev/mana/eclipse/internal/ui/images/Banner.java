package dev.mana.eclipse.internal.ui.images;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.Color;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Label;

/**
 * The strip at the top of the image editor that says what is wrong with the image (truncated, corrupt,
 * malformed ... : the inspector's error kinds), hidden while nothing is. Every page that can still be read
 * stays usable below it.
 */
final class Banner {
    private final Composite root;
    private final Label icon;
    private final Label text;
    private final List<String> lines = new ArrayList<>();

    Banner(Composite parent) {
        root = new Composite(parent, SWT.NONE);
        Color bg = new Color(255, 228, 225);
        root.setBackground(bg);
        GridLayout gl = new GridLayout(2, false);
        gl.marginWidth = 8;
        gl.marginHeight = 6;
        root.setLayout(gl);
        icon = new Label(root, SWT.NONE);
        icon.setBackground(bg);
        icon.setImage(parent.getDisplay().getSystemImage(SWT.ICON_ERROR));
        icon.setLayoutData(new GridData(SWT.LEFT, SWT.TOP, false, false));
        text = new Label(root, SWT.WRAP);
        text.setBackground(bg);
        text.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        GridData gd = new GridData(SWT.FILL, SWT.TOP, true, false);
        gd.exclude = true;
        root.setLayoutData(gd);
        root.setVisible(false);
    }

    /** Adds a problem line (once) and shows the banner. */
    void add(String line) {
        if (lines.contains(line) || root.isDisposed()) {
            return;
        }
        lines.add(line);
        text.setText(String.join("\n", lines.size() > 6 ? lines.subList(0, 6) : lines)
            + (lines.size() > 6 ? "\n" + NLS.bind(Messages.Banner_more, lines.size() - 6) : ""));

        ((GridData) root.getLayoutData()).exclude = false;
        root.setVisible(true);
        root.getParent().layout(true, true);
    }

    boolean isShown() {
        return root.getVisible();
    }

    String getText() {
        return String.join("\n", lines);
    }
}
