package dev.mana.eclipse.ui.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mana.eclipse.core.ManaRuntime;
import java.io.File;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * The runtime fragment carries the whole runtime: its launchers and the MPI coverage manifest
 * ({@code share/mana/mpi-coverage.json}, read by the IDE's MPI diagnostics), the very file the build wrote.
 */
class BundledRuntimeTest {
    @Test
    void fragmentCarriesTheLaunchersAndTheCoverageManifest() throws Exception {
        File built = new File(System.getProperty("mana.root"), "share/mana/mpi-coverage.json");
        if (!built.isFile()) {
            Cannot.skipOrFail("runtime", "the runtime is not built (make build): no " + built);
        }
        File runtime = ManaRuntime.bundled();
        assertNotNull(runtime, "the fragment " + ManaRuntime.RUNTIME_FRAGMENT + " is in the test runtime");
        assertTrue(new File(runtime, "bin/mana_launch").isFile(), runtime + " has bin/mana_launch");
        File manifest = new File(runtime, "share/mana/mpi-coverage.json");
        assertTrue(manifest.isFile(), runtime + " has share/mana/mpi-coverage.json");
        String text = Files.readString(manifest.toPath());
        assertTrue(text.matches("(?s)\\s*\\{.*\"format\"\\s*:\\s*\"mana-mpi-coverage\".*"), "a coverage manifest");
        assertArrayEquals(Files.readAllBytes(built.toPath()), Files.readAllBytes(manifest.toPath()));
    }
}
