package dev.mana.eclipse.mpidiag;

import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.mpidiag.CoverageManifest;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;

import java.io.File;
import java.nio.file.Path;

/**
 * MPI diagnostics in the workspace: problem markers of type {@value #MARKER_TYPE} on C, C++ and
 * Fortran files of open projects, for MPI calls the runtime cannot checkpoint (docs/mpi-diagnostics.md).
 * A background job keeps them current as files change; the preference {@value #PREF_ENABLED} turns
 * them off.
 */
public final class MpiMarkers {
    public static final String PLUGIN_ID = "dev.mana.eclipse.mpidiag";
    public static final String MARKER_TYPE = PLUGIN_ID + ".problem";
    /** Marker attributes: the MPI function's C name and the rule id (mana/unsupported, ...). */
    public static final String ATTR_FUNCTION = "function";
    public static final String ATTR_RULE = "rule";
    /** Preferences (instance scope of {@value #PLUGIN_ID}). */
    public static final String PREF_ENABLED = "enabled";
    public static final String PREF_MANIFEST = "manifest";
    /** Whether a launch checks the MPI functions the program imports first (default true). */
    public static final String PREF_PREFLIGHT = "preflight";
    /** The family of the marker jobs (Job.getJobManager().join(JOB_FAMILY, ...) waits for them). */
    public static final Object JOB_FAMILY = MpiMarkers.class;

    private MpiMarkers() {
    }

    public static IEclipsePreferences preferences() {
        return InstanceScope.INSTANCE.getNode(PLUGIN_ID);
    }

    public static boolean enabled() {
        return preferences().getBoolean(PREF_ENABLED, true);
    }

    /** The manifest: the preference, else share/mana/mpi-coverage.json of the runtime the IDE uses; null if neither. */
    public static Path manifestFile() {
        String pref = preferences().get(PREF_MANIFEST, "");
        if (!pref.isBlank()) {
            return Path.of(pref);
        }
        File root = ManaRuntime.locate();
        return root == null ? null : CoverageManifest.defaultLocation(root.toPath());
    }
}
