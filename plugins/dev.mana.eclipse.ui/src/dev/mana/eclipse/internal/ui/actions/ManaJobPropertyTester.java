package dev.mana.eclipse.internal.ui.actions;

import org.eclipse.core.expressions.PropertyTester;

import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.ManaJobs;

/**
 * Properties of the {@code dev.mana.eclipse.ui} namespace for plugin.xml expressions (menus, handlers'
 * {@code enabledWhen}): {@code isManaJob}: a launch, process, job view row or debug element of a MANA
 * job; {@code isRunning}: one still running; {@code anyJobRunning}: a MANA job runs in this IDE (the
 * receiver does not matter: the target of a command with no job selected). {@link JobEnablement} asks
 * for re-evaluation when jobs start and end.
 */
public final class ManaJobPropertyTester extends PropertyTester {
    public static final String NAMESPACE = "dev.mana.eclipse.ui";

    @Override
    public boolean test(Object receiver, String property, Object[] args, Object expectedValue) {
        if (property.equals("anyJobRunning")) {
            return ManaJobs.getActiveJob() != null;
        }
        IManaJob job = ManaJobs.adapt(receiver);
        return switch (property) {
            case "isManaJob" -> job != null;
            case "isRunning" -> job != null && !job.isTerminated();
            default -> false;
        };
    }
}
