package dev.mana.gdb.mi.command;

/** {@code -target-detach}: lets the process go on running without gdb. */
public final class MiTargetDetach extends MiPlainCommand {
    @Override
    public String line() {
        return "-target-detach";
    }
}
