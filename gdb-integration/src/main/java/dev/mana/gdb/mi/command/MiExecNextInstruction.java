package dev.mana.gdb.mi.command;

/** {@code -exec-next-instruction --thread T}: one machine instruction, over calls, of one thread; the stop comes as an {@code *stopped} event. */
public final class MiExecNextInstruction extends MiPlainCommand {
    private final String thread;

    public MiExecNextInstruction(String thread) {
        this.thread = thread;
    }

    @Override
    public String line() {
        return new MiLine("-exec-next-instruction").thread(thread).toString();
    }
}
