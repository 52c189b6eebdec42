package dev.mana.mpidiag.internal;

import dev.mana.mpidiag.CoverageManifest;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code mana-lint: ignore [NAMES]} comments. A comment silences the findings on its own line; a
 * comment alone on its line silences the next line that has code too. NAMES (comma or space
 * separated) are MPI function names in any binding; none, or {@code all}, silences every finding.
 */
public final class Suppressions {
    private static final Pattern DIRECTIVE = Pattern.compile("mana-lint:\\s*ignore\\b([\\w\\s,*]*)",
            Pattern.CASE_INSENSITIVE);
    /** the marker for "every name" */
    private static final String ALL = "*";

    /** line -> folded names (or ALL) from comments on that line */
    private final Map<Integer, Set<String>> byLine = new HashMap<>();
    /** lines where a directive comment stood alone (no code before it on the line) */
    private final Set<Integer> standalone = new HashSet<>();

    /** Records a comment's text that starts on {@code line}; {@code alone}: no code before it on the line. */
    public void onComment(CharSequence text, int line, boolean alone) {
        String t = text.toString();
        if (t.indexOf("mana-lint") < 0) {
            return;
        }
        Matcher m = DIRECTIVE.matcher(t);
        if (!m.find()) {
            return;
        }
        Set<String> names = byLine.computeIfAbsent(line, k -> new HashSet<>());
        boolean any = false;
        for (String word : m.group(1).split("[\\s,]+")) {
            if (word.isEmpty()) {
                continue;
            }
            if (word.equalsIgnoreCase("all") || word.equals(ALL)) {
                names.add(ALL);
                any = true;
                continue;
            }
            var folded = CoverageManifest.foldedName(word);
            if (folded.isPresent()) {
                names.add(folded.get());
                any = true;
            } else {
                break; // prose after the names ("-- reviewed by ...")
            }
        }
        if (!any) {
            names.add(ALL);
        }
        if (alone) {
            standalone.add(line);
        }
    }

    /**
     * Moves stand-alone directives to the next line with code. {@code codeLines} tells which lines
     * have code; called once after the scan.
     */
    public void resolve(java.util.function.IntPredicate codeLine, int lineCount) {
        for (int line : standalone) {
            if (codeLine.test(line)) {
                continue; // code after the comment on the same line? no: alone means before; keep both
            }
            for (int next = line + 1; next < lineCount; next++) {
                if (codeLine.test(next)) {
                    byLine.computeIfAbsent(next, k -> new HashSet<>()).addAll(byLine.get(line));
                    break;
                }
            }
        }
    }

    /** Whether a finding about {@code foldedName} on {@code line} is silenced. */
    public boolean silences(int line, String foldedName) {
        Set<String> names = byLine.get(line);
        return names != null && (names.contains(ALL) || names.contains(foldedName.toUpperCase(Locale.ROOT)));
    }

    public boolean isEmpty() {
        return byLine.isEmpty();
    }
}
