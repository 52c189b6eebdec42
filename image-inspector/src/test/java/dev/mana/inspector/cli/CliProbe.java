package dev.mana.inspector.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Set;

/** For the fuzz test: the command line on a damaged image answers with one line and a known status. */
public final class CliProbe {
    static final Set<Integer> KNOWN = Set.of(0, 3, 4, 5, 6, 7, 8, 10, 11);

    private CliProbe() {
    }

    public static void assertOneLineOrSuccess(Path image, String what) {
        for (String[] args : new String[][] {{"verify", "-q", image.toString()}, {"map", "--json", image.toString()}}) {
            StringWriter o = new StringWriter();
            StringWriter e = new StringWriter();
            int rc = ManaInspect.run(args, new PrintWriter(o), new PrintWriter(e));
            assertTrue(KNOWN.contains(rc), what + ": exit status " + rc + ": " + e);
            if (rc != 0) {
                String[] lines = e.toString().strip().split("\n");
                assertEquals(1, lines.length, what + ": " + e);
                assertTrue(lines[0].startsWith("mana_inspect: "), what + ": " + e);
                assertFalse(e.toString().contains("internal error"), what + ": " + e);
            }
        }
    }
}
