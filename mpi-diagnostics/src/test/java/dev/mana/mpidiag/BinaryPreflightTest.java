package dev.mana.mpidiag;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Programs built here with the real mpicc.openmpi, mpicc.mpich and mpif90; one of them reaches an
 * unsupported function only through a shared library of the test (found through the program's
 * DT_RPATH with $ORIGIN, from a library with no path of its own, as ld.so does it). The resolved
 * libraries are checked against the real dynamic loader's answer (ldd).
 */
class BinaryPreflightTest {
    @TempDir
    static Path dir;

    static CoverageManifest manifest;

    @BeforeAll
    static void build() throws Exception {
        manifest = TestManifest.manifest();
        Files.createDirectories(dir.resolve("lib"));
        Files.writeString(dir.resolve("win.c"), """
                #include <mpi.h>
                int open_window(void *b, MPI_Win *w)
                { (void)b; (void)w; MPI_Comm c = MPI_COMM_NULL; return MPI_Comm_disconnect(&c); }
                """);
        Files.writeString(dir.resolve("mid.c"), """
                #include <mpi.h>
                int open_window(void *b, MPI_Win *w);
                int setup(void *b, MPI_Win *w) { MPI_Barrier(MPI_COMM_WORLD); return open_window(b, w); }
                """);
        Files.writeString(dir.resolve("prog.c"), """
                #include <mpi.h>
                int setup(void *b, MPI_Win *w);
                int main(int c, char **v) { MPI_Win w; double x; MPI_Init(&c, &v); setup(&x, &w);
                  MPI_Finalize(); return 0; }
                """);
        Files.writeString(dir.resolve("clean.c"), """
                #include <mpi.h>
                int main(int c, char **v) { int r; MPI_Init(&c, &v); MPI_Comm_rank(MPI_COMM_WORLD, &r);
                  MPI_Finalize(); return 0; }
                """);
        Files.writeString(dir.resolve("io.c"), """
                #include <mpi.h>
                int main(int c, char **v) { char port[MPI_MAX_PORT_NAME]; MPI_Init(&c, &v);
                  MPI_Open_port(MPI_INFO_NULL, port);
                  MPI_Finalize(); return 0; }
                """);
        Files.writeString(dir.resolve("f.f90"), """
                program f
                  use mpi_f08
                  type(MPI_Comm) :: c
                  call MPI_Init()
                  call MPI_Comm_disconnect(c)
                  call MPI_Finalize()
                end program f
                """);
        // libwin.so and libmid.so in lib/; libmid has no RUNPATH/RPATH: libwin is found through prog's RPATH
        Cc.run(dir, "mpicc.openmpi", "-shared", "-fPIC", "-o", "lib/libwin.so", "win.c");
        Cc.run(dir, "mpicc.openmpi", "-shared", "-fPIC", "-o", "lib/libmid.so", "mid.c", "-Llib", "-lwin");
        Cc.run(dir, "mpicc.openmpi", "-o", "prog", "prog.c", "-Llib", "-lmid", "-Wl,--disable-new-dtags",
                "-Wl,-rpath,$ORIGIN/lib", "-Wl,-rpath-link,lib");
        Cc.run(dir, "mpicc.openmpi", "-o", "clean", "clean.c");
        Cc.run(dir, "mpicc.mpich", "-o", "io", "io.c");
        Cc.run(dir, "mpif90", "-o", "fort", "f.f90");
    }

