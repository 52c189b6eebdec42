package dev.mana.gdb.mi.command;

import dev.mana.gdb.mi.MiResponse;

/** A command whose answer carries nothing to read (a setting, a resume): its result is the response itself. */
public abstract class MiPlainCommand extends MiCommand<MiResponse> {
    @Override
    public MiResponse result(MiResponse response) {
        return response;
    }
}
