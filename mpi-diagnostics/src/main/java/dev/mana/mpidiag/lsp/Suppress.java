package dev.mana.mpidiag.lsp;

import dev.mana.mpidiag.Language;
import dev.mana.mpidiag.Suppression;
import org.eclipse.lsp4j.Position;
import org.eclipse.lsp4j.Range;
import org.eclipse.lsp4j.TextEdit;

/** The edit of the "ignore here" quick fix, from the library's {@link Suppression} (shared with the Eclipse plug-in). */
final class Suppress {
    private Suppress() {
    }

    static TextEdit edit(Language lang, String lineText, int line, String function) {
        Suppression.Insertion at = Suppression.at(lang, lineText, line, function);
        Position p = new Position(at.line(), at.column());
        return new TextEdit(new Range(p, p), at.text());
    }
}
