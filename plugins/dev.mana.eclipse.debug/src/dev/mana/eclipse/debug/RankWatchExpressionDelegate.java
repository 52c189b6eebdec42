package dev.mana.eclipse.debug;

import dev.mana.gdb.mi.Expressions;
import dev.mana.gdb.mi.MiException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.model.IDebugElement;
import org.eclipse.debug.core.model.IStackFrame;
import org.eclipse.debug.core.model.IThread;
import org.eclipse.debug.core.model.IValue;
import org.eclipse.debug.core.model.IWatchExpressionDelegate;
import org.eclipse.debug.core.model.IWatchExpressionListener;
import org.eclipse.debug.core.model.IWatchExpressionResult;

/**
 * The Expressions view's watch expressions on a rank: evaluated by gdb in the selected frame (a thread or
 * a target: its top frame) at every stop. The value is a variable object, so a struct or an array expands
 * as a local does, and it is highlighted when it changed since the last stop. gdb's message is the error
 * ({@code No symbol "x" in current context.}). Runs in a job: gdb may take its time.
 */
public final class RankWatchExpressionDelegate implements IWatchExpressionDelegate {

    /** One evaluation's outcome. */
    record Result(String getExpressionText, IValue getValue, String[] getErrorMessages, DebugException getException)
            implements IWatchExpressionResult {
        @Override
        public boolean hasErrors() {
            return getErrorMessages.length > 0;
        }
    }

    @Override
    public void evaluateExpression(String expression, IDebugElement context, IWatchExpressionListener listener) {
        Job job = Job.create("Evaluating " + expression, (IProgressMonitor m) -> {
            listener.watchEvaluationFinished(evaluate(expression, context));
            return Status.OK_STATUS;
        });
        job.setSystem(true);
        job.schedule();
    }

    /** Evaluates now, on the calling thread (not the UI thread: it waits for gdb). */
    public static IWatchExpressionResult evaluate(String expression, IDebugElement context) {
        try {
            RankStackFrame frame = frameOf(context);
            if (frame == null) {
                return failed(expression, "no suspended rank selected");
            }
            RankDebugTarget t = (RankDebugTarget) frame.getDebugTarget();
            String thread = ((RankThread) frame.getThread()).gdbId();
            int level = frame.frame().level();
            // evaluated once first: gdb's own message for an expression it cannot evaluate
            String value = Expressions.evaluate(t.debugger().gdb(), thread, level, expression);
            RankVariable v = new RankVariable(t, thread, level, frame.frame().function(), expression, null, value, false);
            return new Result(expression, v.getValue(), new String[0], null);
        } catch (MiException e) {
            return failed(expression, e.reason());
        } catch (DebugException e) {
            return new Result(expression, null, new String[] {e.getMessage()}, e);
        }
    }

    private static IWatchExpressionResult failed(String expression, String message) {
        return new Result(expression, null, new String[] {message}, null);
    }

    private static RankStackFrame frameOf(IDebugElement context) throws DebugException {
        IStackFrame f = null;
        if (context instanceof IStackFrame sf) {
            f = sf;
        } else if (context instanceof IThread th && th.isSuspended()) {
            f = th.getTopStackFrame();
        } else if (context instanceof RankDebugTarget t && t.isSuspended()) {
            for (IThread th : t.getThreads()) {
                f = th.getTopStackFrame();
                if (f != null) {
                    break;
                }
            }
        }
        return f instanceof RankStackFrame r && r.isSuspended() ? r : null;
    }
}
