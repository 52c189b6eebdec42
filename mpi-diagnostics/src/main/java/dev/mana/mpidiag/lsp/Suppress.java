package dev.mana.mpidiag.lsp;

import dev.mana.mpidiag.Language;
import org.eclipse.lsp4j.Position;
import org.eclipse.lsp4j.Range;
import org.eclipse.lsp4j.TextEdit;

/**
 * The edit of the "ignore here" quick fix: a {@code mana-lint: ignore NAME} comment that the
 * language accepts at that place. C/C++: at the end of the line ({@code /* ... *}{@code /} before a
 * trailing line splice, so a macro stays one line). Free-form Fortran: {@code !} at the end of the
 * line (also after a continuation {@code &}). Fixed-form Fortran: a comment line above, since
 * columns past 72 are not read.
 */
final class Suppress {
    private Suppress() {
    }

    static TextEdit edit(Language lang, String lineText, int line, String function) {
        String text = lineText.endsWith("\r") ? lineText.substring(0, lineText.length() - 1) : lineText;
        String directive = "mana-lint: ignore " + function;
        if (lang == Language.FORTRAN_FIXED) {
            return new TextEdit(new Range(new Position(line, 0), new Position(line, 0)), "!     " + directive + "\n");
        }
        if (lang.isFortran()) {
            Position end = new Position(line, text.length());
            return new TextEdit(new Range(end, end), " ! " + directive);
        }
        String trimmed = text.stripTrailing();
        if (trimmed.endsWith("\\")) {
            Position at = new Position(line, trimmed.length() - 1);
            return new TextEdit(new Range(at, at), "/* " + directive + " */ ");
        }
        Position end = new Position(line, text.length());
        return new TextEdit(new Range(end, end), " // " + directive);
    }
}
