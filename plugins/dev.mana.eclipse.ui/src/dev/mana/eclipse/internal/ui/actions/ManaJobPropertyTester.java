package dev.mana.eclipse.internal.ui.actions;

import org.eclipse.core.expressions.PropertyTester;

import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaJobs;

/** {@code isManaJob}: a launch, process or debug element of a MANA job; {@code isRunning}: one still running. */
public final class ManaJobPropertyTester extends PropertyTester {
    @Override
    public boolean test(Object receiver, String property, Object[] args, Object expectedValue) {
        IManaJob job = ManaJobs.adapt(receiver);
        return switch (property) {
            case "isManaJob" -> job != null;
            case "isRunning" -> job != null && !job.isTerminated();
            default -> false;
        };
    }
}
