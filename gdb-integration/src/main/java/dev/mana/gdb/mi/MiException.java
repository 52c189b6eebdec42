package dev.mana.gdb.mi;

/** A command GDB answered with {@code ^error}, or a session that failed (gdb gone, timeout). */
public class MiException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String command;
    private final String reason;

    public MiException(String command, String message) {
        super(command == null ? message : message + " (command: " + command + ")");
        this.command = command;
        this.reason = message;
    }

    public MiException(String command, String message, Throwable cause) {
        this(command, message);
        initCause(cause);
    }

    public String command() { return command; }

    /** gdb's message (or the session's) without the command: what a user is shown. */
    public String reason() { return reason; }

    /** No answer within the command's time-out. */
    public static final class Timeout extends MiException {
        private static final long serialVersionUID = 1L;

        public Timeout(String command, String message) {
            super(command, message);
        }
    }
}
