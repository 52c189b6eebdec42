package dev.mana.mpidiag.internal;

/**
 * A Fortran tokenizer for both source forms, line by line: comments ({@code !}, and in fixed form
 * {@code C}, {@code c}, {@code *}, {@code D} in column 1), character literals with doubled quotes
 * (also across continuation lines), continuation lines ({@code &} in free form, column 6 in fixed
 * form; columns past 72 are ignored in fixed form as the standard says), {@code ;} separators, and
 * preprocessor lines ({@code #if 0} dead branches) for .F/.F90 files. Names are case-insensitive:
 * {@code MPI_}/{@code PMPI_} names and the {@code CALL} keyword become tokens of their own.
 */
public final class FortranLexer {
    private final char[] s;
    private final int n;
    private final boolean fixed;
    private final Tokens out = new Tokens();
    private final Conditionals conds = new Conditionals();
    private final Suppressions suppressions = new Suppressions();
    private final LineMap lines;
    private final boolean[] codeLine;

    /** a character literal continued onto the next line (0: none) */
    private char openQuote;
    /** the previous code line ended with '&' (free form) */
    private boolean continued;
    /** tokens were emitted since the last end of statement */
    private boolean inStatement;
    private int line;

    public FortranLexer(char[] text, int length, boolean fixedForm) {
        this.s = text;
        this.n = length;
        this.fixed = fixedForm;
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

    public FortranLexer run() {
        for (line = 0; line < lines.lineCount(); line++) {
            int a = lines.lineStart(line);
            int b = line + 1 < lines.lineCount() ? lines.lineStart(line + 1) - 1 : n;
            if (b > a && s[b - 1] == '\r') {
                b--;
            }
            if (b > a && s[a] == '#') {
                directive(a, b);
                continue;
            }
            if (!conds.live()) {
                continue;
            }
            if (fixed) {
                fixedLine(a, b);
            } else {
                freeLine(a, b);
            }
        }
        endStatement(n);
        suppressions.resolve(l -> l < codeLine.length && codeLine[l], lines.lineCount());
        return this;
    }

    private void directive(int a, int b) {
        String t = new String(s, a + 1, b - a - 1).strip();
        // C comments on directive lines
        t = t.replaceAll("/\\*.*?\\*/", " ").replaceAll("//.*$", "").strip();
        int sp = 0;
        while (sp < t.length() && Character.isLetter(t.charAt(sp))) {
            sp++;
        }
        String name = t.substring(0, sp);
        String rest = t.substring(sp);
        switch (name) {
            case "if" -> conds.onIf(Conditionals.evaluate(rest));
            case "ifdef", "ifndef" -> conds.onIf(Conditionals.Value.UNKNOWN);
            case "elif" -> conds.onElif(Conditionals.evaluate(rest));
            case "else" -> conds.onElse();
            case "endif" -> conds.onEndif();
            default -> { }
        }
    }

    private void fixedLine(int a, int b) {
        if (a == b) {
            return;
        }
        char c0 = s[a];
        if (c0 == 'C' || c0 == 'c' || c0 == '*' || c0 == '!' || c0 == 'D' || c0 == 'd') {
            suppressions.onComment(new String(s, a, b - a), line, true);
            return;
        }
        int codeEnd = Math.min(b, a + 72);
        int textStart;
        boolean continuation;
        if (c0 == '\t' || labelThenTab(a, b)) {
            int tab = a;
            while (s[tab] != '\t') {
                tab++;
            }
            continuation = tab + 1 < b && s[tab + 1] >= '1' && s[tab + 1] <= '9';
            textStart = continuation ? tab + 2 : tab + 1;
            codeEnd = b; // tab form: no fixed columns
        } else {
            if (b - a <= 6) {
                if (isBlank(a, b)) {
                    return;
                }
                continuation = false;
                textStart = b;
            } else {
                char c5 = s[a + 5];
                continuation = c5 != ' ' && c5 != '0';
                textStart = a + 6;
            }
        }
        if (isBlank(textStart, codeEnd)) {
            // a line of only a label or blanks; a trailing comment beyond column 72 is not code
            return;
        }
        if (!continuation) {
            endStatement(a);
        }
        scan(textStart, codeEnd, b);
    }

    private boolean labelThenTab(int a, int b) {
        for (int i = a; i < Math.min(b, a + 6); i++) {
            if (s[i] == '\t') {
                return true;
            }
            if (!(s[i] == ' ' || s[i] >= '0' && s[i] <= '9')) {
                return false;
            }
        }
        return false;
    }

    private boolean isBlank(int a, int b) {
        for (int i = a; i < b; i++) {
            if (s[i] != ' ' && s[i] != '\t') {
                return false;
            }
        }
        return true;
    }

    private void freeLine(int a, int b) {
        int i = a;
        while (i < b && (s[i] == ' ' || s[i] == '\t')) {
            i++;
        }
        if (i == b) {
            return; // blank lines do not end a continued statement
        }
        if (s[i] == '!') {
            suppressions.onComment(new String(s, i, b - i), line, true);
            return; // comment lines neither
        }
        if (continued) {
            if (s[i] == '&') {
                i++;
            }
        } else {
            endStatement(a);
        }
        continued = false;
        scan(i, b, b);
    }

    private void endStatement(int at) {
        if (inStatement) {
            out.add(Tokens.EOS, at, at);
            inStatement = false;
        }
        openQuote = 0;
    }

    /**
     * Scans code in [a, b); {@code lineEnd} bounds a trailing comment (fixed form: past column 72).
     */
    private void scan(int a, int b, int lineEnd) {
        int i = a;
        if (openQuote != 0) {
            i = closeQuote(i, b, openQuote);
        }
        while (i < b) {
            char c = s[i];
            if (c == ' ' || c == '\t') {
                i++;
                continue;
            }
            if (c == '!') {
                suppressions.onComment(new String(s, i, lineEnd - i), line, !codeLine[line]);
                return;
            }
            if (c == '&' && !fixed) {
                int j = i + 1;
                while (j < b && (s[j] == ' ' || s[j] == '\t')) {
                    j++;
                }
                if (j == b || s[j] == '!') {
                    continued = true;
                    if (j < b) {
                        suppressions.onComment(new String(s, j, lineEnd - j), line, false);
                    }
                    return;
                }
                i++;
                continue;
            }
            codeLine[line] = true;
            inStatement = true;
            if (c == '\'' || c == '"') {
                int start = i;
                i = closeQuote(i + 1, b, c);
                out.add(Tokens.OTHER, start, i);
                continue;
            }
            if (c == ';') {
                endStatement(i);
                i++;
                continue;
            }
            if (Character.isLetter(c)) {
                int start = i;
                while (i < b && (Character.isLetterOrDigit(s[i]) || s[i] == '_')) {
                    i++;
                }
                name(start, i);
                continue;
            }
            if (c >= '0' && c <= '9') {
                while (i < b && (Character.isLetterOrDigit(s[i]) || s[i] == '_' || s[i] == '.')) {
                    i++;
                }
                out.add(Tokens.OTHER, i - 1, i);
                continue;
            }
            out.add(c == '(' ? Tokens.LPAREN : c == ')' ? Tokens.RPAREN : Tokens.OTHER, i, i + 1);
            i++;
        }
    }

    /** Past the closing quote (a doubled quote is one quote character); sets openQuote at a continued end. */
    private int closeQuote(int i, int b, char q) {
        openQuote = 0;
        while (i < b) {
            if (s[i] == q) {
                if (i + 1 < b && s[i + 1] == q) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            if (s[i] == '&' && !fixed && isBlank(i + 1, b)) {
                openQuote = q;
                continued = true;
                return b;
            }
            i++;
        }
        if (fixed) {
            openQuote = q; // the literal goes on in the next continuation line
        }
        return b;
    }

    private void name(int a, int b) {
        int len = b - a;
        if (len == 4 && eqIgnoreCase(a, "call")) {
            out.add(Tokens.CALL, a, b);
            return;
        }
        // fixed form ignores blanks: CALLMPI_SEND(...) is CALL MPI_SEND(...)
        if (fixed && len > 8 && eqIgnoreCase(a, "call") && mpiPrefix(a + 4, b)) {
            out.add(Tokens.CALL, a, a + 4);
            out.add(Tokens.IDENT, a + 4, b);
            return;
        }
        out.add(mpiPrefix(a, b) ? Tokens.IDENT : Tokens.OTHER, a, b);
    }

    private boolean eqIgnoreCase(int a, String word) {
        for (int k = 0; k < word.length(); k++) {
            if (Character.toLowerCase(s[a + k]) != word.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private boolean mpiPrefix(int a, int b) {
        int i = a;
        if (b - i > 5 && (s[i] == 'p' || s[i] == 'P')) {
            i++;
        }
        return b - i > 4 && eqIgnoreCase(i, "mpi_");
    }
}
