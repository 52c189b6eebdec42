package dev.mana.mpidiag.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A C/C++ tokenizer that does what translation phases 1-4 need for finding MPI calls, and no more:
 * line splices, comments, string and character literals (prefixes, C++ raw strings, digit
 * separators), preprocessing directives with {@code #if 0}-style dead branches, and {@code #define}s,
 * whose uses are tagged so the rules can follow them within the file. Identifiers that can matter
 * (names starting with {@code MPI_}/{@code PMPI_}, and macros) are emitted as {@link Tokens#IDENT} or
 * {@link Tokens#MACRO}; everything else as one {@link Tokens#OTHER} or paren token.
 */
public final class CLexer {
    private static final int EOF = 0;
    private static final int NEWLINE = 100;
    private static final int HASH = 101;
    private static final int NAME = 102; // an identifier (interesting or not): classified by the caller
    private static final int STRING = 103;

    private final char[] s;
    private final int n;
    private final boolean cpp;
    private final Tokens out = new Tokens();
    private final Conditionals conds = new Conditionals();
    private final Suppressions suppressions = new Suppressions();
    private final LineMap lines;
    private final Map<String, Macro> macros = new HashMap<>();
    /** every macro ever defined (an #undef removes it from {@link #macros} only), in order */
    private final List<Macro> allMacros = new ArrayList<>();
    /** macro uses in live code: out.aux indexes this list */
    private final List<Macro> macroUses = new ArrayList<>();
    /** first characters of defined macro names: a cheap filter before building a String */
    private final boolean[] macroFirst = new boolean[128];
    private final boolean[] codeLine;

    private int pos;
    private int tokStart;
    private int tokEnd;
    /** whether the current line had a token before the comment being read */
    private int lastTokenLine = -1;

    public CLexer(char[] text, int length, boolean cpp) {
        this.s = text;
        this.n = length;
        this.cpp = cpp;
        this.lines = new LineMap(text, length);
        this.codeLine = new boolean[lines.lineCount() + 1];
    }

    public Tokens tokens() {
        return out;
    }

    public LineMap lines() {
        return lines;
    }

    public Suppressions suppressions() {
        return suppressions;
    }

    public List<Macro> macroUses() {
        return macroUses;
    }

    public List<Macro> allMacros() {
        return allMacros;
    }

    /** Scans the whole text. */
    public CLexer run() {
        boolean lineStart = true;
        int k;
        while ((k = next()) != EOF) {
            if (k == NEWLINE) {
                lineStart = true;
                continue;
            }
            if (lineStart && k == HASH) {
                directive();
                continue; // directive() consumed the newline
            }
            lineStart = false;
            if (!conds.live()) {
                continue;
            }
            markCode(tokStart);
            switch (k) {
                case NAME -> emitName(tokStart, tokEnd);
                case '(' -> out.add(Tokens.LPAREN, tokStart, tokEnd);
                case ')' -> out.add(Tokens.RPAREN, tokStart, tokEnd);
                default -> out.add(Tokens.OTHER, tokStart, tokEnd);
            }
        }
        suppressions.resolve(l -> l < codeLine.length && codeLine[l], lines.lineCount());
        return this;
    }

    private void markCode(int offset) {
        int l = lines.line(offset);
        codeLine[l] = true;
        lastTokenLine = l;
    }

    private void emitName(int a, int b) {
        if (isMpiPrefix(a, b)) {
            out.add(Tokens.IDENT, a, b);
            return;
        }
        char c = s[a];
        if (c < 128 && macroFirst[c]) {
            Macro m = macros.get(text(a, b));
            if (m != null) {
                macroUses.add(m);
                out.add(Tokens.MACRO, a, b, macroUses.size() - 1);
                return;
            }
        }
        out.add(Tokens.OTHER, a, b);
    }

    /** MPI_ or PMPI_ (C is case-sensitive: these are the only spellings of the C bindings). */
    private boolean isMpiPrefix(int a, int b) {
        int i = a;
        if (b - i > 5 && s[i] == 'P') {
            i++;
        }
        return b - i > 4 && s[i] == 'M' && s[i + 1] == 'P' && s[i + 2] == 'I' && s[i + 3] == '_';
    }

    /** An identifier's text; identifiers broken by a line splice are joined. */
    public String text(int a, int b) {
        boolean splice = false;
        for (int i = a; i < b; i++) {
            if (s[i] == '\\') {
                splice = true;
                break;
            }
        }
        if (!splice) {
            return new String(s, a, b - a);
        }
        StringBuilder sb = new StringBuilder(b - a);
        for (int i = a; i < b; i++) {
            int after = spliceEnd(i);
            if (after > i) {
                i = after - 1;
            } else {
                sb.append(s[i]);
            }
        }
        return sb.toString();
    }

    /** If a line splice (backslash, optional blanks, newline) starts at i, the offset after it; else i. */
    private int spliceEnd(int i) {
        if (i >= n || s[i] != '\\') {
            return i;
        }
        int j = i + 1;
        while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r')) {
            j++;
        }
        return j < n && s[j] == '\n' ? j + 1 : i;
    }

    /** The character at i after splices, advancing {@link #pos} past them; -1 at the end. */
    private int peek() {
        while (pos < n && s[pos] == '\\') {
            int e = spliceEnd(pos);
            if (e == pos) {
                break;
            }
            pos = e;
        }
        return pos < n ? s[pos] : -1;
    }

    private int peekAt(int ahead) {
        int save = pos;
        int c = -1;
        for (int k = 0; k <= ahead; k++) {
            c = peek();
            if (c < 0) {
                break;
            }
            if (k < ahead) {
                pos++;
            }
        }
        pos = save;
        return c;
    }

    private static boolean identStart(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c >= 0x80;
    }

    private static boolean identPart(int c) {
        return identStart(c) || c >= '0' && c <= '9';
    }

    /** Reads the next token; sets tokStart/tokEnd. Comments are skipped (and read for suppressions). */
    private int next() {
        while (true) {
            int c = peek();
            if (c < 0) {
                return EOF;
            }
            if (c == '\n') {
                tokStart = pos;
                pos++;
                tokEnd = pos;
                return NEWLINE;
            }
            if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == 0x0b) {
                pos++;
                while (pos < n && (s[pos] == ' ' || s[pos] == '\t')) {
                    pos++;
                }
                continue;
            }
            if (c == '/') {
                int d = peekAt(1);
                if (d == '/') {
                    lineComment();
                    continue;
                }
                if (d == '*') {
                    blockComment();
                    continue;
                }
            }
            tokStart = pos;
            if (identStart(c)) {
                pos++;
                while (true) {
                    // fast path: plain identifier characters; peek() only at a possible splice
                    while (pos < n && identPart(s[pos])) {
                        pos++;
                    }
                    if (pos < n && s[pos] == '\\' && identPart(peek())) {
                        continue;
                    }
                    break;
                }
                tokEnd = pos;
                int q = peek();
                if ((q == '"' || q == '\'') && isLiteralPrefix(tokStart, tokEnd)) {
                    boolean raw = cpp && q == '"' && s[tokEnd - 1] == 'R';
                    if (raw) {
                        rawString();
                    } else {
                        quoted((char) q);
                    }
                    tokEnd = pos;
                    return STRING;
                }
                return NAME;
            }
            if (c >= '0' && c <= '9' || c == '.' && isDigit(peekAt(1))) {
                ppNumber();
                tokEnd = pos;
                return STRING; // any non-name token
            }
            if (c == '"' || c == '\'') {
                quoted((char) c);
                tokEnd = pos;
                return STRING;
            }
            pos++;
            tokEnd = pos;
            return c == '#' ? HASH : c;
        }
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private boolean isLiteralPrefix(int a, int b) {
        String p = text(a, b);
        return switch (p) {
            case "L", "u", "U", "u8" -> true;
            case "R", "LR", "uR", "UR", "u8R" -> cpp;
            default -> false;
        };
    }

    /** A preprocessing number: digits, letters, '.', exponent signs and C++14 digit separators. */
    private void ppNumber() {
        pos++;
        while (true) {
            int c = peek();
            if (identPart(c) || c == '.') {
                pos++;
            } else if ((c == '+' || c == '-') && "eEpP".indexOf(s[pos - 1]) >= 0) {
                pos++;
            } else if (c == '\'' && identPart(peekAt(1))) {
                pos++;
            } else {
                return;
            }
        }
    }

    /** A string or character literal; an unterminated one ends at the line's end (as in dead code). */
    private void quoted(char q) {
        pos++;
        while (true) {
            int c = peek();
            if (c < 0 || c == '\n') {
                return;
            }
            pos++;
            if (c == '\\') {
                if (pos < n && s[pos] != '\n') {
                    pos++;
                }
            } else if (c == q) {
                return;
            }
        }
    }

    /** C++ raw string R"delim( ... )delim": no escapes and no splices inside. */
    private void rawString() {
        int open = pos + 1;
        int paren = open;
        while (paren < n && paren - open <= 16 && s[paren] != '(' && s[paren] != '\n') {
            paren++;
        }
        if (paren >= n || s[paren] != '(') {
            quoted('"');
            return;
        }
        String close = ")" + new String(s, open, paren - open) + "\"";
        int end = indexOf(close, paren + 1);
        pos = end < 0 ? n : end + close.length();
    }

    private int indexOf(String needle, int from) {
        outer:
        for (int i = from; i <= n - needle.length(); i++) {
            for (int j = 0; j < needle.length(); j++) {
                if (s[i + j] != needle.charAt(j)) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private void lineComment() {
        int start = pos;
        int line = lines.line(start);
        boolean alone = lastTokenLine != line;
        pos += 2;
        while (true) {
            while (pos < n && s[pos] != '\n' && s[pos] != '\\') {
                pos++;
            }
            int c = peek(); // past a splice: the comment goes on
            if (c < 0 || c == '\n') {
                break;
            }
            pos++;
        }
        onComment(start, pos, line, alone);
    }

    private void blockComment() {
        int start = pos;
        int line = lines.line(start);
        boolean alone = lastTokenLine != line;
        pos += 2;
        while (pos < n && !(s[pos] == '*' && pos + 1 < n && s[pos + 1] == '/')) {
            pos++;
        }
        pos = Math.min(n, pos + 2);
        onComment(start, pos, line, alone);
    }

    /** Comments are only read for suppressions: build a String only when one may be there. */
    private void onComment(int a, int b, int line, boolean alone) {
        for (int i = a; i + 10 <= b; i++) { // "mana-lint:"
            if (s[i] == 'm' && s[i + 4] == '-' && s[i + 9] == ':' && s[i + 1] == 'a' && s[i + 5] == 'l') {
                suppressions.onComment(new String(s, a, b - a), line, alone);
                return;
            }
        }
    }

    /** A directive line after '#': conditionals always, #define/#undef in live code. */
    private void directive() {
        int k = next();
        if (k == NEWLINE || k == EOF) {
            return;
        }
        String name = k == NAME ? text(tokStart, tokEnd) : "";
        int restStart = pos;
        // collect the rest of the logical line as tokens
        Tokens body = new Tokens(16);
        List<String> names = new ArrayList<>();
        int firstTokStart = -1;
        while ((k = next()) != NEWLINE && k != EOF) {
            if (firstTokStart < 0) {
                firstTokStart = tokStart;
            }
            int kind = k == NAME ? Tokens.IDENT : k == '(' ? Tokens.LPAREN : k == ')' ? Tokens.RPAREN : Tokens.OTHER;
            body.add(kind, tokStart, tokEnd);
            names.add(k == NAME ? text(tokStart, tokEnd) : null);
        }
        int restEnd = k == NEWLINE ? tokStart : pos;
        switch (name) {
            case "if" -> conds.onIf(Conditionals.evaluate(conditionText(restStart, restEnd)));
            case "ifdef", "ifndef" -> conds.onIf(Conditionals.Value.UNKNOWN);
            case "elif" -> conds.onElif(Conditionals.evaluate(conditionText(restStart, restEnd)));
            case "elifdef", "elifndef" -> conds.onElif(Conditionals.Value.UNKNOWN);
            case "else" -> conds.onElse();
            case "endif" -> conds.onEndif();
            case "define" -> {
                if (conds.live() && body.size() > 0 && body.kind(0) == Tokens.IDENT) {
                    define(body, names);
                }
            }
            case "undef" -> {
                if (conds.live() && !names.isEmpty() && names.get(0) != null) {
                    macros.remove(names.get(0));
                }
            }
            default -> { }
        }
    }

    /** The condition's text without comments (they were skipped by the tokens; rebuild from tokens). */
    private String conditionText(int a, int b) {
        StringBuilder sb = new StringBuilder();
        int save = pos;
        pos = a;
        int k;
        while (pos < b && (k = next()) != NEWLINE && k != EOF) {
            sb.append(text(tokStart, tokEnd)).append(' ');
        }
        pos = save;
        return sb.toString();
    }

    private void define(Tokens t, List<String> names) {
        String name = names.get(0);
        int bodyFrom = 1;
        // function-like macro: '(' right after the name, then the parameter list
        if (t.size() > 1 && t.kind(1) == Tokens.LPAREN && t.start(1) == t.end(0)) {
            int depth = 0;
            for (int i = 1; i < t.size(); i++) {
                if (t.kind(i) == Tokens.LPAREN) {
                    depth++;
                } else if (t.kind(i) == Tokens.RPAREN && --depth == 0) {
                    bodyFrom = i + 1;
                    break;
                }
            }
        }
        Tokens body = new Tokens(Math.max(1, t.size() - bodyFrom));
        List<String> bodyNames = new ArrayList<>();
        for (int i = bodyFrom; i < t.size(); i++) {
            body.add(t.kind(i), t.start(i), t.end(i));
            bodyNames.add(names.get(i));
        }
        Macro m = new Macro(name, t.start(0), body, bodyNames);
        macros.put(name, m);
        allMacros.add(m);
        char c = name.charAt(0);
        if (c < 128) {
            macroFirst[c] = true;
        }
    }
}
