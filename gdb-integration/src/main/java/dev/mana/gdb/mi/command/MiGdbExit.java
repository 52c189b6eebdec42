package dev.mana.gdb.mi.command;

/** {@code -gdb-exit}: asks gdb to end (after the target is detached or killed). */
public final class MiGdbExit extends MiPlainCommand {
    @Override
    public String line() {
        return "-gdb-exit";
    }
}
