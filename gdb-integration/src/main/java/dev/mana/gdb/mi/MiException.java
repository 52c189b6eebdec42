package dev.mana.gdb.mi;

/** A command GDB answered with {@code ^error}, or a session that failed (gdb gone, timeout). */
public class MiException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String command;

    public MiException(String command, String message) {
        super(command == null ? message : message + " (command: " + command + ")");
        this.command = command;
    }

    public MiException(String command, String message, Throwable cause) {
        this(command, message);
        initCause(cause);
    }

    public String command() { return command; }

    /** No answer within the command's time-out. */
    public static final class Timeout extends MiException {
        private static final long serialVersionUID = 1L;

        public Timeout(String command, String message) {
            super(command, message);
        }
    }
}
