package dev.mana.eclipse.debug.ui;

import dev.mana.eclipse.debug.ManaFunctionBreakpoint;
import dev.mana.eclipse.internal.debug.ui.Messages;
import java.util.regex.Pattern;
import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.commands.ExecutionException;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.jface.dialogs.IInputValidator;
import org.eclipse.jface.dialogs.InputDialog;
import org.eclipse.jface.window.Window;
import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.handlers.HandlerUtil;

/**
 * Add Function Breakpoint (MANA)... of the Breakpoints view: a breakpoint on a function by name
 * ({@code MPI_Allreduce}, {@code compute_step}, a C++ {@code ns::Class::method}, a Fortran
 * {@code module::sub}), inserted in every debugged rank, and in ranks debugged later before their
 * program resumes.
 */
public final class AddFunctionBreakpointHandler extends AbstractHandler {
    /** A C/C++/Fortran function name as gdb takes it for a location, optionally qualified. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z_$][\\w$]*(::~?[A-Za-z_$][\\w$]*)*");

    /** Why {@code name} is not a function name to break on, or null when it is one. */
    public static String check(String name) {
        String n = name.trim();
        if (n.isEmpty()) {
            return Messages.AddFunctionBreakpoint_empty;
        }
        return NAME.matcher(n).matches() ? null : NLS.bind(Messages.AddFunctionBreakpoint_notAName, n);
    }

    /** Creates the breakpoint and registers it with the breakpoint manager (any thread). */
    public static ManaFunctionBreakpoint add(String function) throws CoreException {
        ManaFunctionBreakpoint bp = new ManaFunctionBreakpoint(function.trim());
        DebugPlugin.getDefault().getBreakpointManager().addBreakpoint(bp);
        return bp;
    }

    @Override
    public Object execute(ExecutionEvent event) throws ExecutionException {
        IInputValidator validator = AddFunctionBreakpointHandler::check;
        InputDialog d = new InputDialog(HandlerUtil.getActiveShell(event), Messages.AddFunctionBreakpoint_title,
                Messages.AddFunctionBreakpoint_message, "", validator);

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
