package dev.mana.mpidiag.lsp;

import dev.mana.mpidiag.Diagnostic;
import dev.mana.mpidiag.Language;
import dev.mana.mpidiag.Linter;
import dev.mana.mpidiag.TestManifest;
import org.eclipse.lsp4j.TextEdit;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The quick fix's comment, applied, silences exactly its finding in every language and form. */
class SuppressTest {
    private static final Linter LINTER = new Linter(TestManifest.manifest(), null);

    /** Applies the fix for the first finding and returns the findings left. */
    private static List<Diagnostic> fixFirst(String text, Language lang, int expectedBefore) {
        List<Diagnostic> before = LINTER.lint("f", text, lang);
        assertEquals(expectedBefore, before.size(), before.toString());
        Diagnostic d = before.get(0);
        String[] lines = text.split("\n", -1);
        int line = d.range().startLine();
        TextEdit e = Suppress.edit(lang, lines[line], line, d.function());
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i];
            if (i == e.getRange().getStart().getLine()) {
                int c = e.getRange().getStart().getCharacter();
                l = l.substring(0, c) + e.getNewText() + l.substring(c);
            }
            sb.append(l).append(i + 1 < lines.length ? "\n" : "");
        }
        return LINTER.lint("f", sb.toString(), lang);
    }

    @Test
    void cLineAndContinuedMacro() {
        assertEquals(List.of(), fixFirst("void f(void) {\n  MPI_Comm_accept(0);\n}\n", Language.C, 1));
        // a header's macro, continued with a backslash: the comment goes before it, the macro stays whole
        String macro = "#define FREE_ALL(w) \\\n  MPI_Comm_accept(w); \\\n  MPI_Close_port(0)\n";
        List<Diagnostic> left = fixFirst(macro, Language.C, 2);
        assertEquals(List.of("MPI_Close_port"), left.stream().map(Diagnostic::function).toList());
    }

    @Test
    void fortranFreeWithContinuationAndFixedForm() {
        String free = "call mpi_comm_spawn(0, 0, 1, MPI_INFO_NULL, &\n     MPI_COMM_WORLD, w, ierr)\ncall MPI_Comm_accept(w, ierr)\n";
        List<Diagnostic> left = fixFirst(free, Language.FORTRAN_FREE, 2);
        assertEquals(List.of("MPI_Comm_accept"), left.stream().map(Diagnostic::function).toList());
        String fixed = "      CALL MPI_COMM_ACCEPT(W, IERR)\n      CALL MPI_CLOSE_PORT(F, IERR)\n";
        left = fixFirst(fixed, Language.FORTRAN_FIXED, 2);
        assertEquals(List.of("MPI_Close_port"), left.stream().map(Diagnostic::function).toList());
    }
}
