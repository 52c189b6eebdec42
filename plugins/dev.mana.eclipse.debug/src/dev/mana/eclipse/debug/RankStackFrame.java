package dev.mana.eclipse.debug;

import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.MiTuple;
import dev.mana.gdb.mi.Registers;
import dev.mana.gdb.mi.command.MiFrame;
import dev.mana.gdb.mi.command.MiStackListVariables;
import dev.mana.gdb.split.RankDebugger;
import dev.mana.inspector.Half;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.model.DebugElement;
import org.eclipse.debug.core.model.IRegisterGroup;
import org.eclipse.debug.core.model.IStackFrame;
import org.eclipse.debug.core.model.IThread;
import org.eclipse.debug.core.model.IVariable;

/** One frame: function, file, line and the half of the split process it runs in. */
public final class RankStackFrame extends DebugElement implements IStackFrame {
    private final RankThread thread;
    private final RankDebugger.Frame frame;
    private IVariable[] variables;
    private IRegisterGroup[] registerGroups;

    RankStackFrame(RankThread thread, RankDebugger.Frame frame) {
        super(thread.getDebugTarget());
        this.thread = thread;
        this.frame = frame;
    }

    public RankDebugger.Frame frame() { return frame; }

    /** The frame's pc (for an outer frame: the return address into it). */
    public long pc() { return frame.address(); }

    /** 0 for the innermost frame. */
    public int level() { return frame.level(); }

    /** The function's name, or null where gdb knows none. */
    public String function() { return frame.function(); }

    /**
     * Frames are made anew on every request; the Debug view finds the one to select (and keeps
     * expansion) by equality: same thread, level, address and function.
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof RankStackFrame f && f.thread == thread && f.frame.level() == frame.level()
                && f.frame.address() == frame.address() && java.util.Objects.equals(f.frame.function(), frame.function());
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(thread.gdbId(), frame.level(), frame.address());
    }
    public Half half() { return frame.half(); }

    /** The source file as the debug information names it (absolute where gdb knows it), or null. */
    public String getSourcePath() {
        return frame.fullname() != null ? frame.fullname() : frame.file();
    }

    @Override
    public String getModelIdentifier() { return ManaDebugModel.ID; }

    @Override
    public IThread getThread() { return thread; }

    @Override
    public synchronized IVariable[] getVariables() throws DebugException {
        if (variables != null) {
            return variables;
        }
        RankDebugTarget t = (RankDebugTarget) getDebugTarget();
        try {
            List<MiTuple> vars = t.debugger().gdb()
                    .run(MiStackListVariables.simpleValues(new MiFrame(thread.gdbId(), frame.level())));
            List<IVariable> out = new ArrayList<>();
            for (MiTuple var : vars) {
                out.add(new RankVariable(t, thread.gdbId(), frame.level(), frame.function(), var.getString("name"),
                        var.getString("type"), var.getString("value"), "1".equals(var.getString("arg"))));
            }
            variables = out.toArray(new IVariable[0]);
            return variables;
        } catch (MiException e) {
            throw new DebugException(ManaDebugModel.error(e.getMessage(), e).getStatus());
        }
    }

    @Override
    public boolean hasVariables() throws DebugException { return frame.function() != null; }

    @Override
    public int getLineNumber() { return frame.line() > 0 ? frame.line() : -1; }

    @Override
    public int getCharStart() { return -1; }

    @Override
    public int getCharEnd() { return -1; }

    /** {@code [upper] after_step at splitapp.c:20}. */
    @Override
    public String getName() {
        String fn = frame.function() == null ? String.format("0x%x", frame.address()) : frame.function();
        String where = frame.file() != null ? " at " + Path.of(frame.file()).getFileName() + ":" + frame.line()
                : frame.from() != null ? " from " + frame.from() : "";
        return "[" + frame.half().label() + "] " + fn + where;
    }

    /** gdb's register groups (general, float, sse, vector, system, ...) of this frame. */
    @Override
    public synchronized IRegisterGroup[] getRegisterGroups() throws DebugException {
        if (registerGroups == null) {
            try {
                List<IRegisterGroup> out = new ArrayList<>();
                for (Registers.Group g : ((RankDebugTarget) getDebugTarget()).registerGroups()) {
                    out.add(new RankRegisterGroup(this, g));
                }
                registerGroups = out.toArray(new IRegisterGroup[0]);
            } catch (MiException e) {
                throw ManaDebugModel.debugError(e);
            }
        }
        return registerGroups;
    }

    @Override
    public boolean hasRegisterGroups() { return isSuspended(); }

    @Override
    public boolean canStepInto() { return thread.canStepInto(); }
    @Override
    public boolean canStepOver() { return thread.canStepOver(); }
    @Override
    public boolean canStepReturn() { return thread.canStepReturn(); }
    @Override
    public boolean isStepping() { return false; }
    @Override
    public void stepInto() throws DebugException { thread.stepInto(); }
    @Override
    public void stepOver() throws DebugException { thread.stepOver(); }
    @Override
    public void stepReturn() throws DebugException { thread.stepReturn(); }
    @Override
    public boolean canResume() { return thread.canResume(); }
    @Override
    public boolean canSuspend() { return thread.canSuspend(); }
    @Override
    public boolean isSuspended() { return thread.isSuspended(); }
    @Override
    public void resume() throws DebugException { thread.resume(); }
    @Override
    public void suspend() throws DebugException { thread.suspend(); }
    @Override
    public boolean canTerminate() { return thread.canTerminate(); }
    @Override
    public boolean isTerminated() { return thread.isTerminated(); }
    @Override
    public void terminate() throws DebugException { thread.terminate(); }
}
