package dev.mana.eclipse.core.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.mana.eclipse.core.ManaRuntime;
import dev.mana.eclipse.core.MpiImplementation;
import dev.mana.eclipse.core.MpiLauncher;
import dev.mana.eclipse.core.RuntimeCheck;

/** The runtime check names what is missing. */
class RuntimeCheckTest {

    @TempDir
    Path dir;

    private Path exe(String rel) throws IOException {
        Path p = dir.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, "#!/bin/sh\necho 'mpirun (Open MPI) 4.1.4'\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    @Test
    void noRuntime() {
        RuntimeCheck c = ManaRuntime.check(null, MpiImplementation.AUTO, MpiLauncher.MPIRUN, "");
        assertFalse(c.isOk());
        assertTrue(c.errors().get(0).contains("No MANA runtime"), c.report());
    }

    @Test
    void runtimeWithoutLaunchers() throws IOException {
        Path rt = dir.resolve("rt");
        Files.createDirectories(rt);
        exe("path/mpirun.openmpi");
        RuntimeCheck c = ManaRuntime.check(rt.toFile(), MpiImplementation.OPEN_MPI, MpiLauncher.MPIRUN,
            dir.resolve("path").toString());
        assertFalse(c.isOk());
        assertTrue(c.report().contains("has no bin/mana_launch"), c.report());
        assertTrue(c.report().contains("has no bin/mana_restart"), c.report());
    }

    @Test
    void completeRuntimeAndOpenMpi() throws IOException {
        Path rt = dir.resolve("rt");
        for (String f : ManaRuntime.REQUIRED) {
            exe("rt/" + f);
        }
        exe("rt/bin/lower-half");
        exe("rt/bin/mana_coordinator");
        exe("rt/bin/mana_status");
        Files.createDirectories(rt.resolve("lib"));
        Files.writeString(rt.resolve("lib/libmana.so"), "");
        Path mpirun = exe("path/mpirun.openmpi");
        RuntimeCheck c = ManaRuntime.check(rt.toFile(), MpiImplementation.OPEN_MPI, MpiLauncher.MPIRUN,
            dir.resolve("path").toString());
        assertTrue(c.isOk(), c.report());
        assertTrue(c.warnings().isEmpty(), c.report());
        assertEquals(mpirun.toString(), c.launcherExecutable());
        assertEquals(MpiImplementation.OPEN_MPI, c.mpi());
        assertTrue(c.report().contains("Everything needed is present"), c.report());
    }

    @Test
    void missingLowerHalfIsAWarning() throws IOException {
        Path rt = dir.resolve("rt");
        for (String f : ManaRuntime.REQUIRED) {
            exe("rt/" + f);
        }
        exe("path/mpirun.mpich");
        RuntimeCheck c = ManaRuntime.check(rt.toFile(), MpiImplementation.MPICH, MpiLauncher.MPIRUN,
            dir.resolve("path").toString());
        assertTrue(c.isOk(), c.report());
        assertTrue(c.report().contains("has no bin/lower-half"), c.report());
        assertTrue(c.report().contains("has no lib/libmana.so"), c.report());
    }

    @Test
    void missingMpiSaysWhatToInstall() throws IOException {
        Path rt = dir.resolve("rt");
        for (String f : ManaRuntime.REQUIRED) {
            exe("rt/" + f);
        }
        Files.createDirectories(dir.resolve("empty"));
        RuntimeCheck mpich = ManaRuntime.check(rt.toFile(), MpiImplementation.MPICH, MpiLauncher.MPIRUN,
            dir.resolve("empty").toString());
        assertFalse(mpich.isOk());
        assertTrue(mpich.report().contains("MPICH is not installed"), mpich.report());
        assertTrue(mpich.report().contains("Debian: mpich"), mpich.report());
        assertNull(mpich.launcherExecutable());
        RuntimeCheck srun = ManaRuntime.check(rt.toFile(), MpiImplementation.AUTO, MpiLauncher.SRUN,
            dir.resolve("empty").toString());
        assertTrue(srun.report().contains("srun is not on the PATH"), srun.report());
    }

    @Test
    void autoDetectsTheImplementation() throws IOException {
        Path real = exe("path/mpirun.openmpi");
        Path link = dir.resolve("path/mpirun");
        Files.createSymbolicLink(link, real);
        assertEquals(MpiImplementation.OPEN_MPI, ManaRuntime.detect(link.toString()));
        Path plain = exe("other/mpirun");
        assertEquals(MpiImplementation.OPEN_MPI, ManaRuntime.detect(plain.toString()), "from --version");
    }

    @Test
    void aHangingLauncherCostsAtMostItsTimeLimit() throws IOException {
        // prints nothing and never exits: detect gives up after its 5 s limit instead of waiting for good
        Path hang = dir.resolve("hang/mpirun");
        Files.createDirectories(hang.getParent());
        Files.writeString(hang, "#!/bin/sh\nexec sleep 600\n");
        Files.setPosixFilePermissions(hang, PosixFilePermissions.fromString("rwxr-xr-x"));
        long t0 = System.nanoTime();
        assertEquals(MpiImplementation.AUTO, ManaRuntime.detect(hang.toString()));
        long s = (System.nanoTime() - t0) / 1_000_000_000L;
        assertTrue(s < 60, "detect waited " + s + " s for a launcher that hangs");
    }
}
