package dev.mana.gdb.mi.command;

/** {@code -exec-step-instruction --thread T}: one machine instruction, into calls, of one thread; the stop comes as an {@code *stopped} event. */
public final class MiExecStepInstruction extends MiPlainCommand {
    private final String thread;

    public MiExecStepInstruction(String thread) {
        this.thread = thread;
    }

    @Override
    public String line() {
        return new MiLine("-exec-step-instruction").thread(thread).toString();
    }
}
