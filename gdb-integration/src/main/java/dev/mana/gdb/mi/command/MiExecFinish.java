package dev.mana.gdb.mi.command;

/** {@code -exec-finish --thread T --frame 0}: runs one thread out of its innermost frame. */
public final class MiExecFinish extends MiPlainCommand {
    private final String thread;

    public MiExecFinish(String thread) {
        this.thread = thread;
    }

    @Override
    public String line() {
        return new MiLine("-exec-finish").frame(MiFrame.top(thread)).toString();
    }
}
