package dev.mana.dap.session;

import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.MiValue;
import dev.mana.gdb.split.ElfObject;
import dev.mana.gdb.split.SplitProcess;
import dev.mana.inspector.Half;
import java.nio.file.Path;
import java.util.List;
import org.eclipse.lsp4j.debug.Breakpoint;
import org.eclipse.lsp4j.debug.BreakpointNotVerifiedReason;
import org.eclipse.lsp4j.debug.Source;
import org.eclipse.lsp4j.debug.SourcePresentationHint;
import org.eclipse.lsp4j.debug.StackFrame;
import org.eclipse.lsp4j.debug.StackFramePresentationHint;
import org.eclipse.lsp4j.debug.StoppedEventArgumentsReason;
import org.eclipse.lsp4j.debug.Thread;
import org.eclipse.lsp4j.debug.Variable;

/**
 * Translates GDB/MI records into DAP types. No state and no gdb commands: what a record says becomes
 * what the client is told, so the mapping can be tested on recorded records alone.
 */
final class MiToDap {
    /** {@code Source.origin} of a frame in the upper half: the program, its libraries, libmana. */
    static final String UPPER_ORIGIN = "upper half (program)";
    /** {@code Source.origin} of a frame in the lower half: the runtime's loader and the real MPI library. */
    static final String LOWER_ORIGIN = "lower half (MPI library and runtime)";

    private MiToDap() {
    }

    /** One entry of {@code -thread-info}'s {@code threads}. */
    static Thread thread(MiTuple t) {
        Thread th = new Thread();
        th.setId(Integer.parseInt(t.getString("id")));
        String name = t.getString("name");
        String target = t.getString("target-id");
        StringBuilder b = new StringBuilder(name != null ? name : "thread " + t.getString("id"));
        if (target != null) {
            b.append(" (").append(target).append(')');
        }
        th.setName(b.toString());
        return th;
    }

    /**
     * One entry of {@code -stack-list-frames}. The frame's half is in three places, for clients that show
     * one or the other: the name ({@code "[upper] main"}, what {@code mana_gdb}'s {@code bt} shows), the
     * source's {@code origin}, and the presentation hint (lower-half frames are the runtime and the MPI
     * library, rarely what a user steps through: {@code subtle}).
     *
     * @param lineBase 1 when the client counts lines from 1 (the usual), 0 when from 0
     */
    static StackFrame frame(int id, MiTuple f, SplitProcess process, int lineBase) {
        StackFrame sf = new StackFrame();
        sf.setId(id);
        long addr = parseAddress(f.getString("addr"));
        Half half = addr == 0 ? null : process.halfOf(addr);
        String func = f.getString("func");
        String where = func != null ? func : f.getString("from") != null
                ? "?? from " + Path.of(f.getString("from")).getFileName() : "??";
        sf.setName(half == null ? where : "[" + half.label() + "] " + where);
        if (addr != 0) {
            sf.setInstructionPointerReference("0x" + Long.toHexString(addr));
            ElfObject o = process.objectAt(addr);
            if (o != null) {
                sf.setModuleId(o.path().getFileName().toString());
            }
        }
        String file = f.getString("fullname", f.getString("file"));
        String line = f.getString("line");
        if (file != null) {
            Source s = new Source();
            s.setName(Path.of(file).getFileName().toString());
            s.setPath(file);
            if (half != null) {
                s.setOrigin(half == Half.UPPER ? UPPER_ORIGIN : half == Half.LOWER ? LOWER_ORIGIN : "kernel (vDSO)");
            }
            if (half == Half.LOWER) {
                s.setPresentationHint(SourcePresentationHint.DEEMPHASIZE);
            }
            sf.setSource(s);
        }
        sf.setLine(line == null ? 0 : Integer.parseInt(line) - 1 + lineBase);
        sf.setColumn(0);
        if (half == Half.LOWER || half == Half.KERNEL) {
            sf.setPresentationHint(StackFramePresentationHint.SUBTLE);
        } else if (file == null) {
            sf.setPresentationHint(StackFramePresentationHint.SUBTLE); // no source: nothing to show
        }
        return sf;
    }

    /** The half a frame's name says it runs in ({@code "[upper] main"}), or null. For clients and tests. */
    static String halfOfName(String frameName) {
        if (frameName.startsWith("[") && frameName.indexOf(']') > 0) {
            return frameName.substring(1, frameName.indexOf(']'));
        }
        return null;
    }

    /**
     * The DAP reason of a stop. gdb stops a whole all-stop process for one reason, reported for the
     * thread that caused it.
     *
     * @param pauseRequested the client asked for a pause: the SIGINT gdb reports is that pause
     * @param functionBreakpoint whether the breakpoint hit (if one) is one of the function breakpoints
     */
    static String stopReason(GdbEvent.Stopped s, boolean pauseRequested, boolean functionBreakpoint) {
        String r = s.reason();
        if (r == null) {
            // an interrupt with no signal (gdb in all-stop after -exec-interrupt may say nothing)
            return StoppedEventArgumentsReason.PAUSE;
        }
        switch (r) {
            case "breakpoint-hit":
                return functionBreakpoint ? StoppedEventArgumentsReason.FUNCTION_BREAKPOINT
                        : StoppedEventArgumentsReason.BREAKPOINT;
            case "watchpoint-trigger", "read-watchpoint-trigger", "access-watchpoint-trigger":
                return StoppedEventArgumentsReason.DATA_BREAKPOINT;
            case "end-stepping-range", "function-finished", "location-reached":
                return StoppedEventArgumentsReason.STEP;
            case "signal-received":
                if (pauseRequested && isInterrupt(s)) {
                    return StoppedEventArgumentsReason.PAUSE;
                }
                return StoppedEventArgumentsReason.EXCEPTION;
            default:
                return pauseRequested ? StoppedEventArgumentsReason.PAUSE : StoppedEventArgumentsReason.EXCEPTION;
        }
    }

