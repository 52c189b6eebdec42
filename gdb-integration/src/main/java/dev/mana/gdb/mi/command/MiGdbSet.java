package dev.mana.gdb.mi.command;

/**
 * {@code -gdb-set SETTING}: one of gdb's settings ({@code confirm off}), or with {@link #variable} an
 * assignment to a variable of the program ({@code var NAME = VALUE}), as gdb's {@code set var}.
 */
public final class MiGdbSet extends MiPlainCommand {
    private final String setting;

    /** {@code setting}: the words as gdb's {@code set} takes them, e.g. {@code "pagination off"}. */
    public MiGdbSet(String setting) {
        this.setting = setting;
    }

    /** {@code -gdb-set var NAME = VALUE}. */
    public static MiGdbSet variable(String name, String value) {
        return new MiGdbSet("var " + name + " = " + value);
    }

    @Override
    public String line() {
        return new MiLine("-gdb-set").add(setting).toString();
    }
}
