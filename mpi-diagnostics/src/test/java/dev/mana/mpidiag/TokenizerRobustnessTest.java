package dev.mana.mpidiag;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Broken and hostile text never makes the tokenizers throw, and every range stays inside the text:
 * unterminated comments, strings and raw strings, a splice at the end, directives without names,
 * stray continuation marks, and random mixes of the characters that matter (seeded: reproducible).
 */
class TokenizerRobustnessTest {
    private static final String[] TRICKY = {
        "", "\\", "MPI_Win_free\\", "/*", "//", "\"", "'", "R\"", "R\"abc(", "R\"x(MPI_Put(", "u8", "#", "#define",
        "#define X(", "#define X(a) X(a) MPI_Win_free(a)\nX(1)", "#if\n#elif\n#else\n#else\n#endif\n#endif",
        "MPI_Init_thread(", "MPI_Init_thread(&c, &v, MPI_THREAD_MULTIPLE", "#define I MPI_Init_thread\nI(", "1'",
        "\r\n\r\n", "MPI_\\\n", "a\\\n\\\n\\\nMPI_Win_free(0)", "'\\", "\"\\", "&", "&\n&", "      call mpi_send(",
        "     &x", "\tcall", "c", "!", "'abc&\n", "call MPI_Put('x&\n  &y')", "#if 0", "#endif", ";;;",
        "CALLMPI_", "      CALLMPI_W", "\u00e9MPI_Win_free(0)\u20ac", "\0\0MPI_Win_free(\0",
    };

    private static final Linter LINTER = new Linter(TestManifest.manifest(), "mpich");

    private static void check(String text) {
        for (Language lang : Language.values()) {
            SourceScan scan = SourceScan.of(text, lang);
            for (MpiReference r : scan.references()) {
                assertTrue(r.range().startOffset() >= 0 && r.range().endOffset() <= text.length()
                        && r.range().startOffset() <= r.range().endOffset(), lang + ": " + r + " in " + text);
            }
            LINTER.lint("f", scan);
        }
    }

    @Test
    void trickyFragmentsAndTheirPairs() {
        for (String a : TRICKY) {
            check(a);
            for (String b : TRICKY) {
                check(a + b);
                check(a + "\n" + b);
            }
        }
    }

    @Test
    void randomMixesOfTheCharactersThatMatter() {
        String alphabet = "MPI_Win_free(),;&!'\"\\/*#\n\r\t CcR0x";
        Random rnd = new Random(12);
        for (int i = 0; i < 3000; i++) {
            StringBuilder sb = new StringBuilder();
            int len = rnd.nextInt(80);
            for (int k = 0; k < len; k++) {
                sb.append(rnd.nextInt(8) == 0 ? "MPI_Win_free(" : String.valueOf(alphabet.charAt(rnd.nextInt(alphabet.length()))));
            }
            check(sb.toString());
        }
    }
}
