package dev.mana.gdb.mi.command;

/** {@code -target-attach PID}: the process stops; the stop comes as an {@code *stopped} event. */
public final class MiTargetAttach extends MiPlainCommand {
    private final long pid;

    public MiTargetAttach(long pid) {
        this.pid = pid;
    }

    @Override
    public String line() {
        return new MiLine("-target-attach").add(pid).toString();
    }
}
