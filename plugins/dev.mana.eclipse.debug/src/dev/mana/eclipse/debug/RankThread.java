package dev.mana.eclipse.debug;

import dev.mana.gdb.mi.GdbEvent;
import dev.mana.gdb.mi.MiException;
import dev.mana.gdb.mi.Stepping;
import dev.mana.gdb.mi.Watch;
import dev.mana.gdb.split.RankDebugger;
import java.util.List;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.model.DebugElement;
import org.eclipse.debug.core.model.IBreakpoint;
import org.eclipse.debug.core.model.IStackFrame;
import org.eclipse.debug.core.model.IThread;

/** One thread of a rank (gdb's thread id). */
public final class RankThread extends DebugElement implements IThread {
    private final RankDebugTarget target;
    private final String id;

    RankThread(RankDebugTarget target, String id) {
        super(target);
        this.target = target;
        this.id = id;
    }

    public String gdbId() { return id; }

    @Override
    public String getModelIdentifier() { return ManaDebugModel.ID; }

    @Override
    public IStackFrame[] getStackFrames() throws DebugException {
        if (!isSuspended()) {
            return new IStackFrame[0];
        }
        try {
            List<RankDebugger.Frame> frames = target.debugger().backtrace(id);
            IStackFrame[] out = new IStackFrame[frames.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = new RankStackFrame(this, frames.get(i));
            }
            return out;
        } catch (MiException e) {
            throw new DebugException(ManaDebugModel.error(e.getMessage(), e).getStatus());
        }
    }

    @Override
    public boolean hasStackFrames() throws DebugException { return isSuspended(); }

    @Override
    public int getPriority() { return 0; }

    @Override
    public IStackFrame getTopStackFrame() throws DebugException {
        IStackFrame[] f = getStackFrames();
        return f.length == 0 ? null : f[0];
    }

    @Override
    public String getName() { return "Thread " + id; }

    @Override
    public IBreakpoint[] getBreakpoints() {
        GdbEvent.Stopped s = target.lastStop();
        if (s == null || !id.equals(s.threadId())) {
            return new IBreakpoint[0];
        }
        IBreakpoint bp = target.breakpointByNumber(Watch.stoppedBy(s));
        return bp == null ? new IBreakpoint[0] : new IBreakpoint[] {bp};
    }

    @Override
    public boolean canResume() { return target.canResume(); }
    @Override
    public boolean canSuspend() { return target.canSuspend(); }
    @Override
    public boolean isSuspended() { return target.isSuspended(); }
    @Override
    public void resume() throws DebugException { target.resume(); }
    @Override
    public void suspend() throws DebugException { target.suspend(); }

    @Override
    public boolean canStepInto() { return isSuspended(); }
    @Override
    public boolean canStepOver() { return isSuspended(); }
    @Override
    public boolean canStepReturn() { return isSuspended(); }
    @Override
    public boolean isStepping() { return false; }

    /** By source line, or by machine instruction in Instruction Stepping Mode; at a restart pause: releases it. */
    @Override
    public void stepInto() throws DebugException { target.step(id, Stepping.INTO); }

    @Override
    public void stepOver() throws DebugException { target.step(id, Stepping.OVER); }

    @Override
    public void stepReturn() throws DebugException { target.step(id, Stepping.RETURN); }

    /**
     * One machine instruction whatever the stepping mode ({@code stepi}, or {@code nexti} with {@code over}): the
     * Disassembly view's steps. At a restart pause it releases the pause, as every step does.
     */
    public void stepInstruction(boolean over) throws DebugException {
        target.step(id, over ? Stepping.INSTRUCTION_OVER : Stepping.INSTRUCTION_INTO);
    }

    /** Runs the rank to {@code file:line} (a temporary breakpoint); the stop is a step end. */
    public void runToLine(String file, int line) throws DebugException { target.runToLine(file + ":" + line); }

    @Override
    public boolean canTerminate() { return target.canTerminate(); }
    @Override
    public boolean isTerminated() { return target.isTerminated(); }
    @Override
    public void terminate() throws DebugException { target.terminate(); }
}
