package dev.mana.eclipse.debug.ui;

import dev.mana.eclipse.debug.ManaDebugModel;
import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.Command;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.commands.ExecutionException;
import org.eclipse.ui.handlers.HandlerUtil;

/**
 * Instruction Stepping Mode (the Debug view's toolbar, as in CDT): while on, Step Into and Step Over of MANA
 * ranks move one machine instruction ({@code stepi}, {@code nexti}).
 */
public final class InstructionSteppingHandler extends AbstractHandler {
    public static final String COMMAND = "dev.mana.eclipse.debug.ui.instructionStepping";

    @Override
    public Object execute(ExecutionEvent event) throws ExecutionException {
        Command c = event.getCommand();
        boolean on = !HandlerUtil.toggleCommandState(c); // returns the old state
        ManaDebugModel.setInstructionStepping(on);
        return null;
    }
}
