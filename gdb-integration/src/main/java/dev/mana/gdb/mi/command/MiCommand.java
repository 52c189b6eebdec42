package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.MiResponse;

/**
 * One GDB/MI command: the line it sends and the reading of gdb's answer, kept together so the Eclipse
 * model, the DAP server and mana_gdb send the same bytes and read the same fields. Send one with
 * {@link dev.mana.gdb.mi.GdbMi#run} (its parsed result) or {@code execute} (the raw response).
 *
 * @param <R> what {@link #result} reads out of a {@code ^done}
 */
public abstract class MiCommand<R> {
    protected MiCommand() {
    }

    /** The command line as gdb receives it, without the token. */
    public abstract String line();

    /**
     * What {@link dev.mana.gdb.mi.GdbMi#send(String)} is handed: the line, for a CLI command its own text
     * (gdb-integration wraps it and names it that way in errors and the transcript).
     */
    public String text() {
        return line();
    }

    /** Reads a successful answer ({@code ^done}, {@code ^running}); an {@code ^error} never gets here. */
    public abstract R result(MiResponse response) throws MiException;

    @Override
    public String toString() {
        return line();
    }
}
