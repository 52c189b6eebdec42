package dev.mana.mpidiag;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The corpus (src/test/resources/corpus): C, C++ and Fortran files with comments, strings, #if 0,
 * macros, continuation lines, mixed case and suppressions; expected.txt lists every finding with its
 * exact range. Also: the runtime's own example programs come out clean.
 */
class SourceCorpusTest {
    static final Path CORPUS = Path.of("src/test/resources/corpus");

    static String line(Path base, Diagnostic d) {
        var r = d.range();
        return base.relativize(Path.of(d.file())) + ":" + (r.startLine() + 1) + ":" + (r.startColumn() + 1) + "-"
                + (r.endLine() + 1) + ":" + (r.endColumn() + 1) + " " + d.severity().name().toLowerCase(Locale.ROOT)
                + " " + d.rule().id() + " " + d.function();
    }

    @Test
    void corpusFindingsAreExactlyTheExpectedOnes() throws IOException {
        Linter linter = new Linter(TestManifest.manifest(), null);
        List<String> actual = new ArrayList<>();
        for (Path f : SourceWalker.files(List.of(CORPUS))) {
            for (Diagnostic d : linter.lintFile(f)) {
                actual.add(line(CORPUS, d));
            }
        }
        List<String> expected = Files.readAllLines(CORPUS.resolve("expected.txt")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).collect(Collectors.toList());
        assertEquals(String.join("\n", expected), String.join("\n", actual));
    }

    @Test
    void rangesCoverTheNameAsWritten() throws IOException {
        String text = Files.readString(CORPUS.resolve("free.f90"));
        SourceScan scan = SourceScan.of(text, Language.FORTRAN_FREE);
        for (MpiReference ref : scan.references()) {
            String covered = text.substring(ref.range().startOffset(), ref.range().endOffset());
            assertEquals(ref.name(), covered);
        }
        assertTrue(scan.references().stream().anyMatch(r -> r.name().equals("Mpi_Comm_spawn")));
    }

    @Test
    void selectingAnMpiReportsFunctionsItDoesNotExport() {
        Linter linter = new Linter(TestManifest.manifest(), "openmpi");
        List<Diagnostic> ds = linter.lint("x.c", "int f(void) { return MPI_Send_c(0, 0, 0, 0, 0, 0); }\n", Language.C);
        assertEquals(1, ds.size(), ds.toString());
        assertEquals(Rule.NOT_EXPORTED, ds.get(0).rule());
        assertTrue(new Linter(TestManifest.manifest(), "mpich")
                .lint("x.c", "int f(void) { return MPI_Send_c(0, 0, 0, 0, 0, 0); }\n", Language.C).isEmpty());
    }

    @Test
    void macrosDefinedButNotUsedAreReportedAtTheirBody() {
        String header = "#define START_EPOCH(w) MPI_Lookup_name(0, w)\n#define SAFE(x) MPI_Barrier(x)\n";
        List<Diagnostic> ds = new Linter(TestManifest.manifest(), null).lint("h.h", header, Language.C);
        assertEquals(1, ds.size(), ds.toString());
        assertEquals("MPI_Lookup_name", ds.get(0).function());
        assertEquals(0, ds.get(0).range().startLine());
        assertEquals(23, ds.get(0).range().startColumn());
    }

    @Test
    void aMacroForInitThreadFollowsItsArguments() {
        String c = "#define INIT MPI_Init_thread\nint main(int c, char **v) { int p; INIT(&c, &v, MPI_THREAD_MULTIPLE, &p); }\n";
        List<Diagnostic> ds = new Linter(TestManifest.manifest(), null).lint("m.c", c, Language.C);
        assertEquals(1, ds.size(), ds.toString());
        assertEquals(Rule.THREAD_MULTIPLE, ds.get(0).rule());
        assertEquals(1, ds.get(0).range().startLine());
    }

    /** The runtime's own examples and test programs, with the manifest generated from this tree. */
    @Test
    void theRuntimesOwnProgramsAreClean() throws Exception {
        Path root = Path.of(System.getProperty("mana.root", ".."));
        CoverageManifest m = TestManifest.manifest();
        List<Path> dirs = new ArrayList<>();
        for (String d : new String[] {"core-native/examples", "core-native/tests"}) {
            if (Files.isDirectory(root.resolve(d))) {
                dirs.add(root.resolve(d));
            }
        }
        assertTrue(!dirs.isEmpty(), "core-native/examples not found under " + root);
        List<Path> files = SourceWalker.files(dirs);
        assertTrue(files.stream().anyMatch(f -> f.getFileName().toString().equals("heat_mpi.c")), files.toString());
        Linter linter = new Linter(m, null);
        List<String> bad = new ArrayList<>();
        for (Path f : files) {
            for (Diagnostic d : linter.lintFile(f)) {
                if (d.severity() != Severity.INFORMATION) {
                    bad.add(f + ": " + d.message());
                }
            }
        }
        assertEquals(List.of(), bad);
    }
}
