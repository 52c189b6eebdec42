package dev.mana.mpidiag;

/**
 * The "ignore here" quick fix's text: a {@code mana-lint: ignore NAME} comment that the language accepts at
 * that place, as an insertion at a line and column (0-based). C/C++: at the end of the line
 * ({@code /* ... *}{@code /} before a trailing line splice, so a macro stays one line). Free-form Fortran:
 * {@code !} at the end of the line (also after a continuation {@code &}). Fixed-form Fortran: a comment line
 * above, since columns past 72 are not read. One definition for the language server and the Eclipse plug-in.
 */
public final class Suppression {
    /** Insert {@code text} at {@code line}, {@code column}. */
    public record Insertion(int line, int column, String text) {}

    private Suppression() {
    }

    /** The insertion that silences findings about {@code function} on line {@code line} ({@code lineText}, without its newline). */
    public static Insertion at(Language lang, String lineText, int line, String function) {
        String text = lineText.endsWith("\r") ? lineText.substring(0, lineText.length() - 1) : lineText;
        String directive = "mana-lint: ignore " + function;
        if (lang == Language.FORTRAN_FIXED) {
            return new Insertion(line, 0, "!     " + directive + "\n");
        }
        if (lang.isFortran()) {
            return new Insertion(line, text.length(), " ! " + directive);
        }
        String trimmed = text.stripTrailing();
        if (trimmed.endsWith("\\")) {
            return new Insertion(line, trimmed.length() - 1, "/* " + directive + " */ ");
        }
        return new Insertion(line, text.length(), " // " + directive);
    }
}
