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
        StringBuilder sb = new StringBuilder(80);
        sb.append(String.format("%016x ", address));
        for (int k = 0; k < 16; k++) {
            if (k == 8) {
                sb.append(' ');
            }
            sb.append(k < n ? String.format(" %02x", b[off + k] & 0xff) : "   ");
        }
        sb.append("  |");
        for (int k = 0; k < 16 && k < n; k++) {
            int c = b[off + k] & 0xff;
            sb.append(c >= 0x20 && c < 0x7f ? (char) c : '.');
        }
        return sb.append('|').toString();
    }

    /** Every line for {@code n} bytes of {@code b}, each ending with '\n'. */
    public static String lines(long address, byte[] b, int n) {
        StringBuilder sb = new StringBuilder((n / 16 + 1) * 80);
        for (int i = 0; i < n; i += 16) {
            sb.append(line(address + i, b, i, Math.min(16, n - i))).append('\n');
        }
        return sb.toString();
    }
}
