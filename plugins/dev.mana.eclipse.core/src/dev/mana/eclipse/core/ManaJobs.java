package dev.mana.eclipse.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.model.IProcess;

/** The MANA jobs of this IDE session, newest last, and listeners to their changes. */
public final class ManaJobs {
    private static final CopyOnWriteArrayList<IManaJob> JOBS = new CopyOnWriteArrayList<>();
    private static final CopyOnWriteArrayList<IManaJobListener> LISTENERS = new CopyOnWriteArrayList<>();

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
        LISTENERS.addIfAbsent(l);
    }

    public static void removeListener(IManaJobListener l) {
        LISTENERS.remove(l);
    }

    /** Removes jobs whose launches were removed from the launch manager. */
    public static void remove(IManaJob job) {
        JOBS.remove(job);
        fire(l -> l.jobChanged(job));
    }

    // ---- for the implementation ----

    /** Registers a new job (called by the launch delegate). */
    public static void add(IManaJob job) {
        JOBS.add(job);
        fire(l -> l.jobAdded(job));
    }

    public static void fireChanged(IManaJob job) {
        fire(l -> l.jobChanged(job));
    }

    public static void fireTerminated(IManaJob job) {
        fire(l -> l.jobTerminated(job));
    }

    public static void fireCheckpointDone(IManaJob job, CheckpointResult r) {
        fire(l -> l.checkpointDone(job, r));
    }

    private static void fire(java.util.function.Consumer<IManaJobListener> c) {
        for (IManaJobListener l : LISTENERS) {
            try {
                c.accept(l);
            } catch (RuntimeException e) {
                org.eclipse.core.runtime.ILog.of(ManaJobs.class).error("MANA job listener failed", e);
            }
        }
    }
}
