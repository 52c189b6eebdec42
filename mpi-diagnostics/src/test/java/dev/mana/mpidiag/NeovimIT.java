package dev.mana.mpidiag;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real editor drives the installed bin/mana-lsp: Neovim (Debian's `neovim`), headless, opens a C
 * file; its built-in LSP client receives the diagnostics and the test reads what the editor holds.
 */
class NeovimIT {
    @Test
    void neovimShowsTheDiagnostics(@TempDir Path dir) throws Exception {
        Path root = Path.of(System.getProperty("mana.root"));
        Path lsp = root.resolve("bin/mana-lsp");
        assertTrue(Files.isExecutable(lsp), lsp + " is not installed (package phase)");
        Path init = Path.of("src/test/resources/nvim/init.lua").toAbsolutePath();
        Path c = dir.resolve("ring.c");
        Files.writeString(c, "#include <mpi.h>\nint main(int argc, char **argv)\n{\n    MPI_Win w;\n"
                + "    MPI_Init(&argc, &argv);\n    MPI_Comm_connect(w);\n"
                + "    MPI_Finalize();\n    return 0;\n}\n");
        Path out = dir.resolve("diagnostics.json");
        ProcessBuilder pb = new ProcessBuilder("nvim", "--headless", "-n", "-i", "NONE", "-u", init.toString(),
                c.toString()).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("nvim.log").toFile());
        pb.environment().put("MANA_LSP", lsp.toString());
        pb.environment().put("MANA_MANIFEST", TestManifest.file().toAbsolutePath().toString());
        pb.environment().put("MANA_NVIM_OUT", out.toString());
        pb.environment().put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        pb.environment().put("XDG_DATA_HOME", dir.resolve("data").toString());
        pb.environment().put("XDG_STATE_HOME", dir.resolve("state").toString());
        pb.environment().put("XDG_CACHE_HOME", dir.resolve("cache").toString());
        Process p;
        try {
            p = pb.start();
        } catch (java.io.IOException e) {
            throw new AssertionError("nvim not found: install Debian's neovim (make deps)", e);
        }
        boolean done = p.waitFor(90, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        assertTrue(done, "nvim did not finish: " + Files.readString(dir.resolve("nvim.log")));
        assertTrue(Files.exists(out), "nvim wrote nothing: " + Files.readString(dir.resolve("nvim.log")));
        JsonObject o = JsonParser.parseString(Files.readString(out)).getAsJsonObject();
        assertFalse(o.has("timeout"), "no diagnostics reached Neovim within 60 s");
        assertEquals(c.toUri().toString().replace("file:///", "file:/"),
                o.get("uri").getAsString().replace("file:///", "file:/"));
        JsonArray ds = o.getAsJsonArray("diagnostics");
        assertEquals(1, ds.size(), ds.toString());
        JsonObject d = ds.get(0).getAsJsonObject();
        assertEquals(5, d.get("lnum").getAsInt());
        assertEquals(4, d.get("col").getAsInt());
        assertEquals(20, d.get("end_col").getAsInt());
        assertEquals(1, d.get("severity").getAsInt()); // vim.diagnostic.severity.ERROR
        assertEquals("mana", d.get("source").getAsString());
        assertTrue(d.get("message").getAsString().startsWith("MPI_Comm_connect is not supported under checkpointing"),
                d.toString());
    }
}
