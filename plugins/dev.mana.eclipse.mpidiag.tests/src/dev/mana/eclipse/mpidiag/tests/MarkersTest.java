package dev.mana.eclipse.mpidiag.tests;

import dev.mana.eclipse.internal.mpidiag.MarkerService;
import dev.mana.eclipse.mpidiag.MpiMarkers;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.jobs.Job;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A headless workspace: a project with a C file that calls MPI_Win_create gets a MANA problem marker
 * on that line from the background job; editing the call away removes it; a Fortran file gets one
 * too; turning the preference off removes every marker, turning it on brings them back.
 */
class MarkersTest {
    private static final String MANIFEST = """
            {"format": "mana-mpi-coverage", "version": 1, "runtime": "test",
             "mpis": [{"id": "openmpi", "soname": "libmpi.so.40"}],
             "functions": [
              {"name": "MPI_Finalize", "status": "supported", "mpis": ["openmpi"]},
              {"name": "MPI_Init", "status": "supported", "mpis": ["openmpi"]},
              {"name": "MPI_Win_create", "status": "unsupported", "mpis": ["openmpi"],
               "reason": "one-sided communication cannot be checkpointed yet"},
              {"name": "MPI_Win_free", "status": "unsupported", "mpis": ["openmpi"],
               "reason": "one-sided communication cannot be checkpointed yet"}
             ]}""";

    private IProject project;

    @AfterEach
    void cleanUp() throws CoreException {
        if (project != null) {
            project.delete(true, true, null);
        }
        MpiMarkers.preferences().remove(MpiMarkers.PREF_MANIFEST);
        MpiMarkers.preferences().remove(MpiMarkers.PREF_ENABLED);
    }

    @Test
    void markersFollowTheSources(@TempDir Path dir) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!MarkerService.active()) {
            assertTrue(System.nanoTime() < deadline, "the marker service did not start");
            Thread.sleep(10); // polling a flag; bounded by the deadline
        }
        Path manifest = dir.resolve("mpi-coverage.json");
        Files.writeString(manifest, MANIFEST);
        MpiMarkers.preferences().put(MpiMarkers.PREF_MANIFEST, manifest.toString());

        project = ResourcesPlugin.getWorkspace().getRoot().getProject("mpi-demo");
        project.create(null);
        project.open(null);
        IFile c = project.getFile("ring.c");
        c.create(stream("#include <mpi.h>\nint main(int argc, char **argv) {\n  MPI_Win w; MPI_Init(&argc, &argv);\n"
                + "  MPI_Win_create(0, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);\n  MPI_Finalize();\n}\n"), true, null);
        IMarker[] ms = markers(c);
        assertEquals(1, ms.length);
        IMarker m = ms[0];
        assertEquals(4, m.getAttribute(IMarker.LINE_NUMBER, -1));
        assertEquals(IMarker.SEVERITY_ERROR, m.getAttribute(IMarker.SEVERITY, -1));
        assertEquals("MPI_Win_create", m.getAttribute(MpiMarkers.ATTR_FUNCTION, ""));
        assertEquals("mana/unsupported", m.getAttribute(MpiMarkers.ATTR_RULE, ""));
        assertEquals("MPI_Win_create is not supported under checkpointing: one-sided communication cannot be "
                + "checkpointed yet", m.getAttribute(IMarker.MESSAGE, ""));
        String text = new String(c.getContents().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals("MPI_Win_create", text.substring(m.getAttribute(IMarker.CHAR_START, 0), m.getAttribute(IMarker.CHAR_END, 0)));
        assertTrue(m.isSubtypeOf(IMarker.PROBLEM));

        IFile f = project.getFile("win.f90");
        f.create(stream("subroutine s(w)\n  use mpi\n  integer :: w, ierr\n  call mpi_win_free(w, ierr)\nend subroutine s\n"),
                true, null);
        assertEquals(1, markers(f).length);

        c.setContents(stream("#include <mpi.h>\nint main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); }\n"),
                true, false, null);
        assertEquals(0, markers(c).length);

        MpiMarkers.preferences().putBoolean(MpiMarkers.PREF_ENABLED, false);
        assertEquals(0, markers(f).length);
        MpiMarkers.preferences().putBoolean(MpiMarkers.PREF_ENABLED, true);
        assertEquals(1, markers(f).length);
    }

    /** The file's MANA markers once the marker jobs are done. */
    private static IMarker[] markers(IFile f) throws Exception {
        Job.getJobManager().join(MpiMarkers.JOB_FAMILY, null);
        return f.findMarkers(MpiMarkers.MARKER_TYPE, false, IResource.DEPTH_ZERO);
    }

    private static ByteArrayInputStream stream(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }
}
