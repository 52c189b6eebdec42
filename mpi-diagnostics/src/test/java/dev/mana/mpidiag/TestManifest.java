package dev.mana.mpidiag;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real coverage manifest for the tests: the one the runtime's generator makes from both MPIs'
 * headers and libraries and the policy table (core-native/src/mpi/api). This module's build runs the
 * generator before the tests (`mpiapi.py system`, pom.xml) and names the file in the system property
 * {@code mana.test.manifest}. Tests take reasons from here rather than writing them out, so that a
 * reworded reason in the policy table cannot leave them asserting on text the runtime no longer says.
 */
public final class TestManifest {
    /** Why dynamic-process calls are refused, as the manifest says it. */
    public static final String DYNAMIC = reason("MPI_Open_port");

    private static CoverageManifest cached;

    private TestManifest() {
    }

    /** The generated manifest file; fails with the way to make it when the build has not. */
    public static Path file() {
        String p = System.getProperty("mana.test.manifest");
        if (p == null || !Files.isRegularFile(Path.of(p))) {
            throw new IllegalStateException("the generated coverage manifest is missing (" + p + "): run the tests "
                    + "through Maven, which makes it with core-native/src/mpi/api/mpiapi.py system --out target/coverage");
        }
        return Path.of(p);
    }

    public static synchronized CoverageManifest manifest() {
        if (cached == null) {
            try {
                cached = CoverageManifest.read(file());
            } catch (ManifestException e) {
                throw new IllegalStateException(e);
            }
        }
        return cached;
    }

    /** The manifest's reason for a function (null when it has none). */
    public static String reason(String function) {
        return manifest().lookup(function)
                .orElseThrow(() -> new IllegalStateException(function + " is not in the generated manifest"))
                .reason();
    }
}
