package dev.mana.gdb.mi.command;

/** {@code -exec-step --thread T}: one source line, into calls, of one thread; the stop comes as an {@code *stopped} event. */
public final class MiExecStep extends MiPlainCommand {
    private final String thread;

    public MiExecStep(String thread) {
        this.thread = thread;
    }

    @Override
    public String line() {
        return new MiLine("-exec-step").thread(thread).toString();
    }
}
