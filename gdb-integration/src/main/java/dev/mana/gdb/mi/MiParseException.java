package dev.mana.gdb.mi;

/** A line that starts like an MI record but breaks its syntax; the message says where. */
public final class MiParseException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String line;
    private final int position;

    public MiParseException(String message, String line, int position) {
        super(message + " at column " + (position + 1) + " of: " + abbreviate(line));
        this.line = line;
        this.position = position;
    }

    public String line() { return line; }
    public int position() { return position; }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }
}
