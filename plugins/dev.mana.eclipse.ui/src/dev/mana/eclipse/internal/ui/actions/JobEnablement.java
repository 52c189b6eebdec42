package dev.mana.eclipse.internal.ui.actions;

import org.eclipse.swt.widgets.Display;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.services.IEvaluationService;

import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.IManaJobListener;
import dev.mana.eclipse.core.ManaJobs;

/**
 * Jobs starting and ending change what the commands can do with no change of selection or part, so the
 * workbench would not re-evaluate their {@code enabledWhen}: this asks it to, for the properties of
 * {@link ManaJobPropertyTester}, whenever a job is added, changes or ends.
 */
public final class JobEnablement implements IManaJobListener {
    private static final String[] PROPERTIES = {ManaJobPropertyTester.NAMESPACE + ".anyJobRunning",
        ManaJobPropertyTester.NAMESPACE + ".isRunning", ManaJobPropertyTester.NAMESPACE + ".isManaJob"};
    private static final JobEnablement INSTANCE = new JobEnablement();

    private JobEnablement() {}

    /** Listens to the jobs (the UI plug-in's start). */
    public static void install() {
        ManaJobs.addListener(INSTANCE);
    }

    public static void uninstall() {
        ManaJobs.removeListener(INSTANCE);
    }

    @Override
    public void jobAdded(IManaJob job) {
        reevaluate();
    }

    @Override
    public void jobTerminated(IManaJob job) {
        reevaluate();
    }

    private static void reevaluate() {
        if (!PlatformUI.isWorkbenchRunning()) {
            return;
        }
        Display d = PlatformUI.getWorkbench().getDisplay();
        if (d.isDisposed()) {
            return;
        }
        d.asyncExec(() -> {
            if (!PlatformUI.isWorkbenchRunning()) {
                return;
            }
            IEvaluationService es = PlatformUI.getWorkbench().getService(IEvaluationService.class);
            if (es != null) {
                for (String p : PROPERTIES) {
                    es.requestEvaluation(p);
                }
            }
        });
    }
}
