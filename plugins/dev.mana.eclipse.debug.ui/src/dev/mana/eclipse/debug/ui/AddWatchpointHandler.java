package dev.mana.eclipse.debug.ui;

import dev.mana.eclipse.debug.ManaWatchpoint;
import dev.mana.eclipse.internal.debug.ui.Messages;
import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.commands.ExecutionException;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.jface.dialogs.InputDialog;
import org.eclipse.jface.window.Window;
import org.eclipse.ui.handlers.HandlerUtil;

/**
 * Add Watchpoint (MANA)... of the Breakpoints view: stops every debugged rank when an expression is written
 * ({@code iteration}, {@code grid[3]}, {@code *(double *) 0x601040}); a prefix {@code read:} or
 * {@code access:} stops on reads, or on reads and writes.
 */
public final class AddWatchpointHandler extends AbstractHandler {

    /** Why {@code text} is no watchpoint, or null. */
    public static String check(String text) {
        return parse(text) == null ? Messages.AddWatchpoint_empty : null;
    }

    /** {expression, "write" | "read" | "access"}, or null for an empty expression. */
    static String[] parse(String text) {
        String t = text.trim();
        String kind = "write";
        for (String k : new String[] {"read:", "access:", "write:"}) {
            if (t.startsWith(k)) {
                kind = k.substring(0, k.length() - 1);
                t = t.substring(k.length()).trim();
            }
        }
        return t.isEmpty() ? null : new String[] {t, kind};
    }

    /** Creates the watchpoint from the dialog's text and registers it (any thread). */
    public static ManaWatchpoint add(String text) throws CoreException {
        String[] p = parse(text);
        boolean access = !p[1].equals("write");
        boolean modification = !p[1].equals("read");
        ManaWatchpoint wp = new ManaWatchpoint(p[0], access, modification);
        DebugPlugin.getDefault().getBreakpointManager().addBreakpoint(wp);
        return wp;
    }

    @Override
    public Object execute(ExecutionEvent event) throws ExecutionException {
        InputDialog d = new InputDialog(HandlerUtil.getActiveShell(event), Messages.AddWatchpoint_title,
                Messages.AddWatchpoint_message, "", AddWatchpointHandler::check);
        if (d.open() == Window.OK) {
            try {
                add(d.getValue());
            } catch (CoreException e) {
                throw new ExecutionException(e.getMessage(), e);
            }
        }
        return null;
    }
}
