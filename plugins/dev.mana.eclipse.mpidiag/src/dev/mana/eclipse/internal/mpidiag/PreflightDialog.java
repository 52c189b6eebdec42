package dev.mana.eclipse.internal.mpidiag;

import dev.mana.mpidiag.Diagnostic;
import org.eclipse.jface.dialogs.MessageDialog;
import org.eclipse.swt.widgets.Display;
import org.eclipse.ui.PlatformUI;

import java.io.File;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/** The preflight question: which MPI functions the program imports that MANA cannot checkpoint. UI classes only here. */
public final class PreflightDialog {
    public static final String TITLE = "MPI Calls That Cannot Be Checkpointed";
    public static final String LAUNCH_ANYWAY = "&Launch Anyway";

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
            MessageDialog dialog = new MessageDialog(d.getActiveShell(), TITLE, null, PreflightStatusHandler.message(program, findings),
                    MessageDialog.WARNING, 1, LAUNCH_ANYWAY, "Cancel");
            yes.set(dialog.open() == 0);
        });
        return yes.get();
    }
}
