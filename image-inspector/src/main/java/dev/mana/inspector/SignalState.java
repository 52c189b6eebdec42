package dev.mana.inspector;

import java.util.List;

/** The SIGNALS section of our format: handlers that are not SIG_DFL, and interval timers. */
public record SignalState(long pending, List<Action> actions, List<Timer> timers) {
    public SignalState {
        actions = List.copyOf(actions);
        timers = List.copyOf(timers);
    }

    /** A sigaction record; {@code handler} 1 means SIG_IGN. */
    public record Action(int signo, long handler, long flags, long restorer, long mask) {
        public boolean ignored() {
            return handler == 1;
        }
    }

    /** An interval timer: which 0 REAL, 1 VIRTUAL, 2 PROF. */
    public record Timer(int which, long intervalNs, long valueNs) {
        public String whichName() {
            switch (which) {
                case 0: return "ITIMER_REAL";
                case 1: return "ITIMER_VIRTUAL";
                case 2: return "ITIMER_PROF";
                default: return "which " + which;
            }
        }
    }

    private static final String[] NAMES = {"", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
        "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM",
        "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
        "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"};

    /** "SIGUSR1", "SIGRTMIN+3", or "signal N". */
    public static String signalName(int signo) {
        if (signo > 0 && signo < NAMES.length) {
            return NAMES[signo];
        }
        if (signo >= 34 && signo <= 64) {
            return signo == 34 ? "SIGRTMIN" : "SIGRTMIN+" + (signo - 34);
        }
        return "signal " + signo;
    }
}
