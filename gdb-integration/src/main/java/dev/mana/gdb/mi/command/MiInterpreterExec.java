package dev.mana.gdb.mi.command;

/**
 * {@code -interpreter-exec [--thread T --frame L] console "CMD"}: a CLI command, run in a frame or in gdb's
 * selected one; what it prints comes in the response's console text.
 */
public final class MiInterpreterExec extends MiPlainCommand {
    private final MiFrame frame;
    private final String command;

    private MiInterpreterExec(MiFrame frame, String command) {
        this.frame = frame;
        this.command = command;
    }

    public static MiInterpreterExec console(String command) {
        return new MiInterpreterExec(null, command);
    }

    /** {@code frame}: null for gdb's selected frame. */
    public static MiInterpreterExec console(MiFrame frame, String command) {
        return new MiInterpreterExec(frame, command);
    }

    @Override
    public String line() {
        return new MiLine("-interpreter-exec").frame(frame).add("console").quoted(command).toString();
    }
}
