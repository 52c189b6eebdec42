package dev.mana.gdb.mi;

/** C-string quoting as GDB/MI reads (commands) and writes (output) it. */
public final class MiEscapes {
    private MiEscapes() {
    }

    /** {@code "text"} with backslash, quote and control characters escaped: an MI c-string. */
    public static String quote(String text) {
        StringBuilder b = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        b.append(String.format("\\%03o", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
