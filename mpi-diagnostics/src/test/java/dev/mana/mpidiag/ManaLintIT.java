package dev.mana.mpidiag;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The installed bin/mana_lint, as a user (or mana_launch --preflight) runs it. */
class ManaLintIT {
    record Run(int rc, String out, String err) {}

    static Run run(Path lint, Path cwd, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(lint.toString()));
        cmd.addAll(List.of(args));
        Path err = Files.createTempFile(cwd, "err", ".txt");
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "mana_lint did not finish");
        return new Run(p.exitValue(), out, Files.readString(err));
    }

    static Path installed() {
        Path lint = Path.of(System.getProperty("mana.root")).resolve("bin/mana_lint");
        assertTrue(Files.isExecutable(lint), lint + " is not installed (package phase)");
        return lint;
    }

    @Test
    void binaryPreflightListsWhatTheProgramImportsAndExitsOne(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("w.c"), "#include <mpi.h>\nint main(int c, char **v) { MPI_Comm s = "
                + "MPI_COMM_NULL; MPI_Init(&c, &v);\nMPI_Comm_connect(\"port\", MPI_INFO_NULL, 0, MPI_COMM_SELF, &s); MPI_Finalize(); return 0; }\n");
        Cc.run(dir, "mpicc.mpich", "-o", "w", "w.c");
        Run r = run(installed(), dir, "--manifest", TestManifest.file().toAbsolutePath().toString(), "--binary", "./w");
        assertEquals(1, r.rc(), r.err());
        assertEquals("./w: error: MPI_Comm_connect is not supported under checkpointing: " + TestManifest.DYNAMIC
                + " (imported by ./w) [mana/unsupported]\n", r.out());
        Files.writeString(dir.resolve("ok.c"), "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n");
        Cc.run(dir, "mpicc.openmpi", "-o", "ok", "ok.c");
        Run clean = run(installed(), dir, "--manifest", TestManifest.file().toAbsolutePath().toString(), "--binary", "ok");
        assertEquals(0, clean.rc(), clean.out() + clean.err());
    }

    /** The default manifest is share/mana/mpi-coverage.json beside bin/ of the installation that runs. */
    @Test
    void theDefaultManifestIsBesideBin(@TempDir Path dir) throws Exception {
        Path root = dir.resolve("root");
        Files.createDirectories(root.resolve("bin"));
        Files.createDirectories(root.resolve("lib"));
        Files.copy(installed(), root.resolve("bin/mana_lint"));
        Files.createSymbolicLink(root.resolve("lib/java"), installed().getParent().getParent().resolve("lib/java"));
        Path c = dir.resolve("a.c");
        Files.writeString(c, "void f(void) { MPI_Comm_spawn(0, 0, 0, 0, 0, 0, 0, 0); }\n");

        Run missing = run(root.resolve("bin/mana_lint"), dir, c.toString());
        assertEquals(2, missing.rc());
        assertEquals("mana_lint: MPI coverage manifest not found: " + root.resolve("share/mana/mpi-coverage.json")
                + " (build the runtime with `make build`, or pass --manifest FILE)\n", missing.err());

        Files.createDirectories(root.resolve("share/mana"));
        Files.copy(TestManifest.file(), root.resolve("share/mana/mpi-coverage.json"));
        Run found = run(root.resolve("bin/mana_lint"), dir, c.toString());
        assertEquals(1, found.rc(), found.err());
        assertTrue(found.out().startsWith(c + ":1:16: error: MPI_Comm_spawn is not supported"), found.out());
    }
}
