package dev.mana.eclipse.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether ranks can be debugged here: the gdb to use exists, and the kernel lets it attach. Debugging
 * attaches gdb to ranks it did not start (restarted or launched by mpirun); Yama's
 * {@code /proc/sys/kernel/yama/ptrace_scope} decides whether that is allowed: 0 lets a process attach to any
 * of its user's processes, 1 only to its own descendants, 2 only with {@code CAP_SYS_PTRACE} (root), 3
 * never. Nothing here prevents a launch: these are warnings for Debug mode.
 *
 * @param gdb         the gdb found (an absolute path), or null
 * @param ptraceScope Yama's setting, or -1 where the kernel has no Yama (no restriction)
 * @param problems    sentences that say what to do
 */
public record DebuggerCheck(String gdb, int ptraceScope, List<String> problems) {
    /** Where the kernel publishes Yama's setting. */
    public static final Path PTRACE_SCOPE = Path.of("/proc/sys/kernel/yama/ptrace_scope");

    public DebuggerCheck {
        problems = List.copyOf(problems);
    }

    /** The check with the preference's gdb, the IDE's PATH and this kernel. */
    public static DebuggerCheck here() {
        return check(gdbSetting(), System.getenv("PATH"), PTRACE_SCOPE, ManaRuntime.runningAsRoot());
    }

    /** The gdb preference (Preferences > MANA), or "gdb". */
    public static String gdbSetting() {
        String g = ManaRuntime.preferences().get(ManaCore.PREF_GDB_PATH, "").trim();
        return g.isEmpty() ? "gdb" : g;
    }

    /**
     * @param gdb         a path or a name to look up on {@code path}
     * @param ptraceScope Yama's file (absent: no Yama)
     * @param root        whether the IDE runs as root (has {@code CAP_SYS_PTRACE})
     */
    public static DebuggerCheck check(String gdb, String path, Path ptraceScope, boolean root) {
        List<String> problems = new ArrayList<>();
        String found = ManaRuntime.which(gdb, path);
        if (found == null) {
            problems.add(gdb.contains("/") ? "The debugger " + gdb + " does not exist or is not executable: fix the "
                    + "gdb path in Preferences > MANA." : "gdb is not on the PATH: install it (Debian: gdb) or set its "
                    + "path in Preferences > MANA; Debug mode needs it.");
        }
        int scope = -1;
        if (Files.exists(ptraceScope)) {
            try {
                scope = Integer.parseInt(Files.readString(ptraceScope).trim());
            } catch (IOException | NumberFormatException e) {
                problems.add("Cannot read " + ptraceScope + " (" + e.getMessage() + "): whether gdb may attach to ranks "
                        + "is unknown.");
            }
        }
        String fix = "run 'sudo sysctl kernel.yama.ptrace_scope=0' (or set it in /etc/sysctl.d/) to debug ranks";
        switch (scope) {
            case 1 -> {
                if (!root) {
                    problems.add("ptrace_scope is 1: gdb may attach only to processes it started, not to the ranks "
                            + "mpirun starts; " + fix + ".");
                }
            }
            case 2 -> {
                if (!root) {
                    problems.add("ptrace_scope is 2: only root (CAP_SYS_PTRACE) may attach gdb to a rank; " + fix + ".");
                }
            }
            case 3 -> problems.add("ptrace_scope is 3: no process may attach gdb to another until the next boot; "
                    + "ranks cannot be debugged on this machine.");
            default -> {
                // 0 or no Yama: any process of the same user
            }
        }
        return new DebuggerCheck(found, scope, problems);
    }

    public boolean isOk() {
        return problems.isEmpty();
    }

    /** Lines for the runtime check's report. */
    public String report() {
        StringBuilder b = new StringBuilder("Debugger: ").append(gdb == null ? "(none found)" : gdb);
        b.append(ptraceScope < 0 ? " (no Yama ptrace restriction)\n" : " (ptrace_scope " + ptraceScope + ")\n");
        problems.forEach(p -> b.append("Warning: ").append(p).append('\n'));
        return b.toString();
    }
}
