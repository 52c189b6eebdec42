package dev.mana.mpidiag;

/**
 * A range in a text file: 0-based lines, 0-based UTF-16 columns (as LSP counts), end exclusive; and
 * the same as offsets into the text.
 */
public record Range(int startLine, int startColumn, int endLine, int endColumn, int startOffset, int endOffset) {
    public boolean contains(int line, int column) {
        boolean afterStart = line > startLine || line == startLine && column >= startColumn;
        boolean beforeEnd = line < endLine || line == endLine && column <= endColumn;
        return afterStart && beforeEnd;
    }
}