    @Test
    void anUnsupportedCallThroughALibraryOfTheTestIsFoundAndNamed() throws Exception {
        BinaryPreflight.Report r = new BinaryPreflight(manifest).check(dir.resolve("prog"));
        assertEquals("openmpi", r.mpi());
        assertEquals(List.of(), r.missing());
        List<Diagnostic> ds = BinaryPreflight.diagnostics(r);
        assertEquals(1, ds.size(), ds.toString());
        Diagnostic d = ds.get(0);
        assertEquals(Severity.ERROR, d.severity());
        assertEquals("MPI_Comm_disconnect", d.function());
        assertTrue(d.message().contains("imported by " + dir.resolve("lib/libwin.so").toRealPath()), d.message());
        var barrier = r.imports().stream().filter(i -> i.function().equals("MPI_Barrier")).findFirst().orElseThrow();
        assertTrue(barrier.importers().iterator().next().endsWith("libmid.so"), barrier.importers().toString());
        // every library we resolved is where the real loader puts it
        Map<String, Path> ldd = ldd(dir.resolve("prog"));
        for (BinaryPreflight.LoadedObject o : r.objects()) {
            if (o.needed() == null || !ldd.containsKey(o.needed())) {
                continue; // the MPI library's own dependencies are not ours to follow
            }
            assertEquals(ldd.get(o.needed()).toRealPath(), o.path().toRealPath(), o.needed());
        }
        assertTrue(r.objects().stream().anyMatch(o -> o.mpi() && o.needed().equals("libmpi.so.40")));
    }

    @Test
    void aCleanProgramHasNoFindings() throws Exception {
        BinaryPreflight.Report r = new BinaryPreflight(manifest).check(dir.resolve("clean"));
        assertEquals(List.of(), BinaryPreflight.diagnostics(r));
        assertEquals(3, r.imports().size(), r.imports().toString());
    }

    @Test
    void mpichProgramsAreCheckedToo() throws Exception {
        BinaryPreflight.Report r = new BinaryPreflight(manifest).check(dir.resolve("io"));
        assertEquals("mpich", r.mpi());
        List<Diagnostic> ds = BinaryPreflight.diagnostics(r);
        assertEquals(List.of("MPI_Open_port"), ds.stream().map(Diagnostic::function).toList());
    }

    @Test
    void fortranBindingsMapToTheirCNames() throws Exception {
        BinaryPreflight.Report r = new BinaryPreflight(manifest).check(dir.resolve("fort"));
        List<Diagnostic> ds = BinaryPreflight.diagnostics(r);
        assertEquals(List.of("MPI_Comm_disconnect"), ds.stream().map(Diagnostic::function).toList());
        var disconnect = r.imports().stream().filter(i -> i.function().equals("MPI_Comm_disconnect")).findFirst().orElseThrow();
        assertTrue(disconnect.symbols().iterator().next().toLowerCase().startsWith("mpi_comm_disconnect"),
                disconnect.symbols().toString());
    }

    @Test
    void aLibraryThatCannotBeFoundIsReported(@TempDir Path other) throws Exception {
        Path copy = other.resolve("prog");
        Files.copy(dir.resolve("prog"), copy); // $ORIGIN/lib does not exist next to the copy
        BinaryPreflight.Report r = new BinaryPreflight(manifest).check(copy);
        assertEquals(List.of("libmid.so (needed by " + copy + ")"), r.missing());
    }

    @Test
    void notAnElfFileIsOneClearError(@TempDir Path other) throws Exception {
        Path f = other.resolve("script.sh");
        Files.writeString(f, "#!/bin/sh\necho hi\n");
        IOException e = assertThrows(IOException.class, () -> new BinaryPreflight(manifest).check(f));
        assertTrue(e.getMessage().contains("not an ELF file"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        assertThrows(IOException.class, () -> new BinaryPreflight(manifest).check(other.resolve("absent")));
    }

    /** needed name -> path, as the real dynamic loader resolves them. */
    static Map<String, Path> ldd(Path program) throws Exception {
        Map<String, Path> m = new HashMap<>();
        Matcher x = Pattern.compile("^\\s*(\\S+) => (/\\S+)", Pattern.MULTILINE).matcher(Cc.run(program.getParent(), "ldd",
                program.toString()));
        while (x.find()) {
            m.put(x.group(1), Path.of(x.group(2)));
        }
        assertFalse(m.isEmpty());
        return m;
    }
}
