package dev.mana.eclipse.debug.ui;

import dev.mana.eclipse.debug.PathMappingSourceContainer;
import dev.mana.eclipse.internal.debug.ui.Messages;
import org.eclipse.debug.core.sourcelookup.ISourceContainer;
import org.eclipse.debug.core.sourcelookup.ISourceLookupDirector;
import org.eclipse.debug.ui.sourcelookup.AbstractSourceContainerBrowser;
import org.eclipse.jface.dialogs.Dialog;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Text;

/**
 * The Source tab's <b>Add... &gt; Path Mapping</b> and <b>Edit...</b>: the folder the sources were compiled
 * in (as the debug information names it) and the folder they are in here.
 */
public final class PathMappingBrowser extends AbstractSourceContainerBrowser {

    /** The two folders; OK only when both are given. */
    static final class MappingDialog extends Dialog {
        private final String initialFrom;
        private final String initialTo;
        private Text from;
        private Text to;
        private PathMappingSourceContainer result;

        MappingDialog(Shell parent, PathMappingSourceContainer initial) {
            super(parent);
            initialFrom = initial == null ? "" : initial.from();
            initialTo = initial == null ? "" : initial.to();
        }

        @Override
        protected void configureShell(Shell shell) {
            super.configureShell(shell);
            shell.setText(Messages.PathMapping_title);
        }

        @Override
        protected Control createDialogArea(Composite parent) {
            Composite c = (Composite) super.createDialogArea(parent);
            c.setLayout(new GridLayout(2, false));
            Label intro = new Label(c, SWT.WRAP);
            intro.setText(Messages.PathMapping_intro);
            GridData span = new GridData(SWT.FILL, SWT.TOP, true, false, 2, 1);
            span.widthHint = 460;
            intro.setLayoutData(span);
            new Label(c, SWT.NONE).setText(Messages.PathMapping_from);
            from = new Text(c, SWT.BORDER);
            from.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
            from.setText(initialFrom);
            new Label(c, SWT.NONE).setText(Messages.PathMapping_to);
            to = new Text(c, SWT.BORDER);
            to.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
            to.setText(initialTo);
            from.addModifyListener(e -> validate());
            to.addModifyListener(e -> validate());
            return c;
        }

        @Override
        protected void createButtonsForButtonBar(Composite parent) {
            super.createButtonsForButtonBar(parent);
            validate();
        }

        private void validate() {
            if (getButton(OK) != null) {
                getButton(OK).setEnabled(!from.getText().isBlank() && !to.getText().isBlank());
            }
        }

        @Override
        protected void okPressed() {
            result = new PathMappingSourceContainer(from.getText(), to.getText());
            super.okPressed();
        }

        PathMappingSourceContainer result() {
            return result;
        }
    }

    @Override
    public ISourceContainer[] addSourceContainers(Shell shell, ISourceLookupDirector director) {
        MappingDialog d = new MappingDialog(shell, null);
        return d.open() == Dialog.OK ? new ISourceContainer[] {d.result()} : new ISourceContainer[0];
    }

    @Override
    public boolean canEditSourceContainers(ISourceLookupDirector director, ISourceContainer[] containers) {
        return containers.length == 1 && containers[0] instanceof PathMappingSourceContainer;
    }

    @Override
    public ISourceContainer[] editSourceContainers(Shell shell, ISourceLookupDirector director,
            ISourceContainer[] containers) {
        MappingDialog d = new MappingDialog(shell, (PathMappingSourceContainer) containers[0]);
        return d.open() == Dialog.OK ? new ISourceContainer[] {d.result()} : containers;
    }
}
