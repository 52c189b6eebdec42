package dev.mana.gdb.mi.command;

/** {@code -exec-interrupt --all}: stops every thread (all-stop); the stop comes as a SIGINT {@code *stopped}. */
public final class MiExecInterrupt extends MiPlainCommand {
    private MiExecInterrupt() {
    }

    public static MiExecInterrupt all() {
        return new MiExecInterrupt();
    }

    @Override
    public String line() {
        return "-exec-interrupt --all";
    }
}
