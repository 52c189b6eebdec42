package dev.mana.mpidiag;

import dev.mana.mpidiag.internal.CLexer;
import dev.mana.mpidiag.internal.FortranLexer;
import dev.mana.mpidiag.internal.LineMap;
import dev.mana.mpidiag.internal.Macro;
import dev.mana.mpidiag.internal.Suppressions;
import dev.mana.mpidiag.internal.Tokens;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Every reference to an MPI name in one source file, with exact ranges: the result of the C/C++ or
 * Fortran tokenizer (dev.mana.mpidiag.internal), before the manifest is asked anything. See
 * docs/mpi-diagnostics.md for what the tokenizers handle and why they are tokenizers, not parsers.
 */
public final class SourceScan {
    private final Language language;
    private final List<MpiReference> references;
    private final Suppressions suppressions;
    private final LineMap lines;

    private SourceScan(Language language, List<MpiReference> references, Suppressions suppressions, LineMap lines) {
        this.language = language;
        this.references = references;
        this.suppressions = suppressions;
        this.lines = lines;
    }

    public static SourceScan of(CharSequence text, Language language) {
        char[] chars = new char[text.length()];
        if (text instanceof String str) {
            str.getChars(0, chars.length, chars, 0);
        } else {
            for (int i = 0; i < chars.length; i++) {
                chars[i] = text.charAt(i);
            }
        }
        return of(chars, chars.length, language);
    }

    public static SourceScan of(char[] text, int length, Language language) {
        if (language.isFortran()) {
            FortranLexer lx = new FortranLexer(text, length, language == Language.FORTRAN_FIXED).run();
            Builder b = new Builder(text, lx.lines(), true);
            b.references(lx.tokens(), null);
            return new SourceScan(language, b.refs, lx.suppressions(), lx.lines());
        }
        CLexer lx = new CLexer(text, length, language == Language.CPP).run();
        Builder b = new Builder(text, lx.lines(), false);
        b.lexer = lx;
        b.references(lx.tokens(), lx.macroUses());
        b.unusedMacros(lx.allMacros());
        b.refs.sort((x, y) -> Integer.compare(x.range().startOffset(), y.range().startOffset()));
        return new SourceScan(language, b.refs, lx.suppressions(), lx.lines());
    }

    public Language language() {
        return language;
    }

    /** In file order. */
    public List<MpiReference> references() {
        return Collections.unmodifiableList(references);
    }

    /** Whether a {@code mana-lint: ignore} comment silences {@code foldedName} on a 0-based line. */
    public boolean suppressed(int line, String foldedName) {
        return suppressions.silences(line, foldedName);
    }

    /** The 0-based line of an offset. */
    public int lineOf(int offset) {
        return lines.line(offset);
    }

    /** Turns token lists into references; follows macros (C). */
    private static final class Builder {
        final char[] s;
        final LineMap lines;
        final boolean fortran;
        final List<MpiReference> refs = new ArrayList<>();
        CLexer lexer;
        final Set<Macro> used = Collections.newSetFromMap(new IdentityHashMap<>());
        Map<String, Macro> byName;
        final Map<Macro, List<Expansion>> expansions = new IdentityHashMap<>();

        Builder(char[] s, LineMap lines, boolean fortran) {
            this.s = s;
            this.lines = lines;
            this.fortran = fortran;
        }

        Range range(int a, int b) {
            int la = lines.line(a);
            int lb = lines.line(b);
            return new Range(la, a - lines.lineStart(la), lb, b - lines.lineStart(lb), a, b);
        }

        String text(int a, int b) {
            return lexer != null ? lexer.text(a, b) : new String(s, a, b - a);
        }

        void references(Tokens t, List<Macro> macroUses) {
            int size = t.size();
            for (int i = 0; i < size; i++) {
                int k = t.kind(i);
                if (k == Tokens.IDENT) {
                    if (!fortran && allCaps(t.start(i), t.end(i))) {
                        continue; // C constants (MPI_COMM_WORLD): C function names have lower case
                    }
                    String name = text(t.start(i), t.end(i));
                    boolean paren = i + 1 < size && t.kind(i + 1) == Tokens.LPAREN;
                    boolean callStmt = fortran && i > 0 && t.kind(i - 1) == Tokens.CALL;
                    Range tm = null;
                    if (paren && isInitThread(name)) {
                        tm = threadMultipleArg(t, i + 1, null);
                    }
                    refs.add(new MpiReference(name, range(t.start(i), t.end(i)), paren || callStmt, null, tm));
                } else if (k == Tokens.MACRO) {
                    Macro m = macroUses.get(t.aux(i));
                    boolean paren = i + 1 < size && t.kind(i + 1) == Tokens.LPAREN;
                    Range at = range(t.start(i), t.end(i));
                    for (Expansion e : expand(m, new HashSet<>())) {
                        Range tm = e.threadMultiple ? at : null;
                        if (e.initThreadOpenEnded && paren) {
                            // #define INIT MPI_Init_thread, then INIT(&c, &v, MPI_THREAD_MULTIPLE, &p)
                            tm = threadMultipleArg(t, i + 1, null);
                        }
                        refs.add(new MpiReference(e.name, at, e.call || e.lastToken && paren, m.name(), tm));
                    }
                }
            }
        }

