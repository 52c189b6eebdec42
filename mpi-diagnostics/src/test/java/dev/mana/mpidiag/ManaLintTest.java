package dev.mana.mpidiag;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.mana.mpidiag.cli.ManaLint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** mana_lint in-process: output formats and exit statuses (bin/mana_lint itself: ManaLintIT). */
class ManaLintTest {
    record Result(int rc, String out, String err) {}

    static Result lint(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = ManaLint.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Result(rc, out.toString(), err.toString());
    }

    static String manifest() {
        return TestManifest.file().toString();
    }

    @Test
    void compilerStyleLinesAndExitOne(@TempDir Path dir) throws Exception {
        Path c = dir.resolve("w.c");
        Files.writeString(c, "#include <mpi.h>\nvoid f(MPI_Win *w) {\n  MPI_Comm_spawn(0, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, w);\n}\n");
        Result r = lint("--manifest", manifest(), c.toString());
        assertEquals(1, r.rc(), r.err());
        assertEquals(c + ":3:3: error: MPI_Comm_spawn is not supported under checkpointing: "
                + TestManifest.DYNAMIC + " [mana/unsupported]\n", r.out());
        assertTrue(r.err().contains("1 error(s), 0 warning(s), 0 note(s) in 1 file(s)"), r.err());
    }

