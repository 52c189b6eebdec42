package dev.mana.mpidiag;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CoverageManifestTest {
    private static final String SMALL = """
            {"format": "mana-mpi-coverage", "version": 1, "runtime": "0.2.0", "future_field": {"x": [1, 2]},
             "mpis": [{"id": "openmpi", "version": "4.1.4", "soname": "libmpi.so.40",
                       "fortran_soname": "libmpi_mpifh.so.40", "extra": true}],
             "functions": [
               {"name": "MPI_Init_thread", "status": "partial", "mpis": ["openmpi"],
                "reason": "MPI_THREAD_MULTIPLE is granted as MPI_THREAD_SERIALIZED"},
               {"name": "MPI_Send", "status": "supported", "mpis": ["openmpi", "mpich"], "since": "0.1"},
               {"name": "MPI_Win_create", "status": "unsupported", "mpis": ["openmpi", "mpich"],
                "reason": "one-sided communication cannot be checkpointed yet"}
             ]}""";

    private static CoverageManifest parse(String text) throws ManifestException {
        return CoverageManifest.parse(Path.of("m.json"), new StringReader(text));
    }

    @Test
    void readsVersionOneAndIgnoresUnknownFields() throws Exception {
        CoverageManifest m = parse(SMALL);
        assertEquals("0.2.0", m.runtime());
        assertEquals(1, m.mpis().size());
        assertEquals("libmpi_mpifh.so.40", m.mpis().get(0).fortranSoname());
        assertEquals(3, m.functions().size());
        assertEquals(Status.PARTIAL, m.lookup("MPI_Init_thread").orElseThrow().status());
        assertEquals(1, m.counts().get(Status.UNSUPPORTED));
    }

    @Test
    void everyBindingFoldsToTheCName() throws Exception {
        CoverageManifest m = parse(SMALL);
        for (String b : new String[] {"MPI_Send", "PMPI_Send", "mpi_send", "mpi_send_", "MPI_SEND", "mpi_send__",
                "mpi_send_f08", "mpi_send_f08ts", "mpi_send_f08_", "pmpi_send_", "MPI_Send@@VERS_1"}) {
            assertEquals("MPI_Send", m.lookup(b).map(MpiFunction::name).orElse(null), b);
        }
        assertTrue(m.lookup("MPI_COMM_WORLD").isEmpty());
        assertTrue(m.lookup("printf").isEmpty());
        assertTrue(m.lookup("MPI_").isEmpty());
        assertTrue(CoverageManifest.isProfiling("pmpi_send_"));
        assertFalse(CoverageManifest.isProfiling("MPI_Send"));
    }

    @Test
    void theGeneratedTestManifestCoversBothHeaders() {
        CoverageManifest m = TestManifest.manifest();
        assertTrue(m.functions().size() > 400, "functions: " + m.functions().size());
        MpiFunction send = m.lookup("MPI_Send").orElseThrow();
        assertEquals(java.util.List.of("openmpi", "mpich"), send.mpis());
        // MPI 4.0 large-count bindings: only MPICH 4 declares them
        assertEquals(java.util.List.of("mpich"), m.lookup("MPI_Send_c").orElseThrow().mpis());
        for (int i = 1; i < m.functions().size(); i++) {
            assertTrue(m.functions().get(i - 1).name().compareTo(m.functions().get(i).name()) < 0, "sorted by name");
        }
    }

    @Test
    void aMissingFileIsOneClearLine(@TempDir Path dir) {
        ManifestException e = assertThrows(ManifestException.class,
                () -> CoverageManifest.read(dir.resolve("share/mana/mpi-coverage.json")));
        assertTrue(e.getMessage().startsWith("MPI coverage manifest not found: "), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    @Test
    void brokenManifestsAreRejectedWithOneLine(@TempDir Path dir) throws Exception {
        String[][] cases = {
                {"{\"format\": \"mana-mpi-coverage\", \"version\": 1, \"mpis\": [", "not valid JSON"},
                {"[1, 2]", "not a JSON object"},
                {"{\"format\": \"other\", \"version\": 1}", "format is \"other\""},
                {"{\"format\": \"mana-mpi-coverage\", \"version\": 2, \"mpis\": [], \"functions\": []}", "version 2 is not supported"},
                {"{\"format\": \"mana-mpi-coverage\", \"version\": 1, \"mpis\": []}", "missing array \"functions\""},
                {"{\"format\": \"mana-mpi-coverage\", \"version\": 1, \"mpis\": [], \"functions\": [{\"name\": \"MPI_X\", \"status\": \"maybe\"}]}",
                        "unknown status \"maybe\""},
                {"{\"format\": \"mana-mpi-coverage\", \"version\": 1, \"mpis\": [], \"functions\": [{\"name\": \"MPI_X\", \"status\": \"supported\"},"
                        + "{\"name\": \"MPI_X\", \"status\": \"supported\"}]}", "listed twice"},
        };
        for (String[] c : cases) {
            Path f = dir.resolve("m.json");
            Files.writeString(f, c[0]);
            ManifestException e = assertThrows(ManifestException.class, () -> CoverageManifest.read(f), c[0]);
            assertTrue(e.getMessage().contains(c[1]), e.getMessage());
            assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        }
    }
}
