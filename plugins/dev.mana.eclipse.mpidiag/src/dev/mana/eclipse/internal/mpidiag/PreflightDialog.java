package dev.mana.eclipse.internal.mpidiag;

import dev.mana.mpidiag.Diagnostic;
import org.eclipse.jface.dialogs.IDialogConstants;
import org.eclipse.jface.dialogs.MessageDialog;
import org.eclipse.swt.widgets.Display;
import org.eclipse.ui.PlatformUI;

import java.io.File;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/** The preflight question: which MPI functions the program imports that MANA cannot checkpoint. UI classes only here. */
public final class PreflightDialog {
    private PreflightDialog() {
    }

    static boolean workbenchRunning() {
        return PlatformUI.isWorkbenchRunning();
    }

    /** Asks on the UI thread; TRUE: launch anyway. */
    static Boolean ask(File program, List<Diagnostic> findings) {
        AtomicBoolean yes = new AtomicBoolean();
        Display d = PlatformUI.getWorkbench().getDisplay();
        d.syncExec(() -> {
            MessageDialog dialog = new MessageDialog(d.getActiveShell(), Messages.PreflightDialog_title, null,
                    PreflightStatusHandler.message(program, findings), MessageDialog.WARNING, 1,
                    Messages.PreflightDialog_launchAnyway, IDialogConstants.CANCEL_LABEL);
            yes.set(dialog.open() == 0);
        });
        return yes.get();
    }
}
