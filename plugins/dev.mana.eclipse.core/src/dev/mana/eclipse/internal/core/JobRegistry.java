package dev.mana.eclipse.internal.core;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.eclipse.core.runtime.ILog;

import dev.mana.coordinator.CheckpointProgress;
import dev.mana.coordinator.CheckpointResult;
import dev.mana.eclipse.core.IManaJob;
import dev.mana.eclipse.core.IManaJobListener;
import dev.mana.eclipse.core.ManaJobs;

/**
 * The implementation side of {@link ManaJobs}: the job list and its listeners, and the calls that add
 * and remove jobs and fire events. Kept out of the API so that only the plug-in's own jobs announce
 * launches and checkpoints.
 */
public final class JobRegistry {
    private static final CopyOnWriteArrayList<IManaJob> JOBS = new CopyOnWriteArrayList<>();
    private static final CopyOnWriteArrayList<IManaJobListener> LISTENERS = new CopyOnWriteArrayList<>();

    private JobRegistry() {}

    /** The live job list {@link ManaJobs} reads (newest last). */
    public static List<IManaJob> jobs() {
        return JOBS;
    }

    /** The live listener list {@link ManaJobs} reads. */
    public static List<IManaJobListener> listeners() {
        return LISTENERS;
    }

    public static void addListener(IManaJobListener l) {
        LISTENERS.addIfAbsent(l);
    }

    /** Registers a new job (the launch delegate). */
    public static void add(IManaJob job) {
        JOBS.add(job);
        fire(l -> l.jobAdded(job));
    }

    /** Forgets a job whose launch was removed from the launch manager. */
    static void remove(IManaJob job) {
        JOBS.remove(job);
        fire(l -> l.jobChanged(job));
    }

    static void fireChanged(IManaJob job) {
        fire(l -> l.jobChanged(job));
    }

    static void fireTerminated(IManaJob job) {
        fire(l -> l.jobTerminated(job));
    }

    static void fireCheckpointProgress(IManaJob job, CheckpointProgress p) {
        fire(l -> l.checkpointProgress(job, p));
    }

    static void fireCheckpointDone(IManaJob job, CheckpointResult r) {
        fire(l -> l.checkpointDone(job, r));
    }

    private static void fire(Consumer<IManaJobListener> c) {
        for (IManaJobListener l : LISTENERS) {
            try {
                c.accept(l);
            } catch (RuntimeException e) {
                ILog.of(JobRegistry.class).error("MANA job listener failed", e);
            }
        }
    }
}
