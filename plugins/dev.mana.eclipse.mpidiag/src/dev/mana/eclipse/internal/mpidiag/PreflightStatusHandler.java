package dev.mana.eclipse.internal.mpidiag;

import dev.mana.eclipse.mpidiag.MpiMarkers;
import dev.mana.mpidiag.BinaryPreflight;
import dev.mana.mpidiag.CoverageManifest;
import dev.mana.mpidiag.Diagnostic;
import dev.mana.mpidiag.ManifestException;
import dev.mana.mpidiag.Severity;
import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.Status;
import org.eclipse.debug.core.IStatusHandler;
import org.eclipse.osgi.util.NLS;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The launch's binary preflight (ManaLaunchDelegate.PREFLIGHT): the MPI functions the program and its
 * non-MPI libraries import, against the coverage manifest. With an unsupported one, the workbench asks
 * (Launch Anyway / Cancel); without a workbench the launch goes on and the findings go to the error log.
 * Answers FALSE only when the user cancels: a missing manifest or an unreadable program never blocks.
 */
public final class PreflightStatusHandler implements IStatusHandler {
    @Override
    public Object handleStatus(IStatus status, Object source) {
        if (!(source instanceof File program) || !MpiMarkers.preferences().getBoolean(MpiMarkers.PREF_PREFLIGHT, true)) {
            return Boolean.TRUE;
        }
        List<Diagnostic> findings;
        try {
            findings = findings(program.toPath());
        } catch (ManifestException | IOException e) {
            ILog.of(getClass()).log(Status.warning("MANA preflight skipped: " + e.getMessage()));
            return Boolean.TRUE;
        }
        if (findings.stream().noneMatch(d -> d.severity() == Severity.ERROR)) {
            return Boolean.TRUE;
        }
        if (workbenchRunning()) {
            return PreflightDialog.ask(program, findings);
        }
        ILog.of(getClass()).log(Status.warning(message(program, findings)));
        return Boolean.TRUE;
    }

    /** Errors and warnings of the program's preflight, errors first. */
    public static List<Diagnostic> findings(Path program) throws ManifestException, IOException {
        Path manifest = MpiMarkers.manifestFile();
        if (manifest == null) {
            throw new ManifestException("no MANA runtime, so no MPI coverage manifest");
        }
        BinaryPreflight.Report r = new BinaryPreflight(CoverageManifest.read(manifest)).check(program);
        return BinaryPreflight.diagnostics(r).stream().filter(d -> d.severity() != Severity.INFORMATION).toList();
    }

    /** The findings as the dialog (and the error log) words them. */
    public static String message(File program, List<Diagnostic> findings) {
        StringBuilder sb = new StringBuilder();
        long errors = findings.stream().filter(d -> d.severity() == Severity.ERROR).count();
        sb.append(errors == 1 ? NLS.bind(Messages.Preflight_headOne, program.getName())
                : NLS.bind(Messages.Preflight_head, program.getName(), errors)).append('\n');
        for (Diagnostic d : findings) {
            String item = d.severity() == Severity.ERROR ? d.function() : NLS.bind(Messages.Preflight_partly, d.function());
            sb.append("\n\u2022 ").append(d.reason() == null ? item : NLS.bind(Messages.Preflight_reason, item, d.reason()));
            String m = d.message();
            int by = m.lastIndexOf(" (imported by ");
            if (by >= 0) {
                // the program by its name: its full path heads the dialog's context already
                sb.append(m.substring(by).replace(program.toString(), program.getName()));
            }
        }
        sb.append("\n\n").append(Messages.Preflight_end);
        return sb.toString();
    }

    private static boolean workbenchRunning() {
        // org.eclipse.ui is an optional requirement of this bundle: installed is not enough, it must be
        // wired to us (a headless runtime may hold it unresolved); ask only with a running workbench
        try {
            return Platform.getBundle("org.eclipse.ui") != null && PreflightDialog.workbenchRunning();
        } catch (NoClassDefFoundError e) {
            return false;
        }
    }
}
