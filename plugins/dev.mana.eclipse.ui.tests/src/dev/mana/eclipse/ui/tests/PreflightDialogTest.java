package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.IStatusHandler;
import org.eclipse.jface.dialogs.IDialogConstants;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Event;
import org.eclipse.swt.widgets.Shell;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.mana.eclipse.internal.mpidiag.Messages;
import dev.mana.eclipse.mpidiag.MpiMarkers;

/**
 * The launch's binary preflight in the workbench: a program built here with mpicc.openmpi that calls
 * MPI_Win_create makes the preflight handler (what ManaLaunchDelegate asks before starting ranks) show
 * its dialog; Cancel stops the launch, Launch Anyway lets it go. Screenshot: preflight-dialog.
 */
class PreflightDialogTest {
    @TempDir
    Path tmp;

    @AfterEach
    void reset() {
        MpiMarkers.preferences().remove(MpiMarkers.PREF_MANIFEST);
    }

    @Test
    void theDialogAsksAndCancelStopsTheLaunch() throws Exception {
        Files.writeString(tmp.resolve("m.json"), """
            {"format": "mana-mpi-coverage", "version": 1, "mpis": [],
             "functions": [
              {"name": "MPI_Finalize", "status": "supported"},
              {"name": "MPI_Init", "status": "supported"},
              {"name": "MPI_Win_create", "status": "unsupported", "reason": "one-sided communication cannot be checkpointed yet"},
              {"name": "MPI_Win_free", "status": "unsupported", "reason": "one-sided communication cannot be checkpointed yet"}
             ]}""");
        MpiMarkers.preferences().put(MpiMarkers.PREF_MANIFEST, tmp.resolve("m.json").toString());
        Files.writeString(tmp.resolve("halo.c"), "#include <mpi.h>\nint main(int c, char **v) { MPI_Win w; double x;\n"
            + "  MPI_Init(&c, &v); MPI_Win_create(&x, 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);\n"
            + "  MPI_Win_free(&w); MPI_Finalize(); return 0; }\n");
        Process p = new ProcessBuilder("mpicc.openmpi", "-o", "halo", "halo.c").directory(tmp.toFile())
            .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, out);
        File program = tmp.resolve("halo").toFile();

        IStatus preflight = new Status(IStatus.INFO, "dev.mana.eclipse.core", 102, "preflight", null);
        IStatusHandler handler = DebugPlugin.getDefault().getStatusHandler(preflight);
        assertNotNull(handler);

        assertEquals(Boolean.FALSE, answer(handler, preflight, program, IDialogConstants.CANCEL_LABEL, true));
        assertEquals(Boolean.TRUE, answer(handler, preflight, program, Messages.PreflightDialog_launchAnyway, false));
    }

    /** Runs the handler as the launch thread does, presses a button of its dialog, returns its answer. */
    private static Object answer(IStatusHandler handler, IStatus status, File program, String button, boolean screenshot)
            throws Exception {
        CompletableFuture<Object> answer = CompletableFuture.supplyAsync(() -> {
            try {
                return handler.handleStatus(status, program);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Ui.waitFor("the preflight dialog", 30_000, () -> dialog() != null);
        Ui.sync(() -> {
            Shell s = dialog();
            String text = s.getChildren().length > 0 ? allText(s) : "";
            assertTrue(text.contains(NLS.bind(Messages.Preflight_head, "halo", 2)), text);
            assertTrue(text.contains(NLS.bind(Messages.Preflight_reason, "MPI_Win_create",
                "one-sided communication cannot be checkpointed yet")), text);
            if (screenshot) {
                Ui.screenshot(s, "preflight-dialog");
            }
            Button b = find(s, button);
            assertNotNull(b, button);
            b.notifyListeners(SWT.Selection, new Event());
        });
        return answer.get(30, TimeUnit.SECONDS);
    }

    private static Shell dialog() {
        for (Shell s : Ui.display().getShells()) {
            if (!s.isDisposed() && s.isVisible() && Messages.PreflightDialog_title.equals(s.getText())
) {
                return s;
            }
        }
        return null;
    }

    private static Button find(Composite c, String label) {
        for (Control child : c.getChildren()) {
            if (child instanceof Button b && label.equals(b.getText())) {
                return b;
            }
            if (child instanceof Composite sub) {
                Button found = find(sub, label);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    private static String allText(Composite c) {
        StringBuilder sb = new StringBuilder();
        for (Control child : c.getChildren()) {
            if (child instanceof org.eclipse.swt.widgets.Label l) {
                sb.append(l.getText()).append('\n');
            }
            if (child instanceof Composite sub) {
                sb.append(allText(sub));
            }
        }
        return sb.toString();
    }
}
