package dev.mana.eclipse.mpidiag.tests;

import dev.mana.eclipse.internal.mpidiag.Messages;
import dev.mana.eclipse.internal.mpidiag.PreflightStatusHandler;
import dev.mana.eclipse.mpidiag.MpiMarkers;
import dev.mana.mpidiag.Diagnostic;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.IStatusHandler;
import org.eclipse.osgi.util.NLS;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launch delegate's preflight handler, headless: registered for dev.mana.eclipse.core's code 102;
 * a program built here with mpicc.openmpi that calls MPI_Win_create is found; without a workbench the
 * launch is never blocked.
 */
class PreflightTest {
    static final String MANIFEST = """
            {"format": "mana-mpi-coverage", "version": 1, "mpis": [],
             "functions": [
              {"name": "MPI_Finalize", "status": "supported"},
              {"name": "MPI_Init", "status": "supported"},
              {"name": "MPI_Win_create", "status": "unsupported", "reason": "one-sided communication cannot be checkpointed yet"}
             ]}""";

    @AfterEach
    void reset() {
        MpiMarkers.preferences().remove(MpiMarkers.PREF_MANIFEST);
        MpiMarkers.preferences().remove(MpiMarkers.PREF_PREFLIGHT);
    }

    static Path build(Path dir, String name, String body) throws Exception {
        Files.writeString(dir.resolve(name + ".c"), "#include <mpi.h>\nint main(int c, char **v) { MPI_Win w; double x;\n"
                + "  MPI_Init(&c, &v);\n" + body + "\n  MPI_Finalize(); return 0; }\n");
        Process p = new ProcessBuilder("mpicc.openmpi", "-o", name, name + ".c").directory(dir.toFile())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, out);
        return dir.resolve(name);
    }

    @Test
    void findsWhatTheProgramImportsAndNeverBlocksHeadless(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("m.json"), MANIFEST);
        MpiMarkers.preferences().put(MpiMarkers.PREF_MANIFEST, dir.resolve("m.json").toString());
        Path win = build(dir, "win", "  MPI_Win_create(&x, 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);");
        Path clean = build(dir, "clean", "");

        List<Diagnostic> ds = PreflightStatusHandler.findings(win);
        assertEquals(List.of("MPI_Win_create"), ds.stream().map(Diagnostic::function).toList());
        assertEquals(List.of(), PreflightStatusHandler.findings(clean));
        String msg = PreflightStatusHandler.message(win.toFile(), ds);
        assertTrue(msg.startsWith(NLS.bind(Messages.Preflight_headOne, "win")), msg);
        assertTrue(msg.contains("\u2022 " + NLS.bind(Messages.Preflight_reason, "MPI_Win_create",
                "one-sided communication cannot be checkpointed yet") + " (imported by "), msg);


        IStatus preflight = new Status(IStatus.INFO, "dev.mana.eclipse.core", 102, "preflight", null);
        IStatusHandler handler = DebugPlugin.getDefault().getStatusHandler(preflight);
        assertNotNull(handler, "no status handler registered for the preflight");
        assertEquals(Boolean.TRUE, handler.handleStatus(preflight, win.toFile()), "headless: the launch goes on");
        MpiMarkers.preferences().putBoolean(MpiMarkers.PREF_PREFLIGHT, false);
        assertEquals(Boolean.TRUE, handler.handleStatus(preflight, win.toFile()));
    }
}
