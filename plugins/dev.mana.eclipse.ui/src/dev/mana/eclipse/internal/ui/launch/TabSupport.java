package dev.mana.eclipse.internal.ui.launch;

import org.eclipse.debug.ui.StringVariableSelectionDialog;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.DirectoryDialog;
import org.eclipse.swt.widgets.FileDialog;
import org.eclipse.swt.widgets.Group;
import org.eclipse.swt.widgets.Text;

/** Small builders shared by the tabs. */
final class TabSupport {
    private TabSupport() {}

    /** Sets an attribute, or removes it when it has its default value (so a configuration is not made dirty). */
    static void put(org.eclipse.debug.core.ILaunchConfigurationWorkingCopy wc, String key, Object value, Object dflt) {
        if (value == null || value.equals(dflt)) {
            wc.removeAttribute(key);
        } else if (value instanceof String s) {
            wc.setAttribute(key, s);
        } else if (value instanceof Integer i) {
            wc.setAttribute(key, i.intValue());
        } else if (value instanceof Boolean b) {
            wc.setAttribute(key, b.booleanValue());
        }
    }

    static Group group(Composite parent, String label, int columns) {
        Group g = new Group(parent, SWT.NONE);
        g.setText(label);
        g.setLayout(new GridLayout(columns, false));
        g.setLayoutData(new GridData(SWT.FILL, SWT.TOP, true, false));
        return g;
    }

    static Text text(Composite parent, int span, Runnable changed) {
        Text t = new Text(parent, SWT.SINGLE | SWT.BORDER);
        GridData gd = new GridData(SWT.FILL, SWT.CENTER, true, false);
        gd.horizontalSpan = span;
        t.setLayoutData(gd);
        t.addModifyListener(e -> changed.run());
        return t;
    }

    static Button button(Composite parent, String label, Runnable action) {
        Button b = new Button(parent, SWT.PUSH);
        b.setText(label);
        b.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, false, false));
        b.addListener(SWT.Selection, e -> action.run());
        return b;
    }

    /** Buttons below a text: Browse (file or folder) and Variables. */
    static void browseButtons(Composite parent, Text target, boolean folder, String title) {
        Composite c = new Composite(parent, SWT.NONE);
        GridLayout l = new GridLayout(2, true);
        l.marginWidth = 0;
        l.marginHeight = 0;
        c.setLayout(l);
        GridData gd = new GridData(SWT.END, SWT.TOP, true, false);
        gd.horizontalSpan = ((GridLayout) parent.getLayout()).numColumns;
        c.setLayoutData(gd);
        button(c, folder ? Messages.TabSupport_fileSystem : Messages.TabSupport_browse, () -> {
            String path;
            if (folder) {
                DirectoryDialog d = new DirectoryDialog(parent.getShell());
                d.setText(title);
                d.setFilterPath(target.getText());
                path = d.open();
            } else {
                FileDialog d = new FileDialog(parent.getShell(), SWT.OPEN);
                d.setText(title);
                d.setFileName(target.getText());
                path = d.open();
            }
            if (path != null) {
                target.setText(path);
            }
        });
        button(c, Messages.TabSupport_variables,
 () -> variables(target));
    }

    static void variables(Text target) {
        StringVariableSelectionDialog d = new StringVariableSelectionDialog(target.getShell());
        if (d.open() == StringVariableSelectionDialog.OK) {
            target.insert(d.getVariableExpression());
        }
    }
}
