package dev.mana.eclipse.debug.ui;

import dev.mana.eclipse.internal.debug.ui.Messages;
import java.util.Set;
import org.eclipse.debug.ui.actions.IToggleBreakpointsTarget;
import org.eclipse.debug.ui.actions.IToggleBreakpointsTargetFactory;
import org.eclipse.jface.viewers.ISelection;
import org.eclipse.ui.IWorkbenchPart;

/** Offers {@link ManaToggleBreakpointsTarget} for text editors on C, C++ and Fortran files. */
public final class ManaToggleBreakpointsTargetFactory implements IToggleBreakpointsTargetFactory {
    public static final String TARGET_ID = "dev.mana.eclipse.debug.ui.lineBreakpoints";

    @Override
    public Set<String> getToggleTargets(IWorkbenchPart part, ISelection selection) {
        return ManaToggleBreakpointsTarget.resourceOf(part) != null ? Set.of(TARGET_ID) : Set.of();
    }

    @Override
    public String getDefaultToggleTarget(IWorkbenchPart part, ISelection selection) {
        return ManaToggleBreakpointsTarget.resourceOf(part) != null ? TARGET_ID : null;
    }

    @Override
    public IToggleBreakpointsTarget createToggleTarget(String targetID) {
        return TARGET_ID.equals(targetID) ? new ManaToggleBreakpointsTarget() : null;
    }

    @Override
    public String getToggleTargetName(String targetID) {
        return Messages.ManaToggleBreakpoints_name;
    }

    @Override
    public String getToggleTargetDescription(String targetID) {
        return Messages.ManaToggleBreakpoints_description;

    }
}
