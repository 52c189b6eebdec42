package dev.mana.gdb.mi.command;

/**
 * {@code handle SIGN nostop noprint pass}: gdb lets signal N through to the program without stopping or
 * saying so. For the runtime's checkpoint signal: a checkpoint stops every thread of a rank with it, and a
 * gdb that stopped the rank at each one (its default for real-time signals) would hold the checkpoint
 * until the user pressed Resume.
 */
public final class CliHandleSignal extends CliCommand.Plain {
    private final int signal;

    public CliHandleSignal(int signal) {
        if (signal < 1 || signal > 64) throw new IllegalArgumentException("no signal " + signal);
        this.signal = signal;
    }

    @Override
    public String text() {
        return "handle SIG" + signal + " nostop noprint pass";
    }
}
