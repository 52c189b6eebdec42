package dev.mana.eclipse.debug;

import dev.mana.gdb.mi.CliExecution;
import dev.mana.gdb.mi.MiRecord;
import dev.mana.gdb.split.SymbolLoader;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.core.runtime.PlatformObject;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.IStreamListener;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.model.IProcess;
import org.eclipse.debug.core.model.IFlushableStreamMonitor;
import org.eclipse.debug.core.model.IStreamMonitor;
import org.eclipse.debug.core.model.IStreamsProxy;
import org.eclipse.debug.core.model.IStreamsProxy2;

/**
 * The gdb console of one debugged rank, as a process of the launch: the platform's Console view gives
 * every process of a launch its own console (an IOConsole with input), so each rank gets one, named
 * {@code gdb: rank N (pid P)}. Its output is gdb's MI console stream ({@code ~}: what the CLI prints) and
 * its error stream gdb's log ({@code &}: errors, warnings); a line typed into it is run as a CLI command
 * ({@code -interpreter-exec console}; MI commands, starting with {@code -}, as they are). A command that resumes
 * the rank runs in the background ({@link CliExecution}), so Suspend still works; while the rank waits in its
 * restart pause it releases the pause and lets the restore end first, as the target's Resume does.
 */
public final class GdbConsoleProcess extends PlatformObject implements IProcess {
    /** {@link IProcess#ATTR_PROCESS_TYPE} of these processes. */
    public static final String PROCESS_TYPE = ManaDebugModel.ID + ".gdb";

    private final RankDebugTarget target;
    private final Monitor out = new Monitor();
    private final Monitor err = new Monitor();
    private final Map<String, String> attributes = new HashMap<>();
    private final IStreamsProxy2 proxy = new IStreamsProxy2() {
        @Override
        public IStreamMonitor getOutputStreamMonitor() {
            return out;
        }

        @Override
        public IStreamMonitor getErrorStreamMonitor() {
            return err;
        }

        @Override
        public void write(String input) {
            for (String line : input.split("\\R")) {
                command(line);
            }
        }

        @Override
        public void closeInputStream() {
            // gdb's input is the MI channel of the debug model: nothing to close
        }
    };

    GdbConsoleProcess(RankDebugTarget target) {
        this.target = target;
        attributes.put(ATTR_PROCESS_TYPE, PROCESS_TYPE);
        attributes.put(ATTR_PROCESS_LABEL, getLabel());
        target.debugger().gdb().addStreamListener(this::onStream);
        out.append(header());
    }

    /** What the attach did (gdb's own lines about it came before this console existed). */
    private String header() {
        StringBuilder b = new StringBuilder("gdb on " + target.getName() + ", both halves' symbols:\n");
        for (SymbolLoader.Outcome o : target.debugger().symbols()) {
            String what = switch (o.action()) {
                case ADDED -> "add-symbol-file";
                case KNOWN_TO_GDB -> "gdb loads it";
                case SKIPPED_MISMATCH -> "not loaded (rebuilt since)";
                case FAILED -> "failed: " + o.message();
            };
            b.append(String.format("  %-5s 0x%x  %-16s %s%n", o.object().half().label(), o.object().start(), what,
                    o.object().path()));
        }
        b.append(target.isPausePending() ? "The rank waits in its restart pause: `continue` releases it.\n"
                : "Type gdb commands here.\n");
        return b.toString();
    }

    private void onStream(MiRecord.Stream s) {
        (s.kind() == MiRecord.StreamKind.LOG ? err : out).append(s.text());
    }

    /** Runs one line typed into the console; the answer comes back through the streams. */
    void command(String line) {
        if (line.isBlank() || target.isTerminated()) {
            return;
        }
        String cmd = line.strip();
        if (CliExecution.isExecution(cmd)) {
            if (target.isPausePending()) {
                // the pause loop would only spin, and a step from where the restore ends would step through
                // the runtime's resume: the restore runs to its end, then the rank continues
                try {
                    target.releasePauseToUserCode();
                } catch (DebugException e) {
                    err.append("mana: cannot release the restart pause: " + e.getMessage() + "\n");
                    return;
                }
                if (!CliExecution.isContinue(cmd)) {
                    err.append("mana: the restart pause is released; the rank continues (`" + cmd
                            + "` would step through the runtime's restore)\n");
                    cmd = "continue";
                }
            }
            // in the background: in the foreground gdb answers nothing, not even Suspend, until the rank stops
            cmd = CliExecution.inBackground(cmd);
        }
        target.debugger().gdb().send(cmd).whenComplete((r, t) -> {
            if (t != null) {
                err.append(t.getMessage() + "\n");
            } else if (r.isError()) {
                err.append(r.errorMessage() + "\n");
            }
        });
    }

    void fireCreated() {
        DebugPlugin.getDefault().fireDebugEventSet(new DebugEvent[] {new DebugEvent(this, DebugEvent.CREATE)});
    }

    void fireTerminated() {
        DebugPlugin.getDefault().fireDebugEventSet(new DebugEvent[] {new DebugEvent(this, DebugEvent.TERMINATE)});
    }

    @Override
    public String getLabel() {
        return "gdb: " + target.getName();
    }

    @Override
    public ILaunch getLaunch() {
        return target.getLaunch();
    }

    @Override
    public IStreamsProxy getStreamsProxy() {
        return proxy;
    }

    @Override
    public void setAttribute(String key, String value) {
        attributes.put(key, value);
    }

    @Override
    public String getAttribute(String key) {
        return attributes.get(key);
    }

    @Override
    public int getExitValue() throws DebugException {
        if (!isTerminated()) {
            throw new DebugException(ManaDebugModel.error(getLabel() + " is still running", null).getStatus());
        }
        return 0;
    }

    @Override
    public boolean canTerminate() {
        return target.canTerminate();
    }

    @Override
    public boolean isTerminated() {
        return target.isTerminated();
    }

    /** The console's Terminate ends the debug session of the rank as the target's does. */
    @Override
    public void terminate() throws DebugException {
        target.terminate();
    }

    @Override
    public <T> T getAdapter(Class<T> adapter) {
        if (adapter.isInstance(target)) {
            return adapter.cast(target);
        }
        if (adapter == ILaunch.class) {
            return adapter.cast(getLaunch());
        }
        return super.getAdapter(adapter);
    }

    /**
     * A stream of gdb's output: what has come so far (until the console says it need not be kept), and
     * listeners for what comes next. Appending and reading the contents hold the monitor, as the
     * platform's stream monitors do, so a console that connects late sees every piece once.
     */
    private static final class Monitor implements IFlushableStreamMonitor {
        private final StringBuilder contents = new StringBuilder();
        private final List<IStreamListener> listeners = new CopyOnWriteArrayList<>();
        private boolean buffered = true;

        synchronized void append(String text) {
            if (buffered) {
                contents.append(text);
            }
            for (IStreamListener l : listeners) {
                l.streamAppended(text, this);
            }
        }

        @Override
        public void addListener(IStreamListener listener) {
            listeners.add(listener);
        }

        @Override
        public synchronized String getContents() {
            return contents.toString();
        }

        @Override
        public void removeListener(IStreamListener listener) {
            listeners.remove(listener);
        }

        @Override
        public synchronized void flushContents() {
            contents.setLength(0);
        }

        @Override
        public synchronized void setBuffered(boolean buffer) {
            buffered = buffer;
        }

        @Override
        public synchronized boolean isBuffered() {
            return buffered;
        }
    }
}
