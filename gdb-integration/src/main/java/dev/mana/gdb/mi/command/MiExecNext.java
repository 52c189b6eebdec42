package dev.mana.gdb.mi.command;

/** {@code -exec-next --thread T}: one source line, over calls, of one thread; the stop comes as an {@code *stopped} event. */
public final class MiExecNext extends MiPlainCommand {
    private final String thread;

    public MiExecNext(String thread) {
        this.thread = thread;
    }

    @Override
    public String line() {
        return new MiLine("-exec-next").thread(thread).toString();
    }
}