    private static boolean isInterrupt(GdbEvent.Stopped s) {
        String sig = s.record().results().getString("signal-name");
        return sig == null || sig.equals("SIGINT") || sig.equals("0");
    }

    /** The text a stop for a signal shows ("SIGSEGV, Segmentation fault"), or null. */
    static String stopDescription(GdbEvent.Stopped s) {
        MiTuple r = s.record().results();
        String sig = r.getString("signal-name");
        if (sig == null) {
            return null;
        }
        String meaning = r.getString("signal-meaning");
        return meaning == null ? sig : sig + ", " + meaning;
    }

    /** The gdb breakpoint number a stop reports ({@code bkptno}), or null. */
    static Integer hitBreakpoint(GdbEvent.Stopped s) {
        String n = s.record().results().getString("bkptno");
        if (n == null) {
            return null;
        }
        try {
            return Integer.parseInt(n);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * The exit status of an exit stop: gdb writes {@code exit-code} in octal ("01"), and none for
     * {@code exited-normally}; a process killed by a signal has no status: 128 + the signal's number,
     * as a shell says, where gdb names a signal this table knows.
     */
    static int exitCode(GdbEvent.Stopped s) {
        MiTuple r = s.record().results();
        String code = r.getString("exit-code");
        if (code != null) {
            try {
                return Integer.parseInt(code, 8);
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        if ("exited-signalled".equals(s.reason())) {
            int n = List.of("SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
                    "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM")
                    .indexOf(r.getString("signal-name"));
            return n < 0 ? -1 : 128 + n + 1;
        }
        return 0;
    }

    /**
     * A breakpoint as {@code -break-insert} (or {@code =breakpoint-modified}) describes it. Its DAP id is
     * gdb's number, so a stop's {@code bkptno} is the id the client knows. A pending breakpoint (no
     * code there yet, e.g. a library not loaded) is not verified; a breakpoint with several locations
     * (a name in both halves) reports the line of the first.
     */
    static Breakpoint breakpoint(MiTuple bkpt, int lineBase) {
        Breakpoint b = new Breakpoint();
        b.setId(Integer.parseInt(bkpt.getString("number")));
        String pending = bkpt.getString("pending");
        MiTuple where = bkpt;
        if (bkpt.getString("line") == null) {
            List<MiValue> locs = bkpt.getList("locations");
            if (!locs.isEmpty()) {
                where = locs.get(0).asTuple();
            }
        }
        b.setVerified(pending == null);
        if (pending != null) {
            b.setMessage("pending: no code for " + pending + " yet (gdb inserts it when a library with it loads)");
            b.setReason(BreakpointNotVerifiedReason.PENDING);
        }
        String line = where.getString("line");
        if (line != null) {
            b.setLine(Integer.parseInt(line) - 1 + lineBase);
        }
        String file = where.getString("fullname", where.getString("file"));
        if (file != null) {
            Source s = new Source();
            s.setName(Path.of(file).getFileName().toString());
            s.setPath(file);
            b.setSource(s);
        }
        String addr = where.getString("addr");
        if (addr != null && addr.startsWith("0x")) {
            b.setInstructionReference(addr);
        }
        return b;
    }

    /** A breakpoint gdb refused: not verified, with gdb's reason. */
    static Breakpoint failedBreakpoint(String message, Integer line) {
        Breakpoint b = new Breakpoint();
        b.setVerified(false);
        b.setMessage(message);
        b.setReason(BreakpointNotVerifiedReason.FAILED);
        b.setLine(line);
        return b;
    }

    /**
     * A variable from a gdb variable object ({@code -var-create} or a child of {@code -var-list-children}):
     * {@code name} as the client shows it, {@code reference} non-zero when it has children to expand.
     */
    static Variable variable(String name, MiTuple varobj, int reference, String evaluateName) {
        Variable v = new Variable();
        v.setName(name);
        v.setValue(varobj.getString("value", ""));
        v.setType(varobj.getString("type"));
        v.setVariablesReference(reference);
        v.setEvaluateName(evaluateName);
        int n = numChildren(varobj);
        if (reference != 0 && n > 0) {
            v.setNamedVariables(n);
        }
        return v;
    }

    /** {@code numchild} of a variable object (0 when absent). */
    static int numChildren(MiTuple varobj) {
        String n = varobj.getString("numchild");
        try {
            return n == null ? 0 : Integer.parseInt(n);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static long parseAddress(String s) {
        if (s == null || !s.startsWith("0x")) {
            return 0;
        }
        try {
            return Long.parseUnsignedLong(s.substring(2), 16);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
