package dev.mana.inspector;

/**
 * The hex + ASCII layout of {@code mana_inspect hexdump}, shared by the command and the Eclipse image
 * editor's Hex page so that both show the same lines for the same bytes.
 */
public final class HexDump {
    private HexDump() {
    }

    /**
     * One line: 16-digit address, 16 bytes in two groups of eight, then {@code |ASCII|} (non-printable
     * bytes as '.'). Shows {@code min(16, n)} bytes of {@code b} from {@code off}; {@code address} is the
     * address of {@code b[off]}.
     */
    public static String line(long address, byte[] b, int off, int n) {
        char[] c = new char[LINE];
        return new String(c, 0, format(c, 0, address, b, off, n));
    }

    /** Characters of one line, at most (address, 16 hex bytes, ASCII): */
    static final int LINE = 17 + 16 * 3 + 1 + 3 + 16 + 1;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /**
     * Writes the line {@link #line} makes into {@code c} from {@code at}, without the String
     * formatting machinery (hexdump of large ranges runs at disk speed); returns the end index.
     */
    public static int format(char[] c, int at, long address, byte[] b, int off, int n) {
        int p = at;
        for (int shift = 60; shift >= 0; shift -= 4) {
            c[p++] = HEX[(int) (address >>> shift) & 15];
        }
        c[p++] = ' ';
        for (int k = 0; k < 16; k++) {
            if (k == 8) {
                c[p++] = ' ';
            }
            c[p++] = ' ';
            if (k < n) {
                int v = b[off + k] & 0xff;
                c[p++] = HEX[v >>> 4];
                c[p++] = HEX[v & 15];
            } else {
                c[p++] = ' ';
                c[p++] = ' ';
            }
        }
        c[p++] = ' ';
        c[p++] = ' ';
        c[p++] = '|';
        for (int k = 0; k < 16 && k < n; k++) {
            int v = b[off + k] & 0xff;
            c[p++] = v >= 0x20 && v < 0x7f ? (char) v : '.';
        }
        c[p++] = '|';
        return p;
    }

    /** Every line for {@code n} bytes of {@code b}, each ending with '\n'. */
    public static String lines(long address, byte[] b, int n) {
        char[] c = new char[(n / 16 + 1) * (LINE + 1)];
        int p = 0;
        for (int i = 0; i < n; i += 16) {
            p = format(c, p, address + i, b, i, Math.min(16, n - i));
            c[p++] = '\n';
        }
        return new String(c, 0, p);
    }
}
