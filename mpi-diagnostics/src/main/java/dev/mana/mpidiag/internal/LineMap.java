package dev.mana.mpidiag.internal;

import java.util.Arrays;

/** Offsets to 0-based lines and UTF-16 columns (the positions LSP and compilers count in); one thread at a time. */
public final class LineMap {
    private final int[] starts;
    private final int lines;

    public LineMap(char[] text, int length) {
        int[] s = new int[Math.max(16, length / 32)];
        int n = 0;
        s[n++] = 0;
        for (int i = 0; i < length; i++) {
            if (text[i] == '\n') {
                if (n == s.length) {
                    s = Arrays.copyOf(s, n * 2);
                }
                s[n++] = i + 1;
            }
        }
        this.starts = s;
        this.lines = n;
    }

    /** the line of the last lookup: scans ask in file order, so most lookups hit it or the next one */
    private int last;

    public int line(int offset) {
        int l = last;
        if (offset >= starts[l]) {
            if (l + 1 >= lines || offset < starts[l + 1]) {
                return l;
            }
            if (l + 2 >= lines || offset < starts[l + 2]) {
                last = l + 1;
                return l + 1;
            }
        }
        int i = Arrays.binarySearch(starts, 0, lines, offset);
        last = i >= 0 ? i : -i - 2;
        return last;
    }

    public int column(int offset) {
        return offset - starts[line(offset)];
    }

    public int lineStart(int line) {
        return starts[line];
    }

    public int lineCount() {
        return lines;
    }
}
