package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiEscapes;

/**
 * How an argument goes on an MI command line. gdb splits a line at whitespace and reads a word that
 * starts with {@code "} as a c-string (mi-parse.c), so a file name with a space or an expression with a
 * string literal must be quoted, while a number, an option or a symbol never needs it.
 */
public final class MiArgs {
    private MiArgs() {
    }

    /** Always a c-string: expressions, file names, conditions. */
    public static String quote(String text) {
        return MiEscapes.quote(text);
    }

    /** As it is where gdb reads it back unchanged as one word (a symbol, {@code *0x401000}, {@code var1}), else quoted. */
    public static String word(String text) {
        return needsQuotes(text) ? quote(text) : text;
    }

    static boolean needsQuotes(String text) {
        if (text.isEmpty()) {
            return true;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c) || c == '"' || c == '\\' || c < 0x20 || c == 0x7f) {
                return true;
            }
        }
        return false;
    }
}
