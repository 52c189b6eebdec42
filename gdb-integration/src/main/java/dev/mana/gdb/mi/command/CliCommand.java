package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.MiResponse;

/**
 * A command MI has no equivalent for, sent as gdb's CLI through {@code -interpreter-exec console}. Its
 * {@link #text()} is the CLI text, the name it has in errors and the transcript.
 *
 * @param <R> what {@link #result} reads (often the console text)
 */
public abstract class CliCommand<R> extends MiCommand<R> {
    /** The command as typed at gdb's prompt. */
    @Override
    public abstract String text();

    @Override
    public final String line() {
        return MiInterpreterExec.console(text()).line();
    }

    /** A CLI command whose answer needs no reading. */
    public abstract static class Plain extends CliCommand<MiResponse> {
        @Override
        public MiResponse result(MiResponse response) throws MiException {
            return response;
        }
    }
}
