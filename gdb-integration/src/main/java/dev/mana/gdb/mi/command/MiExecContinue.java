package dev.mana.gdb.mi.command;

/** {@code -exec-continue}: resumes every thread (in the background: {@code mi-async}). */
public final class MiExecContinue extends MiPlainCommand {
    @Override
    public String line() {
        return "-exec-continue";
    }
}
