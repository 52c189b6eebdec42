package dev.mana.eclipse.core;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.model.IProcess;

import dev.mana.eclipse.internal.core.JobRegistry;

/**
 * The MANA jobs of this IDE session, newest last, and listeners to their changes. Read-only API: the
 * launch delegate adds jobs and the jobs fire events through the internal {@link JobRegistry}.
 */
public final class ManaJobs {
    private static final List<IManaJob> JOBS = JobRegistry.jobs();
    private static final List<IManaJobListener> LISTENERS = JobRegistry.listeners();

    private ManaJobs() {}

    public static List<IManaJob> getJobs() {
        return new ArrayList<>(JOBS);
    }

    /** The newest job still running, or null. */
    public static IManaJob getActiveJob() {
        for (int i = JOBS.size() - 1; i >= 0; i--) {
            if (!JOBS.get(i).isTerminated()) {
                return JOBS.get(i);
            }
        }
        return null;
    }

    /** The job of a launch, or null. */
    public static IManaJob forLaunch(ILaunch launch) {
        for (IManaJob j : JOBS) {
            if (j.getLaunch() == launch) {
                return j;
            }
        }
        return null;
    }

    /** The job of a launch, a process, or a job itself; null for anything else. */
    public static IManaJob adapt(Object o) {
        if (o instanceof IManaJob j) {
            return j;
        }
        if (o instanceof ILaunch l) {
            return forLaunch(l);
        }
        if (o instanceof IProcess p) {
            return forLaunch(p.getLaunch());
        }
        if (o instanceof org.eclipse.core.runtime.IAdaptable a) {
            IProcess p = a.getAdapter(IProcess.class);
            if (p != null) {
                return forLaunch(p.getLaunch());
            }
            ILaunch l = a.getAdapter(ILaunch.class);
            if (l != null) {
                return forLaunch(l);
            }
        }
        return null;
    }

    public static void addListener(IManaJobListener l) {
        JobRegistry.addListener(l);
    }

    public static void removeListener(IManaJobListener l) {
        LISTENERS.remove(l);
    }
}