    @Test
    void cleanSourcesExitZero(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("ok.c"), "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); }\n");
        Files.writeString(dir.resolve("notes.txt"), "MPI_Comm_spawn( is not code\n");
        Result r = lint("--manifest", manifest(), dir.toString());
        assertEquals(0, r.rc(), r.out() + r.err());
        assertEquals("", r.out());
        Result named = lint("--manifest", manifest(), dir.resolve("notes.txt").toString());
        assertEquals(0, named.rc());
        assertTrue(named.err().contains("notes.txt: not a C, C++ or Fortran file (by its name); skipped"), named.err());
    }

    @Test
    void failOnChoosesWhatCounts(@TempDir Path dir) throws Exception {
        Path c = dir.resolve("p.c");
        Files.writeString(c, "void f(void) { PMPI_Barrier(MPI_COMM_WORLD); }\n");
        assertEquals(0, lint("--manifest", manifest(), c.toString()).rc());
        assertEquals(1, lint("--manifest", manifest(), "--fail-on", "note", c.toString()).rc());
        assertEquals(2, lint("--manifest", manifest(), "--fail-on", "sometimes", c.toString()).rc());
    }

    @Test
    void jsonOutput(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("a.f90");
        Files.writeString(f, "program a\n  use mpi\n  integer :: ierr\n  call mpi_close_port(0, ierr)\nend program a\n");
        Result r = lint("--manifest", manifest(), "--json", f.toString());
        assertEquals(1, r.rc());
        JsonObject o = JsonParser.parseString(r.out()).getAsJsonObject();
        assertEquals(1, o.get("files").getAsInt());
        JsonObject d = o.getAsJsonArray("diagnostics").get(0).getAsJsonObject();
        assertEquals("MPI_Close_port", d.get("function").getAsString());
        assertEquals(4, d.get("line").getAsInt());
        assertEquals(8, d.get("column").getAsInt());
        assertEquals(22, d.get("endColumn").getAsInt());
        assertEquals("error", d.get("severity").getAsString());
        assertEquals(TestManifest.DYNAMIC, d.get("reason").getAsString());
        assertEquals(1, o.getAsJsonObject("summary").get("error").getAsInt());
    }

    @Test
    void sarifOutput(@TempDir Path dir) throws Exception {
        Path c = dir.resolve("s.c");
        Files.writeString(c, "void f(void) {\n\tMPI_Comm_accept(0);\n\tMPI_Init_thread(0, 0, MPI_THREAD_MULTIPLE, 0);\n}\n");
        Result r = lint("--manifest", manifest(), "--sarif", c.toString());
        assertEquals(1, r.rc());
        JsonObject root = JsonParser.parseString(r.out()).getAsJsonObject();
        assertEquals("2.1.0", root.get("version").getAsString());
        JsonObject run = root.getAsJsonArray("runs").get(0).getAsJsonObject();
        JsonObject driver = run.getAsJsonObject("tool").getAsJsonObject("driver");
        assertEquals("mana_lint", driver.get("name").getAsString());
        JsonArray rules = driver.getAsJsonArray("rules");
        JsonArray results = run.getAsJsonArray("results");
        assertEquals(2, results.size());
        for (var e : results) {
            JsonObject res = e.getAsJsonObject();
            int idx = res.get("ruleIndex").getAsInt();
            assertEquals(rules.get(idx).getAsJsonObject().get("id").getAsString(), res.get("ruleId").getAsString());
            JsonObject loc = res.getAsJsonArray("locations").get(0).getAsJsonObject().getAsJsonObject("physicalLocation");
            assertEquals(c.toUri().toString(), loc.getAsJsonObject("artifactLocation").get("uri").getAsString());
        }
        JsonObject first = results.get(0).getAsJsonObject();
        assertEquals("error", first.get("level").getAsString());
        JsonObject region = first.getAsJsonArray("locations").get(0).getAsJsonObject()
                .getAsJsonObject("physicalLocation").getAsJsonObject("region");
        assertEquals(2, region.get("startLine").getAsInt());
        assertEquals(2, region.get("startColumn").getAsInt());
        assertEquals(17, region.get("endColumn").getAsInt());
        assertEquals("warning", results.get(1).getAsJsonObject().get("level").getAsString());
    }

    @Test
    void compileCommandsChooseTheFiles(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("src"));
        Files.writeString(dir.resolve("src/used.c"), "void f(void) { MPI_Comm_accept(0); }\n");
        Files.writeString(dir.resolve("src/unused.c"), "void g(void) { MPI_Close_port(0); }\n");
        Files.writeString(dir.resolve("compile_commands.json"), "[{\"directory\": \"" + dir.resolve("src")
                + "\", \"command\": \"mpicc -c used.c\", \"file\": \"used.c\"}]");
        Result r = lint("--manifest", manifest(), dir.toString());
        assertEquals(1, r.rc());
        assertTrue(r.out().contains("used.c:1:16: error: MPI_Comm_accept"), r.out());
        assertFalse(r.out().contains("unused.c"), r.out());
    }

    @Test
    void errorsExitTwoWithOneLine(@TempDir Path dir) throws Exception {
        Result missingManifest = lint("--manifest", dir.resolve("none.json").toString(), dir.toString());
        assertEquals(2, missingManifest.rc());
        assertTrue(missingManifest.err().startsWith("mana_lint: MPI coverage manifest not found: "), missingManifest.err());
        assertEquals(1, missingManifest.err().strip().lines().count());

        Result missingPath = lint("--manifest", manifest(), dir.resolve("nowhere.c").toString());
        assertEquals(2, missingPath.rc());
        assertTrue(missingPath.err().contains("nowhere.c: no such file or directory"), missingPath.err());

        assertEquals(2, lint("--manifest", manifest(), "--mpi", "lam", dir.toString()).rc());
        assertEquals(2, lint("--manifest", manifest()).rc());
        assertEquals(2, lint("--no-such-option").rc());
        assertEquals(2, lint("--manifest", manifest(), "--json", "--sarif", dir.toString()).rc());
    }

    @Test
    void theDefaultManifestIsUnderTheInstallationRoot(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("share/mana"));
        Files.copy(TestManifest.file(), root.resolve("share/mana/mpi-coverage.json"));
        Path c = root.resolve("x.c");
        Files.writeString(c, "void f(void) { MPI_Comm_accept(0); }\n");
        String before = System.getProperty("mana.root");
        System.setProperty("mana.root", root.toString());
        try {
            assertEquals(1, lint(c.toString()).rc());
        } finally {
            if (before == null) {
                System.clearProperty("mana.root");
            } else {
                System.setProperty("mana.root", before);
            }
        }
    }
}
