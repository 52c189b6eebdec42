package dev.mana.eclipse.internal.ui.launch;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.debug.core.IStatusHandler;
import org.eclipse.jface.dialogs.MessageDialog;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.widgets.Display;
import org.eclipse.ui.PlatformUI;

/**
 * When a launch finds an old checkpoint in its checkpoint directory (MANA refuses to overwrite one),
 * asks whether to delete it; returns TRUE when it was deleted and the launch may go on.
 */
public final class StaleCheckpointStatusHandler implements IStatusHandler {
    @Override
    public Object handleStatus(IStatus status, Object source) throws CoreException {
        File dir = (File) source;
        AtomicBoolean yes = new AtomicBoolean();
        Display d = PlatformUI.getWorkbench().getDisplay();
        d.syncExec(() -> yes.set(MessageDialog.openQuestion(d.getActiveShell(), Messages.StaleCheckpoint_title,
            NLS.bind(Messages.StaleCheckpoint_question, dir))));
        if (!yes.get()) {
            return Boolean.FALSE;
        }
        File[] ranks = dir.listFiles((f, n) -> n.matches("ckpt_rank_\\d+"));
        for (File r : ranks == null ? new File[0] : ranks) {
            try (Stream<Path> s = Files.walk(r.toPath())) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            } catch (IOException e) {
                throw new CoreException(Status.error(NLS.bind(Messages.StaleCheckpoint_cannotDelete, r, e.getMessage()), e)
);
            }
        }
        return Boolean.TRUE;
    }
}