        private boolean allCaps(int a, int b) {
            for (int j = a; j < b; j++) {
                char c = s[j];
                if (c >= 'a' && c <= 'z') {
                    return false;
                }
            }
            return true;
        }

        static boolean isInitThread(String name) {
            String u = name.toUpperCase(Locale.ROOT);
            return u.equals("MPI_INIT_THREAD") || u.equals("PMPI_INIT_THREAD");
        }

        /** The range of an MPI_THREAD_MULTIPLE token inside the parenthesised list opening at {@code open}. */
        Range threadMultipleArg(Tokens t, int open, List<String> names) {
            int depth = 0;
            for (int j = open; j < t.size(); j++) {
                int k = t.kind(j);
                if (k == Tokens.LPAREN) {
                    depth++;
                } else if (k == Tokens.RPAREN) {
                    if (--depth == 0) {
                        return null;
                    }
                } else if (k == Tokens.EOS) {
                    return null;
                } else if (k == Tokens.IDENT) {
                    String id = names != null ? names.get(j) : text(t.start(j), t.end(j));
                    if (id != null && id.equalsIgnoreCase("MPI_THREAD_MULTIPLE")) {
                        return range(t.start(j), t.end(j));
                    }
                }
            }
            return null;
        }

        record Expansion(String name, boolean call, boolean lastToken, boolean threadMultiple,
                         boolean initThreadOpenEnded, int start, int end) {}

        Macro lookup(String name) {
            if (byName == null) {
                byName = new HashMap<>();
                for (Macro m : lexer.allMacros()) {
                    byName.put(m.name(), m);
                }
            }
            return byName.get(name);
        }

        /** The MPI names a macro's expansion reaches, through other macros of the file too. */
        List<Expansion> expand(Macro m, Set<String> visiting) {
            used.add(m);
            List<Expansion> cached = expansions.get(m);
            if (cached != null) {
                return cached;
            }
            if (!visiting.add(m.name())) {
                return List.of(); // recursive macros stop where the preprocessor stops
            }
            List<Expansion> out = new ArrayList<>();
            Tokens b = m.body();
            for (int j = 0; j < b.size(); j++) {
                String id = m.names().get(j);
                if (id == null) {
                    continue;
                }
                boolean last = j == b.size() - 1;
                boolean paren = !last && b.kind(j + 1) == Tokens.LPAREN;
                if (isMpiName(id)) {
                    boolean tm = paren && isInitThread(id) && threadMultipleArg(b, j + 1, m.names()) != null;
                    out.add(new Expansion(id, paren, last, tm, last && isInitThread(id), b.start(j), b.end(j)));
                } else if (!id.equals(m.name())) {
                    Macro inner = lookup(id);
                    if (inner != null) {
                        for (Expansion e : expand(inner, visiting)) {
                            out.add(new Expansion(e.name, e.call || e.lastToken && paren, last && e.lastToken,
                                    e.threadMultiple, e.initThreadOpenEnded, e.start, e.end));
                        }
                    }
                }
            }
            visiting.remove(m.name());
            expansions.put(m, out);
            return out;
        }

        static boolean isMpiName(String id) {
            return id.startsWith("MPI_") || id.startsWith("PMPI_");
        }

        /** A macro never used in the file (a header's): its own body's MPI names are reported where they are. */
        void unusedMacros(List<Macro> all) {
            for (Macro m : all) {
                if (used.contains(m)) {
                    continue;
                }
                Tokens b = m.body();
                for (int j = 0; j < b.size(); j++) {
                    String id = m.names().get(j);
                    if (id != null && isMpiName(id)) {
                        boolean paren = j + 1 < b.size() && b.kind(j + 1) == Tokens.LPAREN;
                        Range tm = paren && isInitThread(id) ? threadMultipleArg(b, j + 1, m.names()) : null;
                        refs.add(new MpiReference(id, range(b.start(j), b.end(j)), paren, null, tm));
                    }
                }
            }
        }
    }
}
