package dev.mana.gdb.mi;

/**
 * The answer to one command: its result record and the console text GDB printed while running it
 * (what the CLI would have shown; for {@code -interpreter-exec console} commands this is the output).
 */
public record MiResponse(MiRecord.Result result, String console, String log) {
    public MiTuple results() {
        return result.results();
    }

    public boolean isError() {
        return result.isError();
    }

    /** {@code ^error}'s message, or null. */
    public String errorMessage() {
        return result.isError() ? result.results().getString("msg") : null;
    }
}
