package dev.mana.gdb.mi.command;

/** {@code kill}: ends the process under gdb (MI's {@code -exec-abort} is not implemented by gdb). */
public final class CliKill extends CliCommand.Plain {
    @Override
    public String text() {
        return "kill";
    }
}
